#include "metaroce-fabric-monitor.h"

#include "ns3/abort.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-mpi.h"
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
        for (const auto tier : {MetaRoceFabricTier::LEAF,
                                MetaRoceFabricTier::SPINE,
                                MetaRoceFabricTier::CORE,
                                MetaRoceFabricTier::SERVER})
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
            AddLink(link,
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
MetaRoceFabricMonitor::AddLink(const MetaRoceFabricLink& link,
                               uint32_t plane,
                               const std::string& tierAB,
                               const std::string& tierBA,
                               const std::string& labelA,
                               const std::string& labelB)
{
    for (const bool forward : {true, false})
    {
        Ptr<NetDevice> tx = forward ? link.a : link.b;
        Ptr<NetDevice> rx = forward ? link.b : link.a;
        Direction d;
        d.txSwitch = forward ? link.swA : link.swB;
        d.txPort = forward ? link.portA : link.portB;
        d.record.plane = plane;
        d.record.tier = forward ? tierAB : tierBA;
        d.record.from = forward ? labelA : labelB;
        d.record.to = forward ? labelB : labelA;
        DataRateValue rate;
        tx->GetAttribute("DataRate", rate);
        d.rateBps = rate.Get().GetBitRate();
        NS_ABORT_MSG_IF(tx->GetChannel() == nullptr,
                        "MetaRoceFabricMonitor: a link end with no channel");
        d.channel = DynamicCast<MetaRoceChannel>(tx->GetChannel());
        d.tx = tx;
        const std::size_t index = m_directions.size();
        m_directions.push_back(d);
        if (d.channel == nullptr)
        {
            // ns-3's PointToPointNetDevice: every frame that starts on the wire (PPP-framed).
            tx->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeCallback(&MetaRoceFabricMonitor::OnSent, this).Bind(index));
        }
        rx->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(&MetaRoceFabricMonitor::OnLost, this).Bind(index));
    }
}

void
MetaRoceFabricMonitor::OnLost(std::size_t direction, Ptr<const Packet> packet)
{
    ++m_directions[direction].record.lost;
}

void
MetaRoceFabricMonitor::OnSent(std::size_t direction, Ptr<const Packet> frame)
{
    ++m_directions[direction].sentPackets;
    m_directions[direction].sentBytes += frame->GetSize();
}

void
MetaRoceFabricMonitor::Start(Time start,
                             Time interval,
                             std::function<double()> progress,
                             std::function<bool()> done)
{
    m_start = start;
    m_interval = interval;
    m_progress = std::move(progress);
    m_done = std::move(done);
    m_started = std::chrono::steady_clock::now();
    m_lastPrint = m_started;
    m_snapshots.assign(m_fabric.GetNHosts(), {});
    if (interval.IsStrictlyPositive())
    {
        for (uint32_t h = 0; h < m_fabric.GetNHosts(); ++h)
        {
            const Ptr<Node> node = m_fabric.GetNic(h)->GetObject<Node>();
            if (MetaRoceMpi::IsLocal(*node))
            {
                MetaRoceArrivals::Of(node)->AddObserver(start + interval,
                                                        [this, h]() { return Snapshot(h); });
            }
        }
    }
    if (m_progress)
    {
        Simulator::Schedule(start - Simulator::Now() + kProgressTick,
                            &MetaRoceFabricMonitor::ProgressTick,
                            this);
    }
}

std::pair<uint64_t, uint64_t>
MetaRoceFabricMonitor::HostBytes(uint32_t h) const
{
    const metaroce::Counters& released = m_fabric.GetNic(h)->GetReleasedCounters();
    std::pair<uint64_t, uint64_t> bytes{released.txBytes, released.placedBytes};
    for (const auto& qp : m_fabric.GetNic(h)->GetQueuePairs())
    {
        bytes.first += qp->GetCounters().txBytes;
        bytes.second += qp->GetCounters().placedBytes;
    }
    return bytes;
}

Time
MetaRoceFabricMonitor::Snapshot(uint32_t h)
{
    // Nothing of this host changed since its previous event: every tick passed since then
    // sees the same counters.
    auto& snapshots = m_snapshots[h];
    const auto bytes = HostBytes(h);
    Time tick = m_start + m_interval * static_cast<int64_t>(snapshots.size() + 1);
    for (; tick <= Simulator::Now(); tick += m_interval)
    {
        snapshots.push_back(bytes);
    }
    return tick;
}

void
MetaRoceFabricMonitor::ProgressTick()
{
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - m_lastPrint).count() >= kProgressEverySeconds)
    {
        m_lastPrint = now;
        PrintProgress(DeliveredBytes(), std::chrono::duration<double>(now - m_started).count());
    }
    if (!m_done())
    {
        Simulator::Schedule(kProgressTick, &MetaRoceFabricMonitor::ProgressTick, this);
    }
}

void
MetaRoceFabricMonitor::Finish(Time end)
{
    CombineCounters();
    if (!m_interval.IsStrictlyPositive() || end <= m_start)
    {
        return;
    }
    // The intervals that began before the end; the last one's tick may lie past it.
    const auto ticks =
        static_cast<std::size_t>(((end - m_start).GetTimeStep() - 1) / m_interval.GetTimeStep()) +
        1;
    const uint32_t hosts = m_fabric.GetNHosts();
    // Per tick and host: (sent, delivered), zero for the hosts of other ranks.
    std::vector<uint64_t> snapshots(ticks * hosts * 2, 0);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        if (!MetaRoceMpi::IsLocal(*m_fabric.GetNic(h)->GetObject<Node>()))
        {
            continue;
        }
        auto series = m_snapshots[h];
        // Ticks after the host's last event: its counters have not changed since.
        series.resize(ticks, HostBytes(h));
        for (std::size_t k = 0; k < ticks; ++k)
        {
            snapshots[(k * hosts + h) * 2] = series[k].first;
            snapshots[(k * hosts + h) * 2 + 1] = series[k].second;
        }
    }
    MakeSeries(MetaRoceMpi::Sum(std::move(snapshots)), ticks);
}

