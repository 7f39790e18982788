#include "metaroce-dcqcn.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/metaroce-config-attributes.h"
#include "ns3/metaroce-ns3-compat.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceDcqcn");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceDcqcn);

TypeId
MetaRoceDcqcn::GetTypeId()
{
    using metaroce::DcqcnVariant;
    static TypeId tid = AddConfigAttributes(
        TypeId("ns3::MetaRoceDcqcn")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceDcqcn>()
            .AddAttribute(
                "Variant",
                "Which reaction point (spec 10.5): nic, as NIC firmware and HPCC's "
                "simulator (a CNP is acted on at the next rate decrease check, the "
                "first one decrease interval after the first CNP; alpha on its own "
                "timer), or paper, the DCQCN paper (a cut on every CNP). Parameters "
                "left at 0 take the variant's defaults.",
                EnumValue(static_cast<int>(DcqcnVariant::Nic)),
                MetaRoceMakeIntEnumAccessor(&MetaRoceDcqcn::SetVariant, &MetaRoceDcqcn::GetVariant),
                MakeEnumChecker(static_cast<int>(DcqcnVariant::Nic),
                                "nic",
                                static_cast<int>(DcqcnVariant::Paper),
                                "paper")),
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

void
MetaRoceDcqcn::SetVariant(int variant)
{
    m_config.variant = static_cast<metaroce::DcqcnVariant>(variant);
}

int
MetaRoceDcqcn::GetVariant() const
{
    return static_cast<int>(m_config.variant);
}

} // namespace ns3
