#include "metaroce-spray-path-selection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSprayPathSelection");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSprayPathSelection);
NS_OBJECT_ENSURE_REGISTERED(MetaRoceRecyclePathSelection);

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

TypeId
MetaRoceRecyclePathSelection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceRecyclePathSelection")
                            .SetParent<MetaRocePathSelection>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceRecyclePathSelection>();
    return tid;
}

MetaRoceRecyclePathSelection::MetaRoceRecyclePathSelection()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceRecyclePathSelection::~MetaRoceRecyclePathSelection() = default;

std::unique_ptr<metaroce::PathSelector>
MetaRoceRecyclePathSelection::Create() const
{
    return std::make_unique<metaroce::RecyclingPathSelector>();
}

} // namespace ns3
