/*
 * Making an algorithm object from the ObjectFactory an attribute holds ("CongestionControl",
 * "EcnMarker", ...). ns-3's own ObjectFactory accepts a type name it does not know (its lookup
 * only asserts, and release builds crash on Create), so every algorithm attribute goes through
 * CreateAlgorithm, which refuses an unknown type or one of the wrong family with a message that
 * names the attribute, the type and what is allowed.
 */
#ifndef METAROCE_ALGORITHM_FACTORY_H
#define METAROCE_ALGORITHM_FACTORY_H

#include "ns3/object-factory.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * Why `factory` cannot make a `base` (an unknown type, or not derived from `base`), or empty.
 * `attribute` names the attribute in the message ("MetaRoceNic::CongestionControl").
 */
std::string AlgorithmFactoryProblem(const ObjectFactory& factory,
                                    TypeId base,
                                    const std::string& attribute);

/**
 * The checker of an algorithm attribute: an ObjectFactory value is valid only when it can make
 * a `base` (AlgorithmFactoryProblem() is empty), so that a wrong type is refused where the value
 * is set (SetAttribute, Config, the examples' --nicAttributes) instead of when the owner first
 * makes the object.
 */
Ptr<const AttributeChecker> MakeAlgorithmFactoryChecker(TypeId base);

/**
 * A factory of T, for an algorithm attribute's default value. Not ObjectFactory("ns3::T"): a
 * GetTypeId() runs during static initialisation (NS_OBJECT_ENSURE_REGISTERED), when T may not
 * be registered yet - the order of translation units is the linker's, and link-time
 * optimisation changes it - and a release ns-3 then keeps an invalid type without a word.
 * T::GetTypeId() registers T first.
 */
template<typename T>
ObjectFactory
DefaultAlgorithmFactory()
{
    ObjectFactory factory;
    factory.SetTypeId(T::GetTypeId());
    return factory;
}

/// Attribute settings, "Name", "Value" pairs in the order given (an attribute string's).
using MetaRoceAttributeSettings = std::vector<std::pair<std::string, std::string>>;

/**
 * The value attribute `name` of `tid` would have after `settings` (the last one valid for it),
 * else its initial value (as Config::SetDefault left it); null when `tid` has no such
 * attribute. How a static check (MetaRoceNic::GetConfigProblem,
 * MetaRoceSwitch::GetConfigProblem) reads an object's attributes without building it.
 */
Ptr<const AttributeValue> GetSettledAttribute(TypeId tid,
                                              const std::string& name,
                                              const MetaRoceAttributeSettings& settings);

/**
 * The object `factory` makes, as a T; a fatal error naming `attribute` when the factory holds
 * an unknown type or one that is not a T.
 */
template<typename T>
Ptr<T>
CreateAlgorithm(const ObjectFactory& factory, const std::string& attribute)
{
    const std::string problem = AlgorithmFactoryProblem(factory, T::GetTypeId(), attribute);
    NS_ABORT_MSG_IF(!problem.empty(), problem);
    return factory.Create<T>();
}

/**
 * \ingroup metaroce
 * \brief What an owner keeps for one algorithm attribute: the factory the attribute holds and
 * the one object made from it on first use (or given directly), as TcpSocketBase keeps its
 * congestion control.
 */
template<typename T>
class AlgorithmSlot
{
  public:
    /// `attribute` names the attribute in errors ("MetaRoceNic::CongestionControl").
    explicit AlgorithmSlot(std::string attribute)
        : m_attribute(std::move(attribute))
    {
    }

    /// A new factory: the next Get() makes a new object from it.
    void SetFactory(const ObjectFactory& factory)
    {
        m_factory = factory;
        m_object = nullptr;
    }

    ObjectFactory GetFactory() const
    {
        return m_factory;
    }

    /// The object, made from the factory on first use.
    Ptr<T> Get()
    {
        if (m_object == nullptr)
        {
            m_object = CreateAlgorithm<T>(m_factory, m_attribute);
        }
        return m_object;
    }

    /// Uses `object` instead of one made from the factory.
    void Set(Ptr<T> object)
    {
        NS_ABORT_MSG_IF(object == nullptr, m_attribute << ": null object");
        m_object = object;
    }

    /// Drops the object (DoDispose).
    void Clear()
    {
        m_object = nullptr;
    }

  private:
    std::string m_attribute;
    ObjectFactory m_factory;
    Ptr<T> m_object;
};

/**
 * A new object of the algorithm attribute `name` of `tid` after `settings`
 * (GetSettledAttribute), as a T; null when the attribute is missing or cannot make a T.
 */
template<typename T>
Ptr<T>
CreateSettledAlgorithm(TypeId tid,
                       const std::string& name,
                       const MetaRoceAttributeSettings& settings)
{
    const auto factory =
        DynamicCast<const ObjectFactoryValue>(GetSettledAttribute(tid, name, settings));
    if (factory == nullptr ||
        !AlgorithmFactoryProblem(factory->Get(), T::GetTypeId(), name).empty())
    {
        return nullptr;
    }
    return factory->Get().template Create<T>();
}

} // namespace ns3

#endif // METAROCE_ALGORITHM_FACTORY_H
