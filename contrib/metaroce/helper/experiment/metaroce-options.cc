#include "metaroce-options.h"

#include "ns3/object.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <unistd.h>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& option, const std::string& message)
{
    throw std::invalid_argument("--" + option + ": " + message);
}

/// Parses all of `text` as a double, or returns false.
bool
ParseDouble(const std::string& text, double& value)
{
    std::size_t used = 0;
    try
    {
        value = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        return false;
    }
    return used == text.size();
}

/**
 * True when ns-3 can read `value` for an attribute of `valueType` without aborting: the
 * numeric and time values of ns-3.37 abort on trailing text instead of reporting it, so those
 * are checked here first (others report a bad value through CreateValidValue()).
 */
bool Readable(const std::string& valueType, const std::string& value);

/**
 * True when `checker` makes a value of `text`. Some of ns-3's value parsers throw instead of
 * failing (Mac48Address: std::out_of_range from stoul, found by test/fuzz): that is a refusal.
 */
bool
Valid(const AttributeChecker& checker, const std::string& text)
{
    try
    {
        return bool(checker.CreateValidValue(StringValue(text)));
    }
    catch (const std::exception&)
    {
        return false;
    }
}

/**
 * An ObjectFactory value, "ns3::Type" or "ns3::Type[Name=Value|Name=Value]", whose type exists
 * and whose attributes exist and take their values; ns-3 itself aborts on an unknown type.
 */
bool
ReadableFactory(const std::string& value)
{
    const auto open = value.find('[');
    const std::string type = value.substr(0, open);
    TypeId tid;
    // ns-3 aborts on an unknown type and on one it cannot construct (an abstract base), and
    // crashes on a type that is not an Object (ns3::PbbPacket, a Header; found by test/fuzz).
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.HasConstructor() ||
        !tid.IsChildOf(Object::GetTypeId()))
    {
        return false;
    }
    if (open == std::string::npos)
    {
        return true;
    }
    if (value.back() != ']')
    {
        return false;
    }
    std::stringstream ss(value.substr(open + 1, value.size() - open - 2));
    for (std::string item; std::getline(ss, item, '|');)
    {
        const auto eq = item.find('=');
        TypeId::AttributeInformation info;
        if (eq == std::string::npos || !tid.LookupAttributeByName(item.substr(0, eq), &info) ||
            !Readable(info.checker->GetValueTypeName(), item.substr(eq + 1)) ||
            !Valid(*info.checker, item.substr(eq + 1)))
        {
            return false;
        }
    }
    return true;
}

bool
Readable(const std::string& checkerValueType, const std::string& value)
{
    // No attribute value needs white space or control characters, and some of ns-3's parsers
    // (QueueSize, for one) abort on them instead of reporting them (found by test/fuzz).
    for (const char ch : value)
    {
        if (ch <= ' ' || ch == 0x7f)
        {
            return false;
        }
    }
    // Checkers name their value type with or without the namespace ("ns3::UintegerValue",
    // "ObjectFactoryValue", "TimeValue"): compare without it.
    const std::string valueType = checkerValueType.compare(0, 5, "ns3::") == 0
                                      ? checkerValueType.substr(5)
                                      : checkerValueType;
    // A Pointer attribute is read as an object factory too (PointerValue creates the object).
    if (valueType == "ObjectFactoryValue" || valueType == "PointerValue")
    {
        return ReadableFactory(value);
    }
    try
    {
        std::size_t used = 0;
        if (valueType == "UintegerValue")
        {
            std::stoull(value, &used);
            return used == value.size() && value.find('-') == std::string::npos;
        }
        if (valueType == "IntegerValue")
        {
            std::stoll(value, &used);
            return used == value.size();
        }
        if (valueType == "DoubleValue")
        {
            // Decimal only: stod also reads hex, inf and nan, which ns-3's reader (operator>>)
            // aborts on ("Min=0x2", found by test/fuzz).
            std::stod(value, &used);
            return used == value.size() &&
                   value.find_first_not_of("+-0123456789.eE") == std::string::npos;
        }
        if (valueType == "TimeValue")
        {
            ParseTimeOption("attribute", value);
        }
    }
    catch (const std::exception&)
    {
        return false;
    }
    return true;
}

} // namespace

std::vector<std::string>
SplitOptionList(const std::string& option, const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
    {
        if (item.empty())
        {
            Fail(option, "empty item in '" + text + "'");
        }
        items.push_back(item);
    }
    if (items.empty())
    {
        Fail(option, "empty list");
    }
    return items;
}

std::vector<double>
ParseProbabilityList(const std::string& option, const std::string& text)
{
    std::vector<double> values;
    for (const std::string& item : SplitOptionList(option, text))
    {
        double v = -1;
        if (!ParseDouble(item, v) || !(v >= 0 && v < 1))
        {
            Fail(option, "'" + item + "' is not a probability in [0, 1)");
        }
        values.push_back(v);
    }
    return values;
}

std::vector<uint32_t>
ParseHostRanks(const std::string& option, const std::string& text, uint32_t hosts)
{
    std::vector<uint32_t> ranks;
    if (text == "leaf")
    {
        return ranks;
    }
    for (const std::string& item : SplitOptionList(option, text))
    {
        double v = -1;
        if (!ParseDouble(item, v) || !(v >= 0 && v < 65536) || v != std::floor(v))
        {
            Fail(option, "'" + item + "' is not a rank number (or give 'leaf')");
        }
        ranks.push_back(static_cast<uint32_t>(v));
    }
    if (ranks.size() != hosts)
    {
        Fail(option,
             "names the rank of " + std::to_string(ranks.size()) + " hosts, the fabric has " +
                 std::to_string(hosts) + " (one rank per host, or 'leaf')");
    }
    return ranks;
}

