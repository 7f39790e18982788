#include "perf-identity.h"

#include "metaroce-config.h"
#include "perf-session.h"
#include "udp-plane.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <sys/random.h>

namespace metaroce::perf
{

namespace
{

/// RoCEv2: QP numbers are 24-bit, 0 and 1 are the special QPs, 0xFFFFFF is multicast.
constexpr uint32_t kMinQpn = 2;
constexpr uint32_t kMaxQpn = 0xFFFFFE;
constexpr uint32_t kMaxRoceV2Psn = 0xFFFFFF;
/// RoCEv2: the QP's fixed UDP source port is drawn from the dynamic range.
constexpr uint16_t kDynamicPortBase = 49152;
constexpr uint32_t kDynamicPortCount = 16384;

uint64_t
RandomU64()
{
    uint64_t v = 0;
    RandomBytes(&v, sizeof(v));
    return v;
}

/// A random integer in [lo, hi].
uint64_t
RandomIn(uint64_t lo, uint64_t hi)
{
    return lo + RandomU64() % (hi - lo + 1);
}

std::vector<std::string>
SplitComma(const std::string& v)
{
    std::vector<std::string> out;
    std::stringstream in(v);
    for (std::string item; std::getline(in, item, ',');)
    {
        out.push_back(item);
    }
    if (!v.empty() && v.back() == ',')
    {
        out.emplace_back();
    }
    return out;
}

/// One unicast IPv4 address per plane, or ControlError.
std::vector<std::string>
TakeAddresses(const std::string& text, uint16_t planes)
{
    const std::vector<std::string> addrs = SplitComma(text);
    if (addrs.size() != planes)
    {
        throw ControlError("udp-addrs: " + std::to_string(addrs.size()) + " addresses for " +
                           std::to_string(planes) + " planes");
    }
    for (const std::string& a : addrs)
    {
        sockaddr_in parsed{};
        try
        {
            parsed = udp::ParseIpv4(a, 0, "udp-addrs");
        }
        catch (const std::invalid_argument& e)
        {
            throw ControlError(e.what());
        }
        const uint32_t host = ntohl(parsed.sin_addr.s_addr);
        if (host == 0 || host == 0xFFFFFFFF || (host >> 28) == 0xE)
        {
            throw ControlError("udp-addrs='" + a + "': not a unicast address");
        }
    }
    return addrs;
}

} // namespace

void
RandomBytes(void* out, std::size_t count)
{
    auto* bytes = static_cast<uint8_t*>(out);
    while (count > 0)
    {
        const ssize_t n = getrandom(bytes, count, 0);
        if (n < 0 && errno != EINTR)
        {
            throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
        }
        if (n > 0)
        {
            bytes += n;
            count -= static_cast<std::size_t>(n);
        }
    }
}

Identity
DrawIdentity(const PerfOptions& o, std::vector<std::string> udpAddrs)
{
    Identity id;
    id.udpAddrs = std::move(udpAddrs);
    id.udpPort = TransportUdpPort(o);
    id.rkey = static_cast<uint32_t>(RandomIn(1, UINT32_MAX));
    const bool bound = o.entropy == udp::EntropyMode::Bind;
    if (o.transport == Transport::RoceV2)
    {
        id.connection = static_cast<uint32_t>(RandomIn(kMinQpn, kMaxQpn));
        id.initialPsn = static_cast<uint32_t>(RandomIn(0, kMaxRoceV2Psn));
        id.srcPortBase =
            static_cast<uint16_t>(RandomIn(0, kDynamicPortCount - 1) + kDynamicPortBase);
        id.srcPortCount = bound ? 1 : 0;
        return id;
    }
    const MetaRoceConfig defaults;
    id.connection = static_cast<uint32_t>(RandomIn(1, UINT32_MAX));
    id.initialPsn = static_cast<uint32_t>(RandomIn(0, UINT32_MAX));
    id.srcPortBase = defaults.entropyBase;
    id.srcPortCount = bound ? defaults.entropyCount : 0;
    return id;
}

std::vector<std::string>
IdentityKeys(bool target)
{
    std::vector<std::string> keys{"udp-addrs",
                                  "udp-port",
                                  "src-port-base",
                                  "src-port-count",
                                  "connection",
                                  "psn"};
    if (target)
    {
        keys.insert(keys.end(), {"rkey", "buffer-addr", "buffer-length"});
    }
    return keys;
}

void
PutIdentity(Message& m, const Identity& id, bool target)
{
    m.Set("udp-addrs", JoinComma(id.udpAddrs)).Set("udp-port", id.udpPort);
    m.Set("src-port-base", id.srcPortBase).Set("src-port-count", id.srcPortCount);
    m.Set("connection", id.connection).Set("psn", id.initialPsn);
    if (target)
    {
        m.Set("rkey", id.rkey).Set("buffer-addr", id.bufferAddr);
        m.Set("buffer-length", id.bufferLength);
    }
}

Identity
TakeIdentity(const Message& m, const PerfOptions& o, bool target)
{
    const bool roce = o.transport == Transport::RoceV2;
    Identity id;
    id.udpAddrs = TakeAddresses(m.Get("udp-addrs"), o.planes);
    id.udpPort = static_cast<uint16_t>(m.GetU64("udp-port", 1, 65535));
    id.srcPortBase = static_cast<uint16_t>(m.GetU64("src-port-base", 1, 65535));
    id.srcPortCount = static_cast<uint32_t>(m.GetU64("src-port-count", 0, 65536 - id.srcPortBase));
    id.connection = static_cast<uint32_t>(roce ? m.GetU64("connection", kMinQpn, kMaxQpn)
                                               : m.GetU64("connection", 1, UINT32_MAX));
    id.initialPsn = static_cast<uint32_t>(m.GetU64("psn", 0, roce ? kMaxRoceV2Psn : UINT32_MAX));
    if (target)
    {
        id.rkey = static_cast<uint32_t>(m.GetU64("rkey", 1, UINT32_MAX));
        id.bufferAddr = m.GetU64("buffer-addr", 0, UINT64_MAX);
        id.bufferLength = m.GetU64("buffer-length", 1, UINT64_MAX - id.bufferAddr);
    }
    return id;
}

} // namespace metaroce::perf
