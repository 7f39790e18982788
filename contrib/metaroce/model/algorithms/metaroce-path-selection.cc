#include "metaroce-path-selection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRocePathSelection");
NS_OBJECT_ENSURE_REGISTERED(MetaRocePathSelection);

TypeId
MetaRocePathSelection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRocePathSelection").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

MetaRocePathSelection::MetaRocePathSelection()
{
    NS_LOG_FUNCTION(this);
}

MetaRocePathSelection::~MetaRocePathSelection() = default;

std::string
MetaRocePathSelection::GetName() const
{
    return Create()->Name();
}

} // namespace ns3
