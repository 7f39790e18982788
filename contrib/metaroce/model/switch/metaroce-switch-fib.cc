#include "metaroce-switch-fib.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSwitchFib");

namespace
{

/// MurmurHash3's 64-bit finaliser: every input bit affects every output bit.
inline uint64_t
Fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

constexpr uint8_t kUdp = 17;
constexpr uint8_t kTcp = 6;
constexpr uint32_t kUdpHeaderSize = 8;

} // namespace

uint64_t
MetaRoceEcmpHash(const MetaRoceFlowKey& key, uint64_t seed)
{
    // The golden-ratio constant keeps seed 0 from starting the chain at the fixed point 0.
    uint64_t h = Fmix64(seed + 0x9e3779b97f4a7c15ULL);
    h = Fmix64(h ^ ((uint64_t(key.src) << 32) | key.dst));
    h = Fmix64(h ^ ((uint64_t(key.protocol) << 32) | (uint64_t(key.srcPort) << 16) | key.dstPort));
    return h;
}

bool
MetaRoceParseIpv4(Ptr<const Packet> packet, MetaRocePacketInfo& info)
{
    // Largest IPv4 header (60 bytes) plus the UDP/TCP ports.
    uint8_t b[64];
    const uint32_t n = packet->CopyData(b, sizeof(b));
    return MetaRoceParseIpv4(b, n, packet->GetSize(), info);
}

bool
MetaRoceParseIpv4(const uint8_t* b, uint32_t n, uint32_t packetSize, MetaRocePacketInfo& info)
{
    if (n < 20 || (b[0] >> 4) != 4)
    {
        return false;
    }
    const uint32_t ihl = (b[0] & 0x0f) * 4u;
    const uint32_t total = (uint32_t(b[2]) << 8) | b[3];
    if (ihl < 20 || total < ihl || total > packetSize || n < ihl)
    {
        return false;
    }
    info.tos = b[1];
    info.ttl = b[8];
    info.key.protocol = b[9];
    info.key.src =
        (uint32_t(b[12]) << 24) | (uint32_t(b[13]) << 16) | (uint32_t(b[14]) << 8) | b[15];
    info.key.dst =
        (uint32_t(b[16]) << 24) | (uint32_t(b[17]) << 16) | (uint32_t(b[18]) << 8) | b[19];
    info.ipHeaderSize = ihl;
    info.ipTotalLength = total;
    info.key.srcPort = 0;
    info.key.dstPort = 0;
    info.l4Payload = total - ihl;
    const bool ports = info.key.protocol == kUdp || info.key.protocol == kTcp;
    if (ports && total >= ihl + 4 && n >= ihl + 4)
    {
        info.key.srcPort = (b[ihl] << 8) | b[ihl + 1];
        info.key.dstPort = (b[ihl + 2] << 8) | b[ihl + 3];
    }
    if (info.key.protocol == kUdp && info.l4Payload >= kUdpHeaderSize)
    {
        // The IPv4 length, not the UDP length: a trimmed datagram keeps its original UDP
        // length field, and what counts here is what is on the wire.
        info.l4Payload -= kUdpHeaderSize;
    }
    return true;
}

void
MetaRoceFib::AddRoute(Ipv4Address dst, Ipv4Mask mask, uint32_t port)
{
    NS_LOG_FUNCTION(this << dst << mask << port);
    const uint16_t len = mask.GetPrefixLength();
    NS_ABORT_MSG_UNLESS(Ipv4Mask(("/" + std::to_string(len)).c_str()) == mask,
                        "MetaRoceFib::AddRoute: mask " << mask << " is not contiguous");
    const uint32_t prefix = dst.Get() & mask.Get();
    Group& g = m_byLength[len].FindOrAdd(prefix);
    g.members.push_back(port);
    RebuildLive(g);
    if (std::find(m_lengths.begin(), m_lengths.end(), len) == m_lengths.end())
    {
        m_lengths.push_back(len);
        std::sort(m_lengths.begin(), m_lengths.end(), std::greater<>());
    }
    ++m_nRoutes;
}

const MetaRoceFib::Group*
MetaRoceFib::PrefixTable::Find(uint32_t prefix) const
{
    auto it = std::lower_bound(prefixes.begin(), prefixes.end(), prefix);
    return it != prefixes.end() && *it == prefix ? &groups[it - prefixes.begin()] : nullptr;
}

MetaRoceFib::Group&
MetaRoceFib::PrefixTable::FindOrAdd(uint32_t prefix)
{
    auto it = std::lower_bound(prefixes.begin(), prefixes.end(), prefix);
    const std::size_t i = it - prefixes.begin();
    if (it == prefixes.end() || *it != prefix)
    {
        prefixes.insert(it, prefix);
        groups.insert(groups.begin() + i, Group{});
    }
    return groups[i];
}

void
MetaRoceFib::RebuildLive(Group& g) const
{
    g.live.clear();
    for (uint32_t p : g.members)
    {
        if (IsPortUp(p))
        {
            g.live.push_back(p);
        }
    }
}

void
MetaRoceFib::SetPortUp(uint32_t port, bool up)
{
    NS_LOG_FUNCTION(this << port << up);
    if (port >= m_portDown.size())
    {
        m_portDown.resize(port + 1, false);
    }
    if (m_portDown[port] == !up)
    {
        return;
    }
    m_portDown[port] = !up;
    for (auto& table : m_byLength)
    {
        for (Group& g : table.groups)
        {
            if (std::find(g.members.begin(), g.members.end(), port) != g.members.end())
            {
                RebuildLive(g);
            }
        }
    }
}

bool
MetaRoceFib::IsPortUp(uint32_t port) const
{
    return port >= m_portDown.size() || !m_portDown[port];
}

const MetaRoceFib::Group*
MetaRoceFib::FindLive(uint32_t dst, Status& status) const
{
    status = Status::NO_ROUTE;
    for (uint8_t len : m_lengths)
    {
        const uint32_t mask = len == 0 ? 0 : ~uint32_t(0) << (32 - len);
        const Group* g = m_byLength[len].Find(dst & mask);
        if (g == nullptr)
        {
            continue;
        }
        if (g->live.empty())
        {
            status = Status::ALL_DOWN; // withdrawn: try a shorter prefix
            continue;
        }
        status = Status::OK;
        return g;
    }
    return nullptr;
}

MetaRoceFib::Result
MetaRoceFib::Lookup(const MetaRoceFlowKey& key, uint64_t seed, bool byDestination) const
{
    Result r;
    const Group* g = FindLive(key.dst, r.status);
    if (g != nullptr)
    {
        const uint64_t pick = byDestination ? key.dst : MetaRoceEcmpHash(key, seed);
        r.port = g->live.size() == 1 ? g->live[0] : g->live[pick % g->live.size()];
    }
    return r;
}

std::vector<uint32_t>
MetaRoceFib::GetNextHops(Ipv4Address dst) const
{
    Status status;
    const Group* g = FindLive(dst.Get(), status);
    return g != nullptr ? std::vector<uint32_t>(g->live.begin(), g->live.end())
                        : std::vector<uint32_t>();
}

uint32_t
MetaRoceFib::GetNRoutes() const
{
    return m_nRoutes;
}

} // namespace ns3
