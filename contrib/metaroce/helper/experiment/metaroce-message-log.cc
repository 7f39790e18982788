#include "metaroce-message-log.h"

#include "metaroce-options.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

MetaRoceMessageLog::MetaRoceMessageLog(const MetaRoceExperimentConfig& config,
                                       double hostBps,
                                       uint32_t mtuBytes)
    : m_hostsPerLeaf(config.hostsPerLeaf)
    , m_leavesPerPod(config.topology == "fat-tree" ? config.leavesPerPod : 0)
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

std::vector<MetaRoceFlowRecord>
MetaRoceMessageLog::TakeSorted()
{
    std::vector<MetaRoceFlowRecord> records = std::move(m_records);
    m_records.clear();
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
        return std::tie(a.startUs, a.src, a.dst, a.endUs) <
               std::tie(b.startUs, b.src, b.dst, b.endUs);
    });
    return records;
}

} // namespace ns3
