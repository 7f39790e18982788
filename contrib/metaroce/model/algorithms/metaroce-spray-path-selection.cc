#include "metaroce-spray-path-selection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSprayPathSelection");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSprayPathSelection);

TypeId
MetaRoceSprayPathSelection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceSprayPathSelection")
                            .SetParent<MetaRocePathSelection>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceSprayPathSelection>();
    return tid;
}

MetaRoceSprayPathSelection::MetaRoceSprayPathSelection()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSprayPathSelection::~MetaRoceSprayPathSelection() = default;

std::unique_ptr<metaroce::PathSelector>
MetaRoceSprayPathSelection::Create() const
{
    return std::make_unique<metaroce::SprayPathSelector>();
}

} // namespace ns3
