#include "metaroce-buffer-admission.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceBufferAdmission");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceBufferAdmission);

TypeId
MetaRoceBufferAdmission::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceBufferAdmission").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

MetaRoceBufferAdmission::MetaRoceBufferAdmission()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceBufferAdmission::~MetaRoceBufferAdmission() = default;

std::string
MetaRoceBufferAdmission::GetConfigProblem() const
{
    return "";
}

void
MetaRoceBufferAdmission::CheckConfig() const
{
    const std::string problem = GetConfigProblem();
    NS_ABORT_MSG_IF(!problem.empty(), problem);
}

} // namespace ns3
