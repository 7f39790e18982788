/*
 * MetaRoceExperimentResults, part 2 of 2: filling the results from what the run counted - the
 * NICs' engine counters (summed with metaroce::Counters::operator+=, the one list of counters),
 * the switches' drops and the planes' figures. Every drop name comes from its reason table.
 * Part 1 (metaroce-results.cc) summarises and writes them.
 */
#include "metaroce-results.h"

#include "ns3/metaroce-switch.h"

#include <algorithm>
#include <string>

namespace ns3
{

namespace
{

/// Adds `count` drops under "<layer><name>"; only non-zero reasons appear in the results.
void
AddDrops(std::map<std::string, uint64_t>& drops,
         const char* layer,
         const char* name,
         uint64_t count)
{
    if (count > 0)
    {
        drops[std::string(layer) + name] += count;
    }
}

} // namespace

void
MetaRoceExperimentResults::AddHost(uint32_t host, const metaroce::Counters& counters, Time duration)
{
    MetaRoceHostRecord record;
    record.host = host;
    record.txBytes = counters.txBytes;
    record.deliveredBytes = counters.placedBytes;
    record.retransmitted = counters.retransmittedPackets;
    record.timeouts = counters.timeouts;
    record.ecnMarked = counters.rxEcnMarked;
    record.goodputGbps = record.deliveredBytes * 8.0 / duration.GetNanoSeconds();
    hosts.push_back(record);
}

void
MetaRoceExperimentResults::SetEngineTotals(const metaroce::Counters& all, Time duration)
{
    bytesDelivered = all.placedBytes;
    goodputGbps = bytesDelivered * 8.0 / duration.GetNanoSeconds();
    retransmitted = all.retransmittedPackets;
    timeouts = all.timeouts;
    rtoDeferrals = all.rtoDeferrals;
    ackRepeatHits = all.ackRepeatHits;
    tailMarkers = all.tailMarkers;
    ecnMarked = all.rxEcnMarked;
    dataPackets = all.txDataPackets;
    ackPackets = all.txAcks;
    fastRetransmits = all.fastRetransmits;
    tailProbes = all.tailProbes;
    spuriousLosses = all.spuriousLosses;
    for (const auto& reason : metaroce::kDropReasons)
    {
        AddDrops(drops, "nic-", reason.name, all.Drops(reason.reason));
    }
}

uint64_t
MetaRoceExperimentResults::SpuriousRetransmissions() const
{
    const auto it =
        drops.find(std::string("nic-") + metaroce::DropReasonName(metaroce::DropReason::Duplicate));
    return it == drops.end() ? 0 : it->second;
}

uint64_t
MetaRoceExperimentResults::HostWireBytes() const
{
    uint64_t bytes = 0;
    for (const auto& link : links)
    {
        bytes += link.from.rfind("host-", 0) == 0 ? link.txBytes : 0;
    }
    return bytes;
}

void
MetaRoceExperimentResults::AddSwitchDrops(const std::vector<uint64_t>& byReason)
{
    for (std::size_t i = 0; i < kSwitchDropReasons.size() && i < byReason.size(); ++i)
    {
        AddDrops(drops, "switch-", kSwitchDropReasons[i].name, byReason[i]);
    }
}

void
MetaRoceExperimentResults::AddPlanes(std::vector<MetaRocePlaneRecord> planeRecords)
{
    planes = std::move(planeRecords);
    uint64_t lost = 0;
    for (const auto& p : planes)
    {
        pfcPauses += p.pfcPauses;
        maxQueueBytes = std::max(maxQueueBytes, p.maxQueueBytes);
        lost += p.lost;
    }
    AddDrops(drops, "link-loss", "", lost);
}

} // namespace ns3
