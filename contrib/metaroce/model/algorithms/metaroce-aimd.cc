#include "metaroce-aimd.h"

#include "ns3/log.h"
#include "ns3/metaroce-config-attributes.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceAimd");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceAimd);

TypeId
MetaRoceAimd::GetTypeId()
{
    static TypeId tid = AddConfigAttributes(TypeId("ns3::MetaRoceAimd")
                                                .SetParent<MetaRoceCongestionOps>()
                                                .SetGroupName("MetaRoce")
                                                .AddConstructor<MetaRoceAimd>(),
                                            &MetaRoceAimd::m_config,
                                            metaroce::AimdConfigFields());
    return tid;
}

MetaRoceAimd::MetaRoceAimd()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceAimd::~MetaRoceAimd() = default;

std::unique_ptr<metaroce::CongestionControl>
MetaRoceAimd::Create() const
{
    return std::make_unique<metaroce::AimdCongestionControl>(m_config);
}

const metaroce::AimdConfig&
MetaRoceAimd::GetConfig() const
{
    return m_config;
}

} // namespace ns3
