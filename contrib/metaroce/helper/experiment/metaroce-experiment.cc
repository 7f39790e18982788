/*
 * MetaRoceExperiment::Run() in four steps: build the fabric (with its loss and failures),
 * install the workload (metaroce-experiment-workload.h), run the simulator until the workload
 * is done, and collect the results from the counters of the NICs, switches and links.
 */
#include "metaroce-experiment.h"

#include "metaroce-experiment-workload.h"
#include "metaroce-message-log.h"
#include "metaroce-options.h"
#include "metaroce-run-end.h"
#include "metaroce-transports.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-fabric-monitor.h"
#include "ns3/metaroce-mpi.h"
#include "ns3/metaroce-switch.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Whatever happens (a late std::invalid_argument included), the simulator is left clean for
/// the next run.
struct SimulatorGuard
{
    ~SimulatorGuard()
    {
        Simulator::Destroy();
    }
};

void
AddLoss(const MetaRoceFabricHelper& fabric, const MetaRoceExperimentConfig& c, int64_t stream)
{
    for (uint32_t p = 0; p < fabric.GetNPlanes(); ++p)
    {
        if (c.lossPlane >= 0 && static_cast<uint32_t>(c.lossPlane) != p)
        {
            continue;
        }
        // A rail fabric's intra-server links stand for NVLink, which does not lose packets.
        std::set<Ptr<NetDevice>> lossless;
        for (uint32_t h = 0; h < fabric.GetNServers() * c.railGpus; ++h)
        {
            lossless.insert(fabric.GetHostLink(h, p).first);
            lossless.insert(fabric.GetHostLink(h, p).second);
        }
        const NetDeviceContainer devices = fabric.GetDevices(p);
        for (auto it = devices.Begin(); it != devices.End(); ++it)
        {
            if (lossless.count(*it) > 0)
            {
                continue;
            }
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(c.loss);
            stream += em->AssignStreams(stream);
            (*it)->SetAttribute("ReceiveErrorModel", PointerValue(em)); // either device's
        }
    }
}

/// Throws std::invalid_argument(what) unless ok.
void
Check(bool ok, const std::string& what)
{
    if (!ok)
    {
        throw std::invalid_argument(what);
    }
}

/// "--option: kind index of count"
std::string
OutOfRange(const std::string& option, const std::string& kind, uint32_t index, uint32_t count)
{
    return "--" + option + ": " + kind + " " + std::to_string(index) + " of " +
           std::to_string(count);
}

void
ScheduleFailure(MetaRoceFabricHelper& fabric, const MetaRoceExperimentConfig& c)
{
    if (c.failure == "none")
    {
        return;
    }
    const Time at = ParseTimeOption("failureAt", c.failureAt);
    const Time until =
        c.failureUntil.empty() ? Time::Max() : ParseTimeOption("failureUntil", c.failureUntil);
    if (c.failure == "plane")
    {
        fabric.FailPlane(c.failurePlane, at, until);
    }
    else if (c.failure == "spine")
    {
        Check(c.failureIndex < fabric.GetNSpines(),
              OutOfRange("failureIndex", "spine", c.failureIndex, fabric.GetNSpines()));
        fabric.FailSpine(c.failurePlane, c.failureIndex, at, until);
    }
    else if (c.failure == "fabric-link")
    {
        Check(c.failureIndex < fabric.GetNLeaves(),
              OutOfRange("failureIndex", "leaf", c.failureIndex, fabric.GetNLeaves()));
        Check(c.failureSpine < fabric.GetNSpines(),
              OutOfRange("failureSpine", "spine", c.failureSpine, fabric.GetNSpines()));
        fabric.FailFabricLink(c.failurePlane, c.failureIndex, c.failureSpine, at, until);
    }
    else
    {
        Check(c.failureIndex < fabric.GetNHosts(),
              OutOfRange("failureIndex", "host", c.failureIndex, fabric.GetNHosts()));
        fabric.FailHostLink(c.failureIndex, c.failurePlane, at, until);
    }
}

/// Every host's counters summed over the ranks (each rank's are zero but for its own hosts).
std::vector<metaroce::Counters>
SumOverRanks(std::vector<metaroce::Counters> hosts)
{
    if (MetaRoceMpi::GetSize() == 1)
    {
        return hosts;
    }
    const std::size_t fields = metaroce::kCounterFields.size() + metaroce::kDropReasons.size();
    std::vector<uint64_t> flat;
    flat.reserve(hosts.size() * fields);
    for (const auto& c : hosts)
    {
        for (const auto& field : metaroce::kCounterFields)
        {
            flat.push_back(c.*field.member);
        }
        flat.insert(flat.end(), c.drops.begin(), c.drops.end());
    }
    flat = MetaRoceMpi::Sum(std::move(flat));
    auto it = flat.begin();
    for (auto& c : hosts)
    {
        for (const auto& field : metaroce::kCounterFields)
        {
            c.*field.member = *it++;
        }
        for (auto& d : c.drops)
        {
            d = *it++;
        }
    }
    return hosts;
}

