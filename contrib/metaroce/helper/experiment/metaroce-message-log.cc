#include "metaroce-message-log.h"

#include "metaroce-options.h"

#include "ns3/metaroce-mpi.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace ns3
{

MetaRoceMessageLog::MetaRoceMessageLog(const MetaRoceExperimentConfig& config,
                                       double hostBps,
                                       uint32_t mtuBytes)
    : m_hostsPerLeaf(config.hostsPerLeaf)
    , m_leavesPerPod(config.topology == "fat-tree" ? config.leavesPerPod : 0)
    , m_railGpus(config.topology == "rail" ? config.railGpus : 0)
    , m_serverDelayUs(ParseTimeOption("serverDelay", config.serverDelay).GetSeconds() * 1e6)
    , m_serverBps(ParseRateOption("serverRate", config.serverRate).GetBitRate())
    , m_coreDelayUs(ParseTimeOption("coreDelay", config.coreDelay).GetSeconds() * 1e6)
    , m_planes(config.planes)
    , m_hostDelayUs(ParseTimeOption("hostDelay", config.hostDelay).GetSeconds() * 1e6)
    , m_fabricDelayUs(ParseTimeOption("fabricDelay", config.fabricDelay).GetSeconds() * 1e6)
    , m_hostBps(hostBps)
    , m_mtuBytes(mtuBytes)
{
}

void
MetaRoceMessageLog::OnMessage(uint32_t src,
                              uint32_t dst,
                              uint64_t bytes,
                              Time posted,
                              Time completed)
{
    MetaRoceFlowRecord r;
    r.src = src;
    r.dst = dst;
    r.bytes = bytes;
    r.startUs = posted.GetNanoSeconds() / 1e3;
    r.endUs = completed.GetNanoSeconds() / 1e3;
    r.fctUs = (completed - posted).GetNanoSeconds() / 1e3;
    r.idealUs = IdealUs(src, dst, bytes);
    r.slowdown = r.idealUs > 0 ? r.fctUs / r.idealUs : 0;
    m_records.push_back(r);
}

double
MetaRoceMessageLog::IdealUs(uint32_t src, uint32_t dst, uint64_t bytes) const
{
    if (m_railGpus > 0)
    {
        return RailIdealUs(src, dst, bytes);
    }
    const uint32_t leafA = src / m_hostsPerLeaf;
    const uint32_t leafB = dst / m_hostsPerLeaf;
    const bool sameLeaf = leafA == leafB;
    const bool samePod = m_leavesPerPod == 0 || leafA / m_leavesPerPod == leafB / m_leavesPerPod;
    const double propagation = 2 * m_hostDelayUs + (sameLeaf ? 0 : 2 * m_fabricDelayUs) +
                               (samePod ? 0 : 2 * m_coreDelayUs);
    const double switches = sameLeaf ? 1 : (samePod ? 3 : 5);
    const double packetBits = std::min<uint64_t>(bytes, m_mtuBytes) * 8.0;
    return propagation + switches * packetBits / m_hostBps * 1e6 +
           bytes * 8.0 / (m_hostBps * m_planes) * 1e6;
}

double
MetaRoceMessageLog::RailIdealUs(uint32_t src, uint32_t dst, uint64_t bytes) const
{
    // GPU, server switch, [rail leaf, [spine, rail leaf,] server switch,] GPU: the destination's
    // rail from the source's server switch on (metaroce-fabric-builder.h).
    const uint32_t serverA = src / m_railGpus;
    const uint32_t serverB = dst / m_railGpus;
    const bool sameServer = serverA == serverB;
    const bool sameGroup = serverA / m_hostsPerLeaf == serverB / m_hostsPerLeaf;
    const double packetBits = std::min<uint64_t>(bytes, m_mtuBytes) * 8.0;
    if (sameServer)
    {
        return 2 * m_serverDelayUs + packetBits / m_serverBps * 1e6 +
               bytes * 8.0 / (m_serverBps * m_planes) * 1e6;
    }
    const double propagation =
        2 * m_serverDelayUs + 2 * m_hostDelayUs + (sameGroup ? 0 : 2 * m_fabricDelayUs);
    const double nicHops = sameGroup ? 2 : 4; // store and forward at NIC rate
    return propagation + packetBits / m_serverBps * 1e6 + nicHops * packetBits / m_hostBps * 1e6 +
           bytes * 8.0 / (m_hostBps * m_planes) * 1e6;
}

std::vector<MetaRoceFlowRecord>
MetaRoceMessageLog::TakeSorted()
{
    std::vector<MetaRoceFlowRecord> records = Gather(std::move(m_records));
    m_records.clear();
    // The full key, so that the order never depends on the order of completion (nor on the
    // rank that logged a record): records equal in all five are equal in every field.
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
        return std::tie(a.startUs, a.src, a.dst, a.endUs, a.bytes) <
               std::tie(b.startUs, b.src, b.dst, b.endUs, b.bytes);
    });
    return records;
}

namespace
{

/// The fields of a MetaRoceFlowRecord in the order Gather() sends them.
constexpr std::size_t kFieldsPerRecord = 8;

uint64_t
Bits(double value)
{
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

double
FromBits(uint64_t bits)
{
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

} // namespace

std::vector<MetaRoceFlowRecord>
MetaRoceMessageLog::Gather(std::vector<MetaRoceFlowRecord> local)
{
    if (MetaRoceMpi::GetSize() == 1)
    {
        return local;
    }
    std::vector<uint64_t> words;
    words.reserve(local.size() * kFieldsPerRecord);
    for (const auto& r : local)
    {
        words.insert(words.end(),
                     {r.src,
                      r.dst,
                      r.bytes,
                      Bits(r.startUs),
                      Bits(r.endUs),
                      Bits(r.fctUs),
                      Bits(r.idealUs),
                      Bits(r.slowdown)});
    }
    words = MetaRoceMpi::Gather(std::move(words));
    std::vector<MetaRoceFlowRecord> all(words.size() / kFieldsPerRecord);
    for (std::size_t i = 0; i < all.size(); ++i)
    {
        const uint64_t* w = &words[i * kFieldsPerRecord];
        all[i] = {static_cast<uint32_t>(w[0]),
                  static_cast<uint32_t>(w[1]),
                  w[2],
                  FromBits(w[3]),
                  FromBits(w[4]),
                  FromBits(w[5]),
                  FromBits(w[6]),
                  FromBits(w[7])};
    }
    return all;
}

} // namespace ns3
