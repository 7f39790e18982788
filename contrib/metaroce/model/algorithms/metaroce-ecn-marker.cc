#include "metaroce-ecn-marker.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceEcnMarker");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceEcnMarker);

TypeId
MetaRoceEcnMarker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceEcnMarker").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

MetaRoceEcnMarker::MetaRoceEcnMarker()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceEcnMarker::~MetaRoceEcnMarker() = default;

std::string
MetaRoceEcnMarker::GetConfigProblem() const
{
    return "";
}

void
MetaRoceEcnMarker::CheckConfig() const
{
    const std::string problem = GetConfigProblem();
    NS_ABORT_MSG_IF(!problem.empty(), problem);
}

void
MetaRoceEcnMarker::SetRandomVariable(Ptr<UniformRandomVariable> rng)
{
    m_rng = rng;
}

Ptr<UniformRandomVariable>
MetaRoceEcnMarker::GetRandomVariable() const
{
    NS_ABORT_MSG_IF(m_rng == nullptr, GetInstanceTypeId().GetName() << ": no random variable");
    return m_rng;
}

void
MetaRoceEcnMarker::DoDispose()
{
    m_rng = nullptr;
    Object::DoDispose();
}

} // namespace ns3