/// The NICs' Mtu attribute (every NIC of a fabric has the same).
uint32_t
NicMtu(const MetaRoceFabricHelper& fabric)
{
    UintegerValue mtu;
    fabric.GetNic(0)->GetAttribute("Mtu", mtu);
    return static_cast<uint32_t>(mtu.Get());
}

} // namespace

MetaRoceExperiment::MetaRoceExperiment(const MetaRoceExperimentConfig& config)
    : m_config(config)
{
    m_config.Validate();
}

MetaRoceExperimentResults
MetaRoceExperiment::Run()
{
    const auto wallStart = std::chrono::steady_clock::now();
    const MetaRoceAttributeList nicSettings = m_config.NicSettings();
    const MetaRoceAttributeList switchSettings = m_config.SwitchSettings();
    MetaRoceExperimentWorkload workload(m_config);
    SimulatorGuard guard;
    Simulator::SetScheduler(ParseSchedulerOption("scheduler", m_config.scheduler));

    MetaRoceFabricHelper fabric;
    const int64_t stream = BuildFabric(fabric, nicSettings, switchSettings);
    MetaRoceMessageLog log(m_config,
                           ParseRateOption("hostRate", m_config.hostRate).GetBitRate(),
                           NicMtu(fabric));
    workload.Install(fabric, stream, log);
    MetaRoceFabricMonitor monitor(fabric);
    MetaRoceRunEnd end(fabric, [&workload]() { return workload.IsDone(); });
    end.Start();
    Simulate(workload, monitor);
    MetaRoceExperimentResults r = Collect(fabric, workload, log, monitor);

    Simulator::Destroy();
    MeasureJobsAlone(r);
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    // A distributed run's ranks all hold the combined results; rank 0 writes them.
    if (!m_config.output.empty() && MetaRoceMpi::GetRank() == 0)
    {
        r.Write(m_config.output);
    }
    return r;
}

void
MetaRoceExperiment::MeasureJobsAlone(MetaRoceExperimentResults& r) const
{
    if (m_config.jobs <= 1 || m_config.soloJob >= 0)
    {
        return;
    }
    for (MetaRoceJobRecord& job : r.jobs)
    {
        // The same run with this job alone: the same fabric, seed and placement.
        MetaRoceExperimentConfig alone = m_config;
        alone.soloJob = static_cast<int32_t>(job.job);
        alone.output.clear();
        alone.pcap.clear();
        alone.pcapSwitches = false;
        alone.progress = false;
        const MetaRoceExperimentResults solo = MetaRoceExperiment(alone).Run();
        job.aloneTimeUs = solo.jobs.empty() ? 0 : solo.jobs.front().collective.timeUs;
        job.slowdown = job.aloneTimeUs > 0 ? job.collective.timeUs / job.aloneTimeUs : 0;
    }
}

int64_t
MetaRoceExperiment::BuildFabric(MetaRoceFabricHelper& fabric,
                                const MetaRoceAttributeList& nicSettings,
                                const MetaRoceAttributeList& switchSettings) const
{
    const MetaRoceExperimentConfig& c = m_config;
    RngSeedManager::SetSeed(c.seed);
    RngSeedManager::SetRun(c.run);
    if (c.topology == "fat-tree")
    {
        fabric.SetTopology(MetaRoceTopology::FAT_TREE);
        fabric.SetLeavesPerPod(c.leavesPerPod);
        fabric.SetCores(c.cores);
        fabric.SetCoreLink(ParseRateOption("coreRate", c.coreRate),
                           ParseTimeOption("coreDelay", c.coreDelay));
    }
    if (c.topology == "rail")
    {
        fabric.SetTopology(MetaRoceTopology::RAIL);
        fabric.SetRailGpus(c.railGpus);
        fabric.SetServerLink(ParseRateOption("serverRate", c.serverRate),
                             ParseTimeOption("serverDelay", c.serverDelay));
    }
    fabric.SetDeviceType(c.device);
    fabric.SetHosts(c.hosts);
    fabric.SetPlanes(c.planes);
    fabric.SetHostsPerLeaf(c.hostsPerLeaf);
    fabric.SetSpines(c.spines);
    fabric.SetHostLink(ParseRateOption("hostRate", c.hostRate),
                       ParseTimeOption("hostDelay", c.hostDelay));
    fabric.SetFabricLink(ParseRateOption("fabricRate", c.fabricRate),
                         ParseTimeOption("fabricDelay", c.fabricDelay));
    fabric.SetEcmpSeed(c.seed);
    // The transport's attributes, then the user's (MetaRoceExperimentConfig::NicSettings);
    // Validate() checked them against the model's rules.
    for (const auto& [name, value] : nicSettings)
    {
        fabric.SetNicAttribute(name, StringValue(value));
    }
    for (const auto& [name, value] : switchSettings)
    {
        fabric.SetSwitchAttribute(name, StringValue(value));
    }
    if (MetaRoceMpi::IsEnabled())
    {
        // A distributed run: leaves with their hosts in blocks, one block per rank, or the
        // user's rank per host.
        const auto hostRanks = ParseHostRanks("partition", c.partition, c.hosts);
        fabric.SetPartition(
            hostRanks.empty() ? MetaRoceFabricPartition::ByLeaf(MetaRoceMpi::GetSize())
                              : MetaRoceFabricPartition::ByHost(MetaRoceMpi::GetSize(), hostRanks));
    }
    fabric.Build();
    if (MetaRoceMpi::IsEnabled() && MetaRoceMpi::GetRank() == 0)
    {
        std::clog << "distributed: " << fabric.GetPartition().Describe() << ", lookahead "
                  << fabric.GetLookahead().As(Time::US) << " (the smallest delay between ranks)"
                  << std::endl;
    }
    const int64_t stream = 1000 + fabric.AssignStreams(1000);
    if (c.loss > 0)
    {
        AddLoss(fabric, c, stream);
    }
    ScheduleFailure(fabric, c);
    if (!c.pcap.empty())
    {
        fabric.EnablePcap(c.pcap, c.pcapSwitches);
    }
    // The loss models' streams are below this, the workload's from here on.
    return stream + 100000;
}

