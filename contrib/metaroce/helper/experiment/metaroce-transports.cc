#include "metaroce-transports.h"

namespace ns3
{

const std::vector<MetaRoceTransportInfo>&
MetaRoceTransports()
{
    using metaroce::Transport;
    // One row per transport reads better than one field per line.
    // clang-format off
    static const std::vector<MetaRoceTransportInfo> transports = {
        {"metaroce", Transport::MetaRoce, false, nullptr, 1,
         "MetaRoCE: one connection per host pair, sprayed over every plane"},
        {"rocev2", Transport::RoceV2, false, "ns3::MetaRoceDcqcn", 1,
         "RoCEv2 with NIC-style DCQCN (NVIDIA defaults), no PFC"},
        {"rocev2-paper", Transport::RoceV2, false, "ns3::MetaRoceDcqcn[Variant=paper]", 1,
         "RoCEv2 with the DCQCN paper's algorithm and parameters, no PFC"},
        {"rocev2-nocc", Transport::RoceV2, false, "ns3::MetaRoceDcqcn[Enabled=false]", 1,
         "RoCEv2 without congestion control or PFC"},
        {"rocev2-pfc", Transport::RoceV2, true, "ns3::MetaRoceDcqcn", 1,
         "RoCEv2 with NIC-style DCQCN and PFC"},
        {"rocev2-meta400", Transport::RoceV2, true, "ns3::MetaRoceDcqcn[Enabled=false]",
         kMeta400QpsPerConnection,
         "RoCEv2 as Meta ran it at 400G: PFC, no DCQCN, 4 queue pairs per connection"},
    };
    // clang-format on
    return transports;
}

const MetaRoceTransportInfo*
FindMetaRoceTransport(const std::string& name)
{
    for (const MetaRoceTransportInfo& t : MetaRoceTransports())
    {
        if (name == t.name)
        {
            return &t;
        }
    }
    return nullptr;
}

std::string
MetaRoceTransportNames()
{
    const auto& all = MetaRoceTransports();
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i)
    {
        out += (i == 0 ? "" : (i + 1 == all.size() ? " or " : ", "));
        out += all[i].name;
    }
    return out;
}

uint32_t
MetaRoceChannels(const std::string& transport, uint32_t channels, uint32_t planes)
{
    if (channels != 0)
    {
        return channels;
    }
    const MetaRoceTransportInfo* t = FindMetaRoceTransport(transport);
    return planes * (t == nullptr ? 1 : t->channelsPerPlane);
}

} // namespace ns3
