#include "metaroce-command-line.h"

#include "metaroce-options.h"

#include "ns3/global-value.h"
#include "ns3/object.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

[[noreturn]] void
Refuse(const std::string& option, const std::string& text, const std::string& allowed)
{
    throw std::invalid_argument("--" + option + ": '" + text + "' is not " + allowed);
}

/// What ParseCommandLine() knows of a CommandLine beyond ns-3.
struct Known
{
    std::set<std::string> options;                 ///< given through the Add*Option functions
    std::map<std::string, std::string> ownGlobals; ///< global value -> the option that sets it
};

std::map<const CommandLine*, Known>&
Registry()
{
    static std::map<const CommandLine*, Known> registry;
    return registry;
}

/// ns-3's own arguments (CommandLine's "General Arguments").
const std::set<std::string> kGeneralArguments = {"PrintHelp",
                                                 "help",
                                                 "PrintVersion",
                                                 "version",
                                                 "PrintGlobals",
                                                 "PrintGroups",
                                                 "PrintTypeIds",
                                                 "PrintGroup",
                                                 "PrintAttributes"};

/// A global value argument (--RngRun=2): its value as ns-3 would read it, and not one the
/// program sets itself.
void
CheckGlobalValue(const Known& known, const GlobalValue& global, const std::string& value)
{
    const std::string& name = global.GetName();
    if (const auto own = known.ownGlobals.find(name); own != known.ownGlobals.end())
    {
        throw std::invalid_argument("--" + name + "=" + value +
                                    ": this program sets it itself (see --" + own->second + ")");
    }
    CheckAttributeValue(name, *global.GetChecker(), value, "the global value " + name);
    // Type names ns-3 reads only when it makes the simulator, then aborts on.
    for (const auto& [typed, base] :
         {std::make_pair("SimulatorImplementationType", "ns3::SimulatorImpl"),
          std::make_pair("SchedulerType", "ns3::Scheduler")})
    {
        TypeId tid;
        if (name == typed && (!TypeId::LookupByNameFailSafe(value, &tid) || !tid.HasConstructor() ||
                              !tid.IsChildOf(TypeId::LookupByName(base))))
        {
            throw std::invalid_argument("--" + name + ": '" + value + "' is not a " + base);
        }
    }
}

/// One argument, as ns-3's CommandLine would take it, refused in one line when it would fail.
void
CheckArgument(const Known& known, const std::string& arg, bool ns3Objects)
{
    if (arg.empty() || arg[0] != '-')
    {
        throw std::invalid_argument("'" + arg +
                                    "' is not an option: options are --name=value (--help lists "
                                    "them)");
    }
    const std::string body = arg.substr(
        arg.find_first_not_of('-') == std::string::npos ? arg.size() : arg.find_first_not_of('-'));
    const auto eq = body.find('=');
    const std::string name = body.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : body.substr(eq + 1);
    if (known.options.count(name) || (kGeneralArguments.count(name) && name != "PrintAttributes"))
    {
        return;
    }
    TypeId tid;
    if (name == "PrintAttributes")
    {
        if (!TypeId::LookupByNameFailSafe(value, &tid))
        {
            throw std::invalid_argument("--PrintAttributes: unknown type '" + value + "'");
        }
        return;
    }
    const auto scope = name.rfind("::");
    const bool attribute = scope != std::string::npos;
    const auto global = std::find_if(GlobalValue::Begin(), GlobalValue::End(), [&name](auto g) {
        return g->GetName() == name;
    });
    if ((attribute || global != GlobalValue::End()) && !ns3Objects)
    {
        throw std::invalid_argument("'" + arg +
                                    "' has no effect: this program builds no ns-3 "
                                    "object (--help lists its options)");
    }
    if (attribute)
    {
        // An attribute default, --ns3::Type::Attribute=value (Config::SetDefault).
        const std::string type = name.substr(0, scope);
        TypeId::AttributeInformation info;
        if (!TypeId::LookupByNameFailSafe(type, &tid) ||
            !tid.LookupAttributeByName(name.substr(scope + 2), &info))
        {
            throw std::invalid_argument("--" + name + ": no such attribute (" + type +
                                        " unknown or without it)");
        }
        CheckAttributeValue(name, *info.checker, value, name);
        return;
    }
    if (global != GlobalValue::End())
    {
        CheckGlobalValue(known, **global, value);
        return;
    }
    throw std::invalid_argument("'" + arg +
                                "' is not an option of this program (--help lists "
                                "them)");
}

} // namespace

