#include "metaroce-flow-selection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFlowSelection");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceFlowSelection);

TypeId
MetaRoceFlowSelection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceFlowSelection").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

MetaRoceFlowSelection::MetaRoceFlowSelection()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceFlowSelection::~MetaRoceFlowSelection() = default;

std::string
MetaRoceFlowSelection::GetName() const
{
    return Create()->Name();
}

} // namespace ns3
