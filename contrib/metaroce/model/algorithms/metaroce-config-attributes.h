/*
 * ns-3 attributes made from the engine's configuration tables (engine/common/config-field.h).
 *
 * AddConfigAttributes() gives an ns-3 object one attribute per table row, reading and writing
 * the row's field of a configuration struct the object holds: the attribute's type follows the
 * unit (counts and bytes Uinteger, durations Time, rates DataRate, reals Double, flags Boolean),
 * its checker the row's range, its help text the row's meaning, unit and spec section, and its
 * initial value the struct's default. So the NIC's MetaRoCE and RoCEv2 attributes, and the
 * algorithm objects' parameters, are the tables themselves: Config::SetDefault, SetAttribute,
 * "Name=Value;..." strings and --PrintAttributes all reach every engine tunable.
 */
#ifndef METAROCE_CONFIG_ATTRIBUTES_H
#define METAROCE_CONFIG_ATTRIBUTES_H

#include "ns3/attribute.h"
#include "ns3/config-field.h"
#include "ns3/object-base.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/// The ns-3 value of `value` in `unit` (UintegerValue, TimeValue, DataRateValue, ...).
Ptr<AttributeValue> MakeConfigFieldValue(metaroce::FieldUnit unit, double value);

/// Writes `value` into `out`, which must be of the type MakeConfigFieldValue makes for `unit`;
/// false when it is of another type.
bool WriteConfigFieldValue(metaroce::FieldUnit unit, double value, AttributeValue& out);

/// Reads `value` (of the type MakeConfigFieldValue makes for `unit`) as a double; false when
/// it is of another type.
bool ReadConfigFieldValue(metaroce::FieldUnit unit, const AttributeValue& value, double& out);

/// The checker of a field in `unit` with range [min, max].
Ptr<const AttributeChecker> MakeConfigFieldChecker(metaroce::FieldUnit unit,
                                                   double min,
                                                   double max);

/// Help text of a field: its meaning, then range, unit and spec section.
std::string ConfigFieldHelp(metaroce::FieldUnit unit,
                            double min,
                            double max,
                            const char* section,
                            const char* help);

/**
 * \ingroup metaroce
 * \brief Accessor of one configuration field inside an object of type Owner.
 */
template<typename Owner, typename Config>
class ConfigFieldAccessor : public AttributeAccessor
{
  public:
    ConfigFieldAccessor(Config Owner::*config, const metaroce::ConfigField<Config>& field)
        : m_config(config)
        , m_field(field)
    {
    }

    bool Set(ObjectBase* object, const AttributeValue& value) const override
    {
        auto* owner = dynamic_cast<Owner*>(object);
        double v = 0;
        if (owner == nullptr || !ReadConfigFieldValue(m_field.unit, value, v) ||
            !m_field.Check(v).empty())
        {
            return false;
        }
        m_field.set(owner->*m_config, v);
        return true;
    }

    bool Get(const ObjectBase* object, AttributeValue& value) const override
    {
        const auto* owner = dynamic_cast<const Owner*>(object);
        if (owner == nullptr)
        {
            return false;
        }
        return WriteConfigFieldValue(m_field.unit, m_field.get(owner->*m_config), value);
    }

    bool HasGetter() const override
    {
        return true;
    }

    bool HasSetter() const override
    {
        return true;
    }

  private:
    Config Owner::*m_config;
    metaroce::ConfigField<Config> m_field;
};

/**
 * Adds to `tid` one attribute per row of `fields`, named `prefix` + the row's attribute name,
 * for the configuration struct `config` of Owner. Returns `tid`, so GetTypeId can chain it.
 */
template<typename Owner, typename Config>
TypeId
AddConfigAttributes(TypeId tid,
                    Config Owner::*config,
                    const metaroce::ConfigFields<Config>& fields,
                    const std::string& prefix = "")
{
    const Config defaults{};
    for (const metaroce::ConfigField<Config>& f : fields)
    {
        tid.AddAttribute(prefix + f.attribute,
                         ConfigFieldHelp(f.unit, f.min, f.max, f.section, f.help),
                         *MakeConfigFieldValue(f.unit, f.get(defaults)),
                         Create<ConfigFieldAccessor<Owner, Config>>(config, f),
                         MakeConfigFieldChecker(f.unit, f.min, f.max));
    }
    return tid;
}

/**
 * Sets on `object` every attribute AddConfigAttributes(..., fields, prefix) made, to the values
 * of `config`: how a driver that holds an engine configuration (the compliance suite) hands all
 * of it to a NIC.
 */
template<typename Config>
void
SetConfigAttributes(ObjectBase& object,
                    const Config& config,
                    const metaroce::ConfigFields<Config>& fields,
                    const std::string& prefix = "")
{
    for (const metaroce::ConfigField<Config>& f : fields)
    {
        object.SetAttribute(prefix + f.attribute, *MakeConfigFieldValue(f.unit, f.get(config)));
    }
}

} // namespace ns3

#endif // METAROCE_CONFIG_ATTRIBUTES_H
