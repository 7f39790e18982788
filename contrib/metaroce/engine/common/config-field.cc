#include "config-field.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace metaroce
{

const char*
FieldUnitSymbol(FieldUnit unit)
{
    switch (unit)
    {
    case FieldUnit::Bytes:
        return "B";
    case FieldUnit::Nanoseconds:
        return "ns";
    case FieldUnit::BitsPerSecond:
        return "b/s";
    case FieldUnit::Count:
    case FieldUnit::Real:
    case FieldUnit::Flag:
        break;
    }
    return "";
}

std::string
FormatFieldValue(FieldUnit unit, double value)
{
    if (unit == FieldUnit::Flag)
    {
        return value != 0 ? "true" : "false";
    }
    // Whole numbers in full (integer fields reach 2^53), others with six significant digits.
    if (std::floor(value) == value && std::fabs(value) < 1e16)
    {
        return std::to_string(static_cast<long long>(value));
    }
    std::ostringstream os;
    os << value;
    return os.str();
}

std::string
CheckFieldValue(double value, double min, double max, bool integer)
{
    if (FieldValueOk(value, min, max, integer))
    {
        return "";
    }
    if (std::isnan(value) || value < min || value > max)
    {
        return "must be in [" + FormatFieldValue(FieldUnit::Real, min) + ", " +
               FormatFieldValue(FieldUnit::Real, max) + "]";
    }
    return "must be a whole number"; // in range, so FieldValueOk() found a fraction
}

void
ThrowFieldError(const char* owner,
                const char* member,
                const std::string& why,
                const std::string& got)
{
    throw std::invalid_argument(std::string(owner) + "." + member + ": " + why + " (got " + got +
                                ")");
}

} // namespace metaroce
