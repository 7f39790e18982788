#include "metaroce-congestion-ops.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceCongestionOps);

TypeId
MetaRoceCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceCongestionOps").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

MetaRoceCongestionOps::MetaRoceCongestionOps()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceCongestionOps::~MetaRoceCongestionOps() = default;

std::string
MetaRoceCongestionOps::GetName() const
{
    return Create()->Name();
}

} // namespace ns3