void
MetaRoceExperiment::Simulate(const MetaRoceExperimentWorkload& workload,
                             MetaRoceFabricMonitor& monitor) const
{
    std::function<double()> progress;
    if (m_config.progress)
    {
        progress = [&workload]() { return workload.Progress(); };
    }
    monitor.Start(Seconds(0),
                  ParseTimeOption("throughputInterval", m_config.throughputInterval),
                  progress,
                  [&workload]() { return workload.IsDone(); });
    Simulator::Stop(ParseTimeOption("stopTime", m_config.stopTime));
    Simulator::Run();
}

MetaRoceExperimentResults
MetaRoceExperiment::Collect(const MetaRoceFabricHelper& fabric,
                            const MetaRoceExperimentWorkload& workload,
                            MetaRoceMessageLog& log,
                            MetaRoceFabricMonitor& monitor) const
{
    MetaRoceExperimentResults r;
    r.config = m_config;
    r.simEndUs = Simulator::Now().GetNanoSeconds() / 1e3;
    r.flows = log.TakeSorted();
    r.messagesCompleted = r.flows.size();
    workload.Collect(r);
    r.SummariseFlows();
    const Time duration = MicroSeconds(1) * std::max(r.durationUs, 1e-3);
    // Each rank counts the hosts and switches it simulates; the sums over the ranks are the
    // whole fabric's (a one-process run sums over itself).
    std::vector<metaroce::Counters> hosts(m_config.hosts);
    for (uint32_t h = 0; h < m_config.hosts; ++h)
    {
        const Ptr<MetaRoceNic> nic = fabric.GetNic(h);
        if (MetaRoceMpi::IsLocal(*nic->GetObject<Node>()))
        {
            hosts[h] += nic->GetReleasedCounters();
            for (const auto& qp : nic->GetQueuePairs())
            {
                hosts[h] += qp->GetCounters();
            }
        }
    }
    hosts = SumOverRanks(std::move(hosts));
    metaroce::Counters all;
    for (uint32_t h = 0; h < m_config.hosts; ++h)
    {
        r.AddHost(h, hosts[h], duration);
        all += hosts[h];
    }
    r.SetEngineTotals(all, duration);
    std::vector<uint64_t> switchDrops(kSwitchDropReasons.size(), 0);
    for (const auto& sw : fabric.GetSwitches())
    {
        if (MetaRoceMpi::IsLocal(*sw->GetObject<Node>()))
        {
            for (std::size_t i = 0; i < kSwitchDropReasons.size(); ++i)
            {
                switchDrops[i] += sw->GetDropCount(kSwitchDropReasons[i].reason);
            }
        }
    }
    r.AddSwitchDrops(MetaRoceMpi::Sum(std::move(switchDrops)));
    monitor.Finish(Simulator::Now());
    r.links = monitor.GetLinks(duration);
    r.AddPlanes(monitor.GetPlanes(r.links));
    r.throughput = monitor.GetThroughput();
    r.hostThroughput = monitor.GetHostThroughput();
    r.packetHops = monitor.GetPacketHops();
    r.rankPacketHops = monitor.GetLocalPacketHops();
    r.rankEvents = Simulator::GetEventCount();
    return r;
}

} // namespace ns3
