#include "metaroce-command-line.h"

#include <cmath>
#include <iostream>
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

} // namespace

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
    cmd.AddValue(name,
                 help,
                 Callback<bool, std::string>([&value, name, min, max](std::string text) {
                     value = ParseRealOption(name, text, min, max);
                     return true;
                 }),
                 def.str());
}

void
AddBoolOption(CommandLine& cmd, const std::string& name, const std::string& help, bool& value)
{
    cmd.AddValue(name,
                 help,
                 Callback<bool, std::string>([&value, name](std::string text) {
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
    cmd.AddValue(name,
                 help,
                 Callback<bool, std::string>([&value](std::string text) {
                     value = text;
                     return true;
                 }),
                 value);
}

bool
ParseCommandLine(CommandLine& cmd, int argc, char* argv[], const std::string& program)
{
    try
    {
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
