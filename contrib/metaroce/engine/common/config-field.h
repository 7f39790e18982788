/*
 * Configuration fields declared once (spec 11, "Assumptions").
 *
 * Every tunable of an engine configuration struct (MetaRoceConfig, RoceV2Config, DcqcnConfig,
 * the congestion-control parameters) is listed in one table of ConfigField entries: the C++
 * member, the ns-3 attribute name, the unit, the valid range, the spec section and a one-line
 * meaning. The default is the struct's member initialiser and nothing else. From the table come
 * the range checks of Validate(), the NIC's and the algorithm objects' ns-3 attributes (with
 * their checkers and help text), the compliance suite's scenario settings and the documentation,
 * so a new field is one line in one table.
 *
 * Values travel as double: every integer field's range stays below 2^53, where a double is
 * exact, and the range check refuses a fractional value for an integer field.
 */
#ifndef METAROCE_ENGINE_CONFIG_FIELD_H
#define METAROCE_ENGINE_CONFIG_FIELD_H

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace metaroce
{

/// What a field measures: decides how it is written, parsed and exposed as an ns-3 attribute.
enum class FieldUnit : unsigned char
{
    Count,         ///< a plain number of things (packets, timeouts, probes, streams, ...)
    Bytes,         ///< bytes
    Nanoseconds,   ///< a duration (TimeNs); an ns-3 Time attribute
    BitsPerSecond, ///< a rate; an ns-3 DataRate attribute
    Real,          ///< a real number (gains, fractions)
    Flag,          ///< on or off; an ns-3 Boolean attribute
};

/// Short printable unit ("ns", "B", "b/s", ...), empty for counts, reals and flags.
const char* FieldUnitSymbol(FieldUnit unit);

/// One tunable field of a configuration struct `Config`.
template<typename Config>
struct ConfigField
{
    const char* member; ///< the C++ member, e.g. "rtoMinNs" (compliance scenarios, Python)
    /// The ns-3 attribute name, e.g. "RtoMin"; an owner may put a prefix before it ("Roce" +
    /// "Rto" on the NIC).
    const char* attribute;
    FieldUnit unit;
    double min;          ///< smallest valid value
    double max;          ///< largest valid value (never above what the member's type holds)
    bool integer;        ///< the member is an integer type: fractions are refused
    const char* section; ///< spec section that defines or assumes it, e.g. "5.5"
    const char* help;    ///< one line: what it does
    double (*get)(const Config&);
    void (*set)(Config&, double);

    /// Empty when `value` is valid for this field, else why not ("must be in [1, 256]").
    std::string Check(double value) const;
};

/// The table of one configuration struct.
template<typename Config>
using ConfigFields = std::vector<ConfigField<Config>>;

namespace detail
{

template<typename T>
struct MemberTraits;

template<typename C, typename V>
struct MemberTraits<V C::*>
{
    using Class = C;
    using Value = V;
};

template<auto Member>
double
GetField(const typename MemberTraits<decltype(Member)>::Class& c)
{
    return static_cast<double>(c.*Member);
}

template<auto Member>
void
SetField(typename MemberTraits<decltype(Member)>::Class& c, double v)
{
    using Value = typename MemberTraits<decltype(Member)>::Value;
    if constexpr (std::is_same_v<Value, bool>)
    {
        c.*Member = v != 0;
    }
    else
    {
        c.*Member = static_cast<Value>(v);
    }
}

} // namespace detail

/**
 * The table entry of member `Member` (a pointer to a member of the config struct); `max` is
 * lowered to what the member's type can hold.
 */
template<auto Member>
ConfigField<typename detail::MemberTraits<decltype(Member)>::Class>
MakeField(const char* member,
          const char* attribute,
          FieldUnit unit,
          double min,
          double max,
          const char* section,
          const char* help)
{
    using Value = typename detail::MemberTraits<decltype(Member)>::Value;
    static_assert(std::is_arithmetic_v<Value>, "configuration fields are numbers or flags");
    const double typeMax =
        std::is_same_v<Value, bool> ? 1.0 : static_cast<double>(std::numeric_limits<Value>::max());
    return {member,
            attribute,
            unit,
            min,
            max < typeMax ? max : typeMax,
            std::is_integral_v<Value>,
            section,
            help,
            &detail::GetField<Member>,
            &detail::SetField<Member>};
}

/// One table row: METAROCE_FIELD(MetaRoceConfig, rtoMinNs, "RtoMin", Nanoseconds, 1, 1e12, ...).
#define METAROCE_FIELD(Config, member, attribute, unit, min, max, section, help)                   \
    ::metaroce::MakeField<&Config::member>(#member,                                                \
                                           attribute,                                              \
                                           ::metaroce::FieldUnit::unit,                            \
                                           min,                                                    \
                                           max,                                                    \
                                           section,                                                \
                                           help)

/// Throws std::invalid_argument "<owner>.<member>: <why> (got <value>)" for the first field
/// of `config` that is out of its range.
template<typename Config>
void ValidateFields(const Config& config, const ConfigFields<Config>& fields, const char* owner);

/// The field named `member` in `fields`, or nullptr.
template<typename Config>
const ConfigField<Config>*
FindField(const ConfigFields<Config>& fields, const std::string& member)
{
    for (const ConfigField<Config>& f : fields)
    {
        if (member == f.member)
        {
            return &f;
        }
    }
    return nullptr;
}

/// Shortest text of a value in its unit ("60000", "0.5", "true").
std::string FormatFieldValue(FieldUnit unit, double value);

/// True when `value` is in [min, max] (NaN is not) and, if `integer`, whole.
inline bool
FieldValueOk(double value, double min, double max, bool integer)
{
    return value >= min && value <= max && (!integer || std::floor(value) == value);
}

/// Why `value` is not in [min, max] or not integral, or empty.
std::string CheckFieldValue(double value, double min, double max, bool integer);

/// Throws std::invalid_argument "<owner>.<member>: <why> (got <text>)".
[[noreturn]] void ThrowFieldError(const char* owner,
                                  const char* member,
                                  const std::string& why,
                                  const std::string& got);

template<typename Config>
std::string
ConfigField<Config>::Check(double value) const
{
    return CheckFieldValue(value, min, max, integer);
}

template<typename Config>
void
ValidateFields(const Config& config, const ConfigFields<Config>& fields, const char* owner)
{
    for (const ConfigField<Config>& f : fields)
    {
        const double value = f.get(config);
        if (FieldValueOk(value, f.min, f.max, f.integer))
        {
            continue; // every field of every connection made: no message to build
        }
        const std::string why = f.Check(value);
        if (!why.empty())
        {
            ThrowFieldError(owner, f.member, why, FormatFieldValue(f.unit, value));
        }
    }
}

} // namespace metaroce

#endif // METAROCE_ENGINE_CONFIG_FIELD_H