void
RegisterOption(CommandLine& cmd, const std::string& name)
{
    Registry()[&cmd].options.insert(name);
}

void
RegisterOwnGlobal(CommandLine& cmd, const std::string& global, const std::string& option)
{
    Registry()[&cmd].ownGlobals[global] = option;
}

int64_t
ParseIntegerOption(const std::string& option, const std::string& text, int64_t min, uint64_t max)
{
    std::ostringstream allowed;
    allowed << "an integer in [" << min << ", " << max << "]";
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    // Digits only: stoull would take "-1" (as 2^64-1), "+4", " 4" and "4x".
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 19 || (negative && min >= 0))
    {
        Refuse(option, text, allowed.str());
    }
    const uint64_t magnitude = std::stoull(digits);
    if (negative)
    {
        if (magnitude > static_cast<uint64_t>(-(min + 1)) + 1)
        {
            Refuse(option, text, allowed.str());
        }
        return -static_cast<int64_t>(magnitude - 1) - 1;
    }
    if (magnitude > max || (min > 0 && magnitude < static_cast<uint64_t>(min)))
    {
        Refuse(option, text, allowed.str());
    }
    return static_cast<int64_t>(magnitude);
}

double
ParseRealOption(const std::string& option, const std::string& text, double min, double max)
{
    std::ostringstream allowed;
    allowed << "a number in [" << min << ", " << max << "]";
    double v = 0;
    std::size_t used = 0;
    try
    {
        v = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (text.empty() || used != text.size() || !std::isfinite(v) || v < min || v > max)
    {
        Refuse(option, text, allowed.str());
    }
    return v;
}

bool
ParseBoolOption(const std::string& option, const std::string& text)
{
    if (text == "true" || text == "1" || text.empty())
    {
        return true;
    }
    if (text == "false" || text == "0")
    {
        return false;
    }
    Refuse(option, text, "true or false");
}

metaroce::Transport
ParseTransportOption(const std::string& option, const std::string& text)
{
    try
    {
        return metaroce::ParseTransport(text);
    }
    catch (const std::invalid_argument&)
    {
        Refuse(option, text, "a transport (metaroce or rocev2)");
    }
}

void
AddRealOption(CommandLine& cmd,
              const std::string& name,
              const std::string& help,
              double& value,
              double min,
              double max)
{
    std::ostringstream def;
    def << value;
    RegisterOption(cmd, name);
    cmd.AddValue(name,
                 help,
                 MetaRoceOptionCallback([&value, name, min, max](std::string text) {
                     value = ParseRealOption(name, text, min, max);
                     return true;
                 }),
                 def.str());
}

void
AddBoolOption(CommandLine& cmd, const std::string& name, const std::string& help, bool& value)
{
    RegisterOption(cmd, name);
    cmd.AddValue(name,
                 help,
                 MetaRoceOptionCallback([&value, name](std::string text) {
                     value = ParseBoolOption(name, text);
                     return true;
                 }),
                 value ? "true" : "false");
}

void
AddStringOption(CommandLine& cmd,
                const std::string& name,
                const std::string& help,
                std::string& value)
{
    RegisterOption(cmd, name);
    cmd.AddValue(name,
                 help,
                 MetaRoceOptionCallback([&value](std::string text) {
                     value = text;
                     return true;
                 }),
                 value);
}

bool
ParseCommandLine(CommandLine& cmd,
                 int argc,
                 char* argv[],
                 const std::string& program,
                 bool ns3Objects)
{
    const Known known = std::move(Registry()[&cmd]);
    Registry().erase(&cmd);
    try
    {
        for (int i = 1; i < argc; ++i)
        {
            CheckArgument(known, argv[i], ns3Objects);
        }
        cmd.Parse(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << program << ": " << e.what() << "\n";
        return false;
    }
    return true;
}

} // namespace ns3
