#include "metaroce-algorithm-factory.h"

#include "ns3/string.h"

namespace ns3
{

std::string
AlgorithmFactoryProblem(const ObjectFactory& factory, TypeId base, const std::string& attribute)
{
    const TypeId tid = factory.GetTypeId();
    if (tid.GetUid() == 0)
    {
        return attribute + ": unknown type (expected a " + base.GetName() + ", e.g. " +
               "--PrintGroup=MetaRoce lists them)";
    }
    if (tid != base && !tid.IsChildOf(base))
    {
        return attribute + ": " + tid.GetName() + " is not a " + base.GetName();
    }
    if (!tid.HasConstructor())
    {
        return attribute + ": " + tid.GetName() + " is abstract; choose one of its subclasses";
    }
    return "";
}

Ptr<const AttributeValue>
GetSettledAttribute(TypeId tid, const std::string& name, const MetaRoceAttributeSettings& settings)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return nullptr;
    }
    Ptr<const AttributeValue> value = info.initialValue;
    for (const auto& [setting, text] : settings)
    {
        if (setting == name)
        {
            if (const Ptr<AttributeValue> parsed =
                    info.checker->CreateValidValue(StringValue(text)))
            {
                value = parsed;
            }
        }
    }
    return value;
}

namespace
{

/// ns-3's ObjectFactory checker, which also asks AlgorithmFactoryProblem(); everything but
/// Check() is the stock checker's.
class AlgorithmFactoryChecker : public ObjectFactoryChecker
{
  public:
    explicit AlgorithmFactoryChecker(TypeId base)
        : m_base(base)
        , m_stock(MakeObjectFactoryChecker())
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* factory = dynamic_cast<const ObjectFactoryValue*>(&value);
        return factory != nullptr && AlgorithmFactoryProblem(factory->Get(), m_base, "").empty();
    }

    std::string GetValueTypeName() const override
    {
        return m_stock->GetValueTypeName();
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_base.GetName();
    }

    Ptr<AttributeValue> Create() const override
    {
        return m_stock->Create();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_stock->Copy(source, destination);
    }

  private:
    TypeId m_base;
    Ptr<const AttributeChecker> m_stock;
};

} // namespace

Ptr<const AttributeChecker>
MakeAlgorithmFactoryChecker(TypeId base)
{
    return Ptr<const AttributeChecker>(new AlgorithmFactoryChecker(base), false);
}

} // namespace ns3