Time
ParseTimeOption(const std::string& option, const std::string& text)
{
    // The units ns-3's Time(std::string) understands, in seconds; it aborts on anything else,
    // so check first. Longest suffixes first ("ms" before "s").
    static const std::array<std::pair<const char*, double>, 9> units{{{"min", 60},
                                                                      {"ms", 1e-3},
                                                                      {"us", 1e-6},
                                                                      {"ns", 1e-9},
                                                                      {"ps", 1e-12},
                                                                      {"fs", 1e-15},
                                                                      {"s", 1},
                                                                      {"h", 3600},
                                                                      {"d", 86400}}};
    std::string number = text;
    double scale = 1; // a bare number is seconds
    for (const auto& [unit, seconds] : units)
    {
        const std::string u(unit);
        if (text.size() > u.size() && text.compare(text.size() - u.size(), u.size(), u) == 0)
        {
            number = text.substr(0, text.size() - u.size());
            scale = seconds;
            break;
        }
    }
    double v = -1;
    if (!ParseDouble(number, v) || number.find_first_not_of("+-0123456789.eE") != std::string::npos)
    {
        Fail(option, "'" + text + "' is not a time (a number with s, ms, us, ns, ...)");
    }
    if (v < 0)
    {
        Fail(option, "'" + text + "' is negative");
    }
    // ns-3 counts nanoseconds in 64 bits: beyond about 292 years the count wraps around, and a
    // positive time below 1 ns would silently become 0.
    if (v * scale > 9.2e9)
    {
        Fail(option, "'" + text + "' is past the longest time ns-3 holds (about 292 years)");
    }
    if (v > 0 && v * scale < 1e-9)
    {
        Fail(option, "'" + text + "' is below ns-3's time resolution (1 ns)");
    }
    return Time(text);
}

DataRate
ParseRateOption(const std::string& option, const std::string& text)
{
    std::istringstream iss(text);
    DataRate rate;
    iss >> rate;
    if (iss.fail() || rate.GetBitRate() == 0)
    {
        Fail(option, "'" + text + "' is not a positive data rate (e.g. 100Gbps)");
    }
    return rate;
}

ObjectFactory
ParseSchedulerOption(const std::string& option, const std::string& text)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(text, &tid) ||
        !tid.IsChildOf(TypeId::LookupByName("ns3::Scheduler")))
    {
        Fail(option,
             "'" + text +
                 "' is not an ns-3 scheduler (ns3::MetaRoceRadixScheduler, "
                 "ns3::PriorityQueueScheduler, ns3::MapScheduler, ns3::HeapScheduler, "
                 "ns3::CalendarScheduler or ns3::ListScheduler)");
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return factory;
}

void
ValidateOutputPrefix(const std::string& option, const std::string& prefix)
{
    if (prefix.empty())
    {
        return;
    }
    if (prefix.back() == '/')
    {
        Fail(option,
             "'" + prefix + "' is a directory; give a file prefix such as '" + prefix + "run'");
    }
    const auto slash = prefix.rfind('/');
    const std::string dir =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : prefix.substr(0, slash));
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error))
    {
        Fail(option, "directory '" + dir + "' of prefix '" + prefix + "' does not exist");
    }
    if (access(dir.c_str(), W_OK) != 0)
    {
        Fail(option, "directory '" + dir + "' of prefix '" + prefix + "' is not writable");
    }
}

void
ValidateOpenFiles(const std::string& option, double files)
{
    rlimit open{};
    getrlimit(RLIMIT_NOFILE, &open);
    constexpr double kOtherFiles = 64; // the process's own, the result files
    if (open.rlim_cur != RLIM_INFINITY && files + kOtherFiles > open.rlim_cur)
    {
        Fail(option,
             std::to_string(static_cast<uint64_t>(files)) +
                 " capture files would be open at once, more than this process may open "
                 "(ulimit -n: " +
                 std::to_string(open.rlim_cur) + ")");
    }
}

void
ValidateOutputFile(const std::string& option, const std::string& path)
{
    ValidateOutputPrefix(option, path);
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
    {
        Fail(option, "'" + path + "' is a directory; give a file name");
    }
}

void
CheckAttributeValue(const std::string& option,
                    const AttributeChecker& checker,
                    const std::string& value,
                    const std::string& what)
{
    if (Readable(checker.GetValueTypeName(), value) && Valid(checker, value))
    {
        return;
    }
    // An algorithm attribute's checker names the family it takes as its underlying type
    // (MakeAlgorithmFactoryChecker); other checkers' are no TypeId.
    TypeId family;
    const std::string allowed =
        checker.HasUnderlyingTypeInformation() &&
                TypeId::LookupByNameFailSafe(checker.GetUnderlyingTypeInformation(), &family)
            ? " (expected a " + family.GetName() + ")"
            : "";
    Fail(option, "'" + value + "' is not a valid value for " + what + allowed);
}

MetaRoceAttributeList
ParseAttributeOption(const std::string& option,
                     const std::string& text,
                     const std::string& typeName)
{
    MetaRoceAttributeList result;
    std::stringstream ss(text);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        Fail(option, "unknown type '" + typeName + "'"); // ns-3's lookup would abort
    }
    for (std::string item; std::getline(ss, item, ';');)
    {
        if (item.empty())
        {
            continue;
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos)
        {
            Fail(option, "'" + item + "' is not Name=Value");
        }
        const std::string name = item.substr(0, eq);
        const std::string value = item.substr(eq + 1);
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            Fail(option, typeName + " has no attribute '" + name + "'");
        }
        CheckAttributeValue(option, *info.checker, value, typeName + "::" + name);
        result.emplace_back(name, value);
    }
    return result;
}

} // namespace ns3