void
MetaRoceFabricMonitor::MakeSeries(const std::vector<uint64_t>& snapshots, std::size_t ticks)
{
    const uint32_t hosts = m_fabric.GetNHosts();
    m_samples.clear();
    m_hostSamples.clear();
    std::vector<uint64_t> last(hosts * 2, 0);
    for (std::size_t k = 0; k < ticks; ++k)
    {
        MetaRoceThroughputSample s;
        s.startUs = (m_start + m_interval * static_cast<int64_t>(k)).GetMicroSeconds();
        for (uint32_t h = 0; h < hosts; ++h)
        {
            const uint64_t* now = &snapshots[(k * hosts + h) * 2];
            const uint64_t sent = now[0] - last[h * 2];
            const uint64_t delivered = now[1] - last[h * 2 + 1];
            m_hostSamples.push_back({s.startUs, h, sent, delivered});
            s.deliveredBytes += delivered;
            last[h * 2] = now[0];
            last[h * 2 + 1] = now[1];
        }
        s.gbps = s.deliveredBytes * 8.0 / m_interval.GetNanoSeconds();
        m_samples.push_back(s);
    }
}

void
MetaRoceFabricMonitor::CombineCounters()
{
    // Each direction is counted where it happens: sent on the transmitter's rank, lost on the
    // receiver's; the copies on the other ranks never see a packet.
    std::vector<uint64_t> counts;
    constexpr std::size_t kFields = 6;
    counts.reserve(m_directions.size() * kFields);
    for (auto& d : m_directions)
    {
        if (d.channel != nullptr)
        {
            const Ptr<MetaRoceNetDevice> tx = DynamicCast<MetaRoceNetDevice>(d.tx);
            d.record.txPackets = d.channel->GetSent(tx).packets;
            d.record.txBytes = d.channel->GetSent(tx).bytes;
        }
        else
        {
            d.record.txPackets = d.sentPackets;
            d.record.txBytes = d.sentBytes;
        }
        if (d.txSwitch != nullptr && MetaRoceMpi::IsLocal(*d.txSwitch->GetObject<Node>()))
        {
            const MetaRoceSwitchPortCounters& k = d.txSwitch->GetPortCounters(d.txPort);
            d.record.maxQueueBytes = k.maxQueueBytes;
            d.record.dropped = k.Dropped();
            d.record.ecnMarked = k.ecnMarked;
        }
        counts.insert(counts.end(),
                      {d.record.txPackets,
                       d.record.txBytes,
                       d.record.lost,
                       d.record.maxQueueBytes,
                       d.record.dropped,
                       d.record.ecnMarked});
    }
    m_localPacketHops = GetPacketHops();
    counts = MetaRoceMpi::Sum(std::move(counts));
    for (std::size_t i = 0; i < m_directions.size(); ++i)
    {
        // A switch is local to one rank: the others add zeros.
        MetaRoceLinkRecord& r = m_directions[i].record;
        r.txPackets = counts[i * kFields];
        r.txBytes = counts[i * kFields + 1];
        r.lost = counts[i * kFields + 2];
        r.maxQueueBytes = counts[i * kFields + 3];
        r.dropped = counts[i * kFields + 4];
        r.ecnMarked = counts[i * kFields + 5];
    }
    const uint32_t planes = m_fabric.GetNPlanes();
    std::vector<uint64_t> sums(planes * 2, 0);
    std::vector<uint64_t> maxima(planes, 0);
    for (uint32_t p = 0; p < planes; ++p)
    {
        for (const auto tier : {MetaRoceFabricTier::LEAF,
                                MetaRoceFabricTier::SPINE,
                                MetaRoceFabricTier::CORE,
                                MetaRoceFabricTier::SERVER})
        {
            for (const auto& sw : m_fabric.GetSwitches(p, tier))
            {
                if (!MetaRoceMpi::IsLocal(*sw->GetObject<Node>()))
                {
                    continue;
                }
                sums[p * 2] += sw->GetDropped();
                for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
                {
                    const MetaRoceSwitchPortCounters& k = sw->GetPortCounters(port);
                    sums[p * 2 + 1] += k.pauseSent;
                    maxima[p] = std::max(maxima[p], k.maxQueueBytes);
                }
            }
        }
    }
    sums = MetaRoceMpi::Sum(std::move(sums));
    maxima = MetaRoceMpi::Max(std::move(maxima));
    m_switchFigures.assign(planes, {});
    for (uint32_t p = 0; p < planes; ++p)
    {
        m_switchFigures[p] = {sums[p * 2], sums[p * 2 + 1], maxima[p]};
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
        sum += HostBytes(h).second;
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
        if (p < m_switchFigures.size())
        {
            planes[p].switchDrops = m_switchFigures[p].drops;
            planes[p].pfcPauses = m_switchFigures[p].pfcPauses;
            planes[p].maxQueueBytes = m_switchFigures[p].maxQueueBytes;
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

uint64_t
MetaRoceFabricMonitor::GetLocalPacketHops() const
{
    return m_localPacketHops;
}

} // namespace ns3
