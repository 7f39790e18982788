#include "metaroce-swift.h"

#include "ns3/log.h"
#include "ns3/metaroce-config-attributes.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSwift");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSwift);

TypeId
MetaRoceSwift::GetTypeId()
{
    static TypeId tid = AddConfigAttributes(TypeId("ns3::MetaRoceSwift")
                                                .SetParent<MetaRoceCongestionOps>()
                                                .SetGroupName("MetaRoce")
                                                .AddConstructor<MetaRoceSwift>(),
                                            &MetaRoceSwift::m_config,
                                            metaroce::SwiftConfigFields());
    return tid;
}

MetaRoceSwift::MetaRoceSwift()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSwift::~MetaRoceSwift() = default;

std::unique_ptr<metaroce::CongestionControl>
MetaRoceSwift::Create() const
{
    return std::make_unique<metaroce::SwiftCongestionControl>(m_config);
}

const metaroce::SwiftConfig&
MetaRoceSwift::GetConfig() const
{
    return m_config;
}

} // namespace ns3
