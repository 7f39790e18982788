#include "metaroce-forwarded-attribute.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceForwardedAttribute");

MetaRoceForwardedAttribute::MetaRoceForwardedAttribute(Target target,
                                                       std::string formerName,
                                                       std::string name,
                                                       Ptr<const AttributeValue> initial,
                                                       Ptr<const AttributeChecker> checker)
    : m_target(std::move(target))
    , m_formerName(std::move(formerName))
    , m_name(std::move(name))
    , m_initial(initial->SerializeToString(checker))
    , m_checker(checker)
{
}

bool
MetaRoceForwardedAttribute::Set(ObjectBase* object, const AttributeValue& value) const
{
    if (value.SerializeToString(m_checker) == m_initial)
    {
        return true;
    }
    const Ptr<Object> target = m_target(object);
    NS_ABORT_MSG_IF(target == nullptr,
                    m_formerName << ": no object to forward " << m_name << " to");
    NS_LOG_LOGIC(m_formerName << " -> " << target->GetInstanceTypeId().GetName() << "::" << m_name);
    NS_ABORT_MSG_UNLESS(target->SetAttributeFailSafe(m_name, value),
                        m_formerName << " sets attribute " << m_name << " of "
                                     << target->GetInstanceTypeId().GetName()
                                     << ", which has none or refuses "
                                     << value.SerializeToString(m_checker));
    return true;
}

bool
MetaRoceForwardedAttribute::Get(const ObjectBase* object, AttributeValue& value) const
{
    const Ptr<Object> target = m_target(object);
    return target != nullptr && target->GetAttributeFailSafe(m_name, value);
}

bool
MetaRoceForwardedAttribute::HasGetter() const
{
    return true;
}

bool
MetaRoceForwardedAttribute::HasSetter() const
{
    return true;
}

TypeId
AddForwardedAttribute(TypeId tid,
                      const std::string& formerName,
                      const std::string& help,
                      const std::string& name,
                      const AttributeValue& initial,
                      Ptr<const AttributeChecker> checker,
                      MetaRoceForwardedAttribute::Target target)
{
    const Ptr<const AttributeValue> value = initial.Copy();
    const Ptr<const AttributeAccessor> accessor =
        Create<MetaRoceForwardedAttribute>(std::move(target),
                                           tid.GetName() + "::" + formerName,
                                           name,
                                           value,
                                           checker);
    return tid.AddAttribute(formerName, help, *value, accessor, checker);
}

} // namespace ns3
