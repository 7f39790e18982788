#include "metaroce-fabric-monitor.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>

namespace ns3
{

namespace
{

/// Without throughput samples, progress is still checked this often (simulated time).
const Time kProgressTick = MicroSeconds(20);
/// Wall-clock seconds between progress lines.
constexpr double kProgressEverySeconds = 2.0;

std::string
Label(const std::string& kind, uint32_t plane, uint32_t index)
{
    return kind + "-" + std::to_string(plane) + "-" + std::to_string(index);
}

} // namespace

MetaRoceFabricMonitor::MetaRoceFabricMonitor(const MetaRoceFabricHelper& fabric)
    : m_fabric(fabric)
{
    for (uint32_t p = 0; p < fabric.GetNPlanes(); ++p)
    {
        // Every switch of the plane by its tier and index, for the link labels.
        std::map<const MetaRoceSwitch*, std::pair<std::string, std::string>> names;
        for (const auto tier :
             {MetaRoceFabricTier::LEAF, MetaRoceFabricTier::SPINE, MetaRoceFabricTier::CORE})
        {
            const auto switches = fabric.GetSwitches(p, tier);
            for (uint32_t i = 0; i < switches.size(); ++i)
            {
                names[PeekPointer(switches[i])] = {MetaRoceFabricTierName(tier),
                                                   Label(MetaRoceFabricTierName(tier), p, i)};
            }
        }
        for (const MetaRoceFabricLink& link : fabric.GetLinks(p))
        {
            const auto& upper = names.at(PeekPointer(link.swB));
            std::string lowerTier = "host";
            std::string lowerLabel;
            if (link.nic)
            {
                lowerLabel = "host-" + std::to_string(HostOf(link.nic));
            }
            else
            {
                lowerTier = names.at(PeekPointer(link.swA)).first;
                lowerLabel = names.at(PeekPointer(link.swA)).second;
            }
            AddLink(link.a,
                    link.b,
                    p,
                    lowerTier + "-" + upper.first,
                    upper.first + "-" + lowerTier,
                    lowerLabel,
                    upper.second);
        }
    }
}

uint32_t
MetaRoceFabricMonitor::HostOf(Ptr<MetaRoceNic> nic) const
{
    for (uint32_t h = 0; h < m_fabric.GetNHosts(); ++h)
    {
        if (m_fabric.GetNic(h) == nic)
        {
            return h;
        }
    }
    NS_FATAL_ERROR("MetaRoceFabricMonitor: a host link's NIC is not one of the fabric's hosts");
}

void
MetaRoceFabricMonitor::AddLink(Ptr<PointToPointNetDevice> a,
                               Ptr<PointToPointNetDevice> b,
                               uint32_t plane,
                               const std::string& tierAB,
                               const std::string& tierBA,
                               const std::string& labelA,
                               const std::string& labelB)
{
    for (const bool forward : {true, false})
    {
        Ptr<PointToPointNetDevice> tx = forward ? a : b;
        Ptr<PointToPointNetDevice> rx = forward ? b : a;
        Direction d;
        d.record.plane = plane;
        d.record.tier = forward ? tierAB : tierBA;
        d.record.from = forward ? labelA : labelB;
        d.record.to = forward ? labelB : labelA;
        DataRateValue rate;
        tx->GetAttribute("DataRate", rate);
        d.rateBps = rate.Get().GetBitRate();
        const std::size_t index = m_directions.size();
        m_directions.push_back(d);
        tx->TraceConnectWithoutContext(
            "PhyTxEnd",
            MakeCallback(&MetaRoceFabricMonitor::OnTx, this).Bind(index));
        rx->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(&MetaRoceFabricMonitor::OnLost, this).Bind(index));
    }
}

void
MetaRoceFabricMonitor::OnTx(std::size_t direction, Ptr<const Packet> packet)
{
    ++m_directions[direction].record.txPackets;
    m_directions[direction].record.txBytes += packet->GetSize();
}

void
MetaRoceFabricMonitor::OnLost(std::size_t direction, Ptr<const Packet> packet)
{
    ++m_directions[direction].record.lost;
}

void
MetaRoceFabricMonitor::Start(Time start,
                             Time interval,
                             std::function<double()> progress,
                             std::function<bool()> done)
{
    m_interval = interval;
    m_progress = std::move(progress);
    m_done = std::move(done);
    m_started = std::chrono::steady_clock::now();
    m_lastPrint = m_started;
    if (interval.IsStrictlyPositive() || m_progress)
    {
        Simulator::Schedule(start - Simulator::Now() +
                                (interval.IsStrictlyPositive() ? interval : kProgressTick),
                            &MetaRoceFabricMonitor::Sample,
                            this);
    }
}

