#include "text-values.h"

#include <stdexcept>

namespace metaroce::compliance
{

uint64_t
ParseUnsigned(const std::string& text, uint64_t max)
{
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const std::string digits = hex ? text.substr(2) : text;
    if (digits.empty())
    {
        throw std::invalid_argument("'" + text + "' is not a number");
    }
    const uint64_t base = hex ? 16 : 10;
    uint64_t value = 0;
    for (char c : digits)
    {
        uint64_t d = 0;
        if (c >= '0' && c <= '9')
        {
            d = static_cast<uint64_t>(c - '0');
        }
        else if (hex && c >= 'a' && c <= 'f')
        {
            d = static_cast<uint64_t>(c - 'a' + 10);
        }
        else if (hex && c >= 'A' && c <= 'F')
        {
            d = static_cast<uint64_t>(c - 'A' + 10);
        }
        else
        {
            throw std::invalid_argument("'" + text + "' is not a number");
        }
        if (value > (UINT64_MAX - d) / base)
        {
            throw std::invalid_argument("'" + text + "' is too large");
        }
        value = value * base + d;
    }
    if (value > max)
    {
        throw std::invalid_argument("'" + text + "' exceeds " + std::to_string(max));
    }
    return value;
}

TimeNs
ParseTime(const std::string& text)
{
    std::size_t end = 0;
    while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.'))
    {
        ++end;
    }
    const std::string number = text.substr(0, end);
    const std::string unit = text.substr(end);
    uint64_t scale = 0;
    if (unit.empty() || unit == "ns")
    {
        scale = 1;
    }
    else if (unit == "us")
    {
        scale = 1000;
    }
    else if (unit == "ms")
    {
        scale = 1000000;
    }
    else if (unit == "s")
    {
        scale = 1000000000;
    }
    else
    {
        throw std::invalid_argument("'" + text + "': unknown time unit (ns, us, ms, s)");
    }
    const std::size_t dot = number.find('.');
    const std::string whole = number.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
    if (whole.empty() ||
        number.find('.', dot == std::string::npos ? dot : dot + 1) != std::string::npos)
    {
        throw std::invalid_argument("'" + text + "' is not a time");
    }
    const uint64_t count = ParseUnsigned(whole);
    if (count > (kNever - 1) / scale)
    {
        throw std::invalid_argument("'" + text + "' is past the latest time a scenario can name");
    }
    TimeNs ns = count * scale;
    // The fraction must not need finer than 1 ns.
    uint64_t unitPart = scale;
    for (char c : fraction)
    {
        if (c < '0' || c > '9' || unitPart < 10)
        {
            throw std::invalid_argument("'" + text + "' is not a whole number of nanoseconds");
        }
        unitPart /= 10;
        ns += static_cast<uint64_t>(c - '0') * unitPart;
    }
    return ns;
}

bool
ParseBool(const std::string& text)
{
    if (text == "true" || text == "1")
    {
        return true;
    }
    if (text == "false" || text == "0")
    {
        return false;
    }
    throw std::invalid_argument("'" + text + "' is not a boolean (true, false)");
}

std::string
FormatTime(TimeNs t)
{
    if (t == kNever)
    {
        return "never";
    }
    if (t % 1000 != 0 || t == 0)
    {
        return std::to_string(t) + "ns";
    }
    std::string us = std::to_string(t / 1000);
    return us + "us";
}

} // namespace metaroce::compliance
