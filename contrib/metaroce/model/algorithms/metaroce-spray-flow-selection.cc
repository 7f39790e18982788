#include "metaroce-spray-flow-selection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSprayFlowSelection");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSprayFlowSelection);

TypeId
MetaRoceSprayFlowSelection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceSprayFlowSelection")
                            .SetParent<MetaRoceFlowSelection>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceSprayFlowSelection>();
    return tid;
}

MetaRoceSprayFlowSelection::MetaRoceSprayFlowSelection()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSprayFlowSelection::~MetaRoceSprayFlowSelection() = default;

std::unique_ptr<metaroce::FlowSelector>
MetaRoceSprayFlowSelection::Create() const
{
    return std::make_unique<metaroce::SprayFlowSelector>();
}

} // namespace ns3