void
MetaRoceFabricMonitor::Sample()
{
    const uint64_t delivered = DeliveredBytes();
    if (m_interval.IsStrictlyPositive())
    {
        MetaRoceThroughputSample s;
        s.startUs = (Simulator::Now() - m_interval).GetMicroSeconds();
        s.deliveredBytes = delivered - m_lastDelivered;
        s.gbps = s.deliveredBytes * 8.0 / m_interval.GetNanoSeconds();
        m_samples.push_back(s);
        m_lastDelivered = delivered;
        m_lastHost.resize(m_fabric.GetNHosts());
        for (uint32_t h = 0; h < m_fabric.GetNHosts(); ++h)
        {
            uint64_t tx = 0;
            uint64_t placed = 0;
            for (const auto& qp : m_fabric.GetNic(h)->GetQueuePairs())
            {
                tx += qp->GetCounters().txBytes;
                placed += qp->GetCounters().placedBytes;
            }
            m_hostSamples.push_back(
                {s.startUs, h, tx - m_lastHost[h].first, placed - m_lastHost[h].second});
            m_lastHost[h] = {tx, placed};
        }
    }
    if (m_progress)
    {
        const auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - m_lastPrint).count() >= kProgressEverySeconds)
        {
            m_lastPrint = now;
            PrintProgress(delivered, std::chrono::duration<double>(now - m_started).count());
        }
    }
    if (!m_done())
    {
        Simulator::Schedule(m_interval.IsStrictlyPositive() ? m_interval : kProgressTick,
                            &MetaRoceFabricMonitor::Sample,
                            this);
    }
}

void
MetaRoceFabricMonitor::PrintProgress(uint64_t delivered, double wallSeconds) const
{
    const double done = std::clamp(m_progress(), 0.0, 1.0);
    std::cerr << "progress: simulated " << std::fixed << std::setprecision(1)
              << Simulator::Now().GetMicroSeconds() << " us, delivered " << delivered / 1048576.0
              << " MiB, " << done * 100 << "% done, wall " << wallSeconds << " s";
    // The rest at the pace so far: rough while the workload's phases differ in speed.
    if (done > 0)
    {
        std::cerr << ", about " << wallSeconds * (1 - done) / done << " s left";
    }
    std::cerr << "\n" << std::defaultfloat;
}

uint64_t
MetaRoceFabricMonitor::DeliveredBytes() const
{
    uint64_t sum = 0;
    for (uint32_t h = 0; h < m_fabric.GetNHosts(); ++h)
    {
        for (const auto& qp : m_fabric.GetNic(h)->GetQueuePairs())
        {
            sum += qp->GetCounters().placedBytes;
        }
    }
    return sum;
}

std::vector<MetaRoceLinkRecord>
MetaRoceFabricMonitor::GetLinks(Time duration) const
{
    std::vector<MetaRoceLinkRecord> links;
    for (const auto& d : m_directions)
    {
        MetaRoceLinkRecord r = d.record;
        const double capacityBytes = d.rateBps / 8.0 * duration.GetSeconds();
        r.utilisation = capacityBytes > 0 ? r.txBytes / capacityBytes : 0;
        links.push_back(r);
    }
    return links;
}

std::vector<MetaRocePlaneRecord>
MetaRoceFabricMonitor::GetPlanes(const std::vector<MetaRoceLinkRecord>& links) const
{
    std::vector<MetaRocePlaneRecord> planes(m_fabric.GetNPlanes());
    std::vector<uint32_t> counts(planes.size(), 0);
    for (uint32_t p = 0; p < planes.size(); ++p)
    {
        planes[p].plane = p;
    }
    for (const auto& l : links)
    {
        MetaRocePlaneRecord& p = planes[l.plane];
        p.txBytes += l.txBytes;
        p.lost += l.lost;
        p.meanUtilisation += l.utilisation;
        p.maxUtilisation = std::max(p.maxUtilisation, l.utilisation);
        ++counts[l.plane];
    }
    for (uint32_t p = 0; p < planes.size(); ++p)
    {
        planes[p].meanUtilisation /= std::max<uint32_t>(1, counts[p]);
        for (const auto tier :
             {MetaRoceFabricTier::LEAF, MetaRoceFabricTier::SPINE, MetaRoceFabricTier::CORE})
        {
            for (const auto& sw : m_fabric.GetSwitches(p, tier))
            {
                planes[p].switchDrops += sw->GetDropped();
                for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
                {
                    const MetaRoceSwitchPortCounters& k = sw->GetPortCounters(port);
                    planes[p].pfcPauses += k.pauseSent;
                    planes[p].maxQueueBytes = std::max(planes[p].maxQueueBytes, k.maxQueueBytes);
                }
            }
        }
    }
    return planes;
}

const std::vector<MetaRoceThroughputSample>&
MetaRoceFabricMonitor::GetThroughput() const
{
    return m_samples;
}

const std::vector<MetaRoceHostSample>&
MetaRoceFabricMonitor::GetHostThroughput() const
{
    return m_hostSamples;
}

uint64_t
MetaRoceFabricMonitor::GetPacketHops() const
{
    uint64_t sum = 0;
    for (const auto& d : m_directions)
    {
        sum += d.record.txPackets;
    }
    return sum;
}

} // namespace ns3
