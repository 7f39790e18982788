#include "metaroce-dcqcn.h"

#include "ns3/log.h"
#include "ns3/metaroce-config-attributes.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceDcqcn");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceDcqcn);

TypeId
MetaRoceDcqcn::GetTypeId()
{
    static TypeId tid = AddConfigAttributes(TypeId("ns3::MetaRoceDcqcn")
                                                .SetParent<Object>()
                                                .SetGroupName("MetaRoce")
                                                .AddConstructor<MetaRoceDcqcn>(),
                                            &MetaRoceDcqcn::m_config,
                                            metaroce::DcqcnConfigFields());
    return tid;
}

MetaRoceDcqcn::MetaRoceDcqcn()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceDcqcn::~MetaRoceDcqcn() = default;

const metaroce::DcqcnConfig&
MetaRoceDcqcn::GetConfig() const
{
    return m_config;
}

} // namespace ns3
