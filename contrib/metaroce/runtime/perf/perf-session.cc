#include "perf-session.h"

#include "metaroce-connection.h"
#include "rocev2-queue-pair.h"

#include <cstring>
#include <new>
#include <sstream>

namespace metaroce::perf
{

namespace
{

uint64_t
SplitMix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// A message's pattern: one SplitMix per message, then a cheap per-word mix, so that
/// generating and checking run near memory speed.
uint64_t
PatternBase(uint64_t seed, uint64_t index)
{
    return SplitMix(seed * 0x100000001b3ULL ^ index);
}

uint64_t
PatternWord(uint64_t base, uint64_t word)
{
    return (base + word * 0x9e3779b97f4a7c15ULL) ^ (word << 17);
}

/// Engine timers a host process can keep (see the header).
void
RuntimeTimers(MetaRoceConfig& c)
{
    c.initialRttNs = 100'000;
    c.rtoMinNs = 2'000'000;
    c.initialRtoNs = 5'000'000;
    c.rtoMaxNs = 50'000'000;
    c.tailProbeMinNs = 500'000;
    c.probeIntervalNs = 1'000'000;
}

std::unique_ptr<TransportEngine>
MakeEngine(const PerfOptions& o,
           bool server,
           const Identity& local,
           const Identity& peer,
           MemoryRegistry& m)
{
    const uint64_t rate = static_cast<uint64_t>(o.rateGbps * 1e9);
    if (o.transport == Transport::RoceV2)
    {
        RoceV2Config c;
        c.localQpn = local.connection;
        c.remoteQpn = peer.connection;
        c.initialPsn = local.initialPsn;
        c.remoteInitialPsn = peer.initialPsn;
        c.mtu = o.mtu;
        c.lineRateBps = rate;
        c.udpSrcPort = local.srcPortBase;
        c.rtoNs = 4'000'000;
        return std::make_unique<RoceV2QueuePair>(c, m);
    }
    MetaRoceConfig c;
    c.localConnection = local.connection;
    c.remoteConnection = peer.connection;
    c.initialFsn = local.initialPsn;
    c.remoteInitialFsn = peer.initialPsn;
    c.seed = o.seed * 2 + server;
    c.ports = o.planes;
    c.portRateBps = rate;
    c.mtu = o.mtu;
    c.mcrc = o.mcrc;
    RuntimeTimers(c);
    return std::make_unique<MetaRoceConnection>(c, &m);
}

udp::UdpDriverConfig
DriverConfig(const PerfOptions& o, bool server, const Identity& local, const Identity& peer)
{
    udp::UdpDriverConfig d;
    for (uint16_t p = 0; p < o.planes; ++p)
    {
        d.planes.push_back({local.udpAddrs[p],
                            local.udpPort,
                            peer.udpAddrs[p],
                            peer.udpPort,
                            peer.srcPortBase,
                            peer.srcPortCount});
    }
    d.rateBps = static_cast<uint64_t>(o.rateGbps * 1e9);
    d.entropy = o.entropy;
    d.busyPollNs = static_cast<TimeNs>(o.busyPollUs * 1000);
    d.faults.lossRate = o.lossPercent / 100;
    d.faults.reorderRate = o.reorderPercent / 100;
    d.faults.duplicateRate = o.duplicatePercent / 100;
    d.faults.corruptRate = o.corruptPercent / 100;
    d.faults.delayNs = static_cast<TimeNs>(o.delayUs * 1000);
    d.faults.reorderDelayNs = static_cast<TimeNs>(o.reorderDelayUs * 1000);
    d.faults.seed = o.seed * 2 + server + 1000;
    d.pcapPath = o.pcap;
    d.pcapSnapLength = o.pcapSnapLength;
    return d;
}

/// ": reason n, ..." for the engine's refusals that happened (empty when none did).
std::string
RefusalsByReason(const Counters& c)
{
    std::string out;
    for (const auto& row : kDropReasons)
    {
        if (const uint64_t n = c.drops[static_cast<std::size_t>(row.reason)]; n > 0)
        {
            out += (out.empty() ? ": " : ", ") + std::string(row.name) + " " + std::to_string(n);
        }
    }
    return out;
}

/// A zeroed buffer of `bytes`, or std::runtime_error saying how much could not be had.
std::unique_ptr<uint8_t[]>
Allocate(uint64_t bytes)
{
    try
    {
        return std::unique_ptr<uint8_t[]>(new uint8_t[bytes]());
    }
    catch (const std::bad_alloc&)
    {
        throw std::runtime_error("cannot allocate a registered buffer of " + std::to_string(bytes) +
                                 " bytes");
    }
}

} // namespace

void
FillPattern(uint8_t* dst, uint64_t length, uint64_t seed, uint64_t index)
{
    const uint64_t base = PatternBase(seed, index);
    const uint64_t words = length / 8;
    for (uint64_t w = 0; w < words; ++w)
    {
        const uint64_t v = PatternWord(base, w);
        std::memcpy(dst + w * 8, &v, 8);
    }
    if (length % 8)
    {
        const uint64_t v = PatternWord(base, words);
        std::memcpy(dst + words * 8, &v, length % 8);
    }
}

int64_t
CheckPattern(const uint8_t* src, uint64_t length, uint64_t seed, uint64_t index)
{
    const uint64_t base = PatternBase(seed, index);
    for (uint64_t w = 0; w * 8 < length; ++w)
    {
        const uint64_t v = PatternWord(base, w);
        const uint64_t n = std::min<uint64_t>(8, length - w * 8);
        if (std::memcmp(src + w * 8, &v, n) != 0)
        {
            for (uint64_t b = 0; b < n; ++b)
            {
                if (src[w * 8 + b] != reinterpret_cast<const uint8_t*>(&v)[b])
                {
                    return static_cast<int64_t>(w * 8 + b);
                }
            }
        }
    }
    return -1;
}

uint16_t
TransportUdpPort(const PerfOptions& o)
{
    if (o.udpPort != 0)
    {
        return o.udpPort;
    }
    return o.transport == Transport::MetaRoce ? 4792 : 4791;
}

Session::Session(const PerfOptions& o,
                 bool server,
                 const Identity& local,
                 const Identity& peer,
                 uint64_t bufferBytes)
    : m_buffer(Allocate(bufferBytes))
    , m_key(local.rkey)
{
    // Packets come from outside: a remote key of 0 (virtual memory in a simulation) names
    // nothing here.
    m_memory.RefuseVirtual();
    m_memory.Register({m_key, BufferAddr(), bufferBytes, m_buffer.get()});
    m_engine = MakeEngine(o, server, local, peer, m_memory);
    m_driver = std::make_unique<udp::UdpDriver>(*m_engine, DriverConfig(o, server, local, peer));
    m_driver->OnCompletion([this](const Completion& c) { m_completions.push_back(c); });
}

std::string
Session::CountersLine() const
{
    const Counters& c = m_engine->GetCounters();
    const udp::UdpDriverStats s = m_driver->Stats();
    std::ostringstream out;
    out << "tx " << c.txPackets << " pkts (" << c.retransmittedPackets << " retransmitted, "
        << c.timeouts << " timeouts, " << c.fastRetransmits << " fast retransmits), rx "
        << c.rxPackets << " pkts (" << c.TotalDrops() << " refused" << RefusalsByReason(c)
        << "), injected: " << s.faults.dropped << " dropped " << s.faults.duplicated
        << " duplicated " << s.faults.reordered << " reordered " << s.faults.corrupted
        << " corrupted; entropy sockets " << s.planes.entropySockets << ", EAGAIN "
        << s.planes.sendWouldBlock << ", loop sleeps " << s.sleeps << "; not from the peer:";
    for (const auto& row : udp::kUdpDropReasons)
    {
        out << " " << row.name << " " << s.rxDropped[static_cast<std::size_t>(row.reason)];
    }
    return out.str();
}

void
Session::FinishCapture()
{
    m_driver->FinishCapture();
}

} // namespace metaroce::perf
