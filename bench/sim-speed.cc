// Simulation-speed benchmark of the ns-3 module (issue 5): how fast whole fabrics simulate, and
// how that compares with stock ns-3 forwarding the same packets in the same process.
//
// A fixed fabric and workload, scaled only by the number of hosts: a multi-plane leaf-spine
// (8 planes, 8 hosts per leaf, 4 spines per plane, 100 Gb/s and 1 us links, default switches)
// and a permutation in which host h writes one 1 MiB message to host (h + N/2) mod N (always
// across leaves: four links per data packet), over one MetaRoCE connection or, with
// --transport=rocev2, one RoCEv2 queue pair per plane (1/planes of the message each). With
// --pattern=alltoall every host writes one message to every other host instead (N(N-1)
// connections: the many-queue-pair case; --messageBytes sets its size).
// MetaRoceNic::Connect and PostWrite are used directly, so only the simulator, the NIC, the
// engine and the switches are measured. Then, unless --reference=0, every packet the hosts put
// on their links is replayed at the same time and size over stock PointToPointNetDevices in the
// same shape with minimal forwarding and no transport (stock-reference.h says why that is the
// reference). Run one size per process (peak memory is per process):
//
//   build/bench/metaroce-sim-speed --hosts=64
//
// It prints one line of key=value pairs: for the model run wall and CPU seconds of
// Simulator::Run (setup apart; CPU time is the steadier number on a shared machine), the
// simulated time of the last completion, the packets the hosts sent (data and ACKs), the
// packet-hops (packets carried over any link: into a switch or into a host), events, heap
// allocations (alloc-counter.h), CPU per packet-hop, events and allocations per hop, the peak
// resident memory after the run and the growth from before the queue pairs existed to that
// peak per queue pair; the same figures for the stock run (prefix ref_) and the ratio of the
// CPU per hop, model over stock. bench/sim-speed.sh prints a table. This is a benchmark, not a
// test: it checks only that every message completed and every replayed packet arrived.
#include "alloc-counter.h"
#include "huge-page-heap.h"
#include "stock-reference.h"

#include "ns3/command-line.h"
#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3;
using namespace metaroce_bench;

namespace
{

struct Options
{
    uint32_t hosts{64};
    uint32_t planes{8};
    uint64_t messageBytes{1 << 20};
    std::string pattern{"permutation"};
    std::string transport{"metaroce"};
    bool reference{true};
    /// The model's scheduler: the experiment runner's default (MetaRoceExperimentConfig).
    std::string scheduler{MetaRoceExperimentConfig{}.scheduler};
    /// The reference's: stock ns-3's default, as a user of stock ns-3 gets it.
    std::string referenceScheduler{"ns3::MapScheduler"};
    /// The model's link device (MetaRoceFabricHelper::SetDeviceType).
    std::string device{MetaRoceExperimentConfig{}.device};
};

/// The model run's figures beyond RunFigures.
struct ModelFigures
{
    RunFigures run;
    double setupSeconds{0};
    double completionUs{0};
    uint64_t completed{0};
    uint64_t expected{0};
    uint64_t queuePairs{0};
    long peakRssKb{0};
    long connectRssKb{0}; ///< before the queue pairs were made
    long hugePagesKb{0};  ///< resident on transparent huge pages at the end of the run
};

/// When the last message completed (the simulation runs on until the last timer lapses).
Time g_lastCompletion;

void
OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    g_lastCompletion = Simulator::Now();
}

/// A host NIC starts sending `packet` on `port` (its Tx trace fires as the port pulls it, the
/// instant the device starts serialising it): recorded as the frame the wire carries, with the
/// IPv4 destination (bytes 16-19 of the packet, which starts with its IPv4 header). Not the
/// device's PhyTxBegin trace, whose sinks get a framed copy made inside the measured run.
void
OnHostTransmit(std::vector<PortTrace>* ports, Ptr<const Packet> packet, uint32_t port)
{
    uint8_t ip[20];
    packet->CopyData(ip, sizeof(ip));
    const uint32_t destination =
        (uint32_t{ip[16]} << 24) | (uint32_t{ip[17]} << 16) | (uint32_t{ip[18]} << 8) | ip[19];
    (*ports)[port].push_back(
        {Simulator::Now(), packet->GetSize() + MetaRoceNetDevice::kFrameHeaderBytes, destination});
}

long
CurrentRssKb()
{
    long pages = 0;
    long resident = 0;
    std::ifstream("/proc/self/statm") >> pages >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

long
PeakRssKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

/// The (sender, receiver) pairs of the pattern.
std::vector<std::pair<uint32_t, uint32_t>>
Flows(const Options& o)
{
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    for (uint32_t h = 0; h < o.hosts; ++h)
    {
        if (o.pattern == "permutation")
        {
            flows.emplace_back(h, (h + o.hosts / 2) % o.hosts);
            continue;
        }
        for (uint32_t d = 0; d < o.hosts; ++d)
        {
            if (d != h)
            {
                flows.emplace_back(h, d);
            }
        }
    }
    return flows;
}

/// Connects every flow's ends and posts its write; returns the requesting ends.
std::vector<Ptr<MetaRoceQueuePair>>
ConnectAll(const MetaRoceFabricHelper& fabric, const Options& o)
{
    const bool roce = o.transport == "rocev2";
    std::vector<Ptr<MetaRoceQueuePair>> senders;
    for (const auto& [h, peer] : Flows(o))
    {
        for (uint32_t p = 0; p < (roce ? o.planes : 1); ++p)
        {
            auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(h),
                                                 fabric.GetNic(peer),
                                                 roce ? metaroce::Transport::RoceV2
                                                      : metaroce::Transport::MetaRoce,
                                                 p);
            qa->SetCompletionCallback(MakeCallback(&OnCompletion));
            qa->PostWrite(0, roce ? o.messageBytes / o.planes : o.messageBytes);
            senders.push_back(qa);
        }
    }
    return senders;
}

/// Every packet a host sends enters its leaf once; every packet a switch receives crossed a
/// link, and so did every packet a leaf forwards to a host.
void
CountHops(const MetaRoceFabricHelper& fabric, uint32_t planes, RunFigures& figures)
{
    for (uint32_t p = 0; p < planes; ++p)
    {
        for (const MetaRoceFabricLink& link : fabric.GetLinks(p))
        {
            if (link.nic)
            {
                figures.packets += link.swB->GetPortCounters(link.portB).rxPackets;
                figures.packetHops += link.swB->GetPortCounters(link.portB).txPackets;
            }
        }
    }
    for (const auto& sw : fabric.GetSwitches())
    {
        figures.packetHops += sw->GetReceived();
    }
}

/// Records what every host port puts on the wire, into traces[host][plane].
void
RecordHostPorts(const MetaRoceFabricHelper& fabric,
                const Options& o,
                std::vector<std::vector<PortTrace>>& traces)
{
    traces.assign(o.hosts, std::vector<PortTrace>(o.planes));
    for (uint32_t h = 0; h < o.hosts; ++h)
    {
        for (uint32_t p = 0; p < o.planes; ++p)
        {
            NS_ABORT_MSG_UNLESS(fabric.GetNic(h)->GetPort(p) == fabric.GetHostLink(h, p).first,
                                "sim-speed: NIC port " << p << " is not plane " << p);
        }
        fabric.GetNic(h)->TraceConnectWithoutContext(
            "Tx",
            MakeBoundCallback(&OnHostTransmit, &traces[h]));
    }
}

ModelFigures
RunModel(const Options& o, std::vector<std::vector<PortTrace>>& traces)
{
    ModelFigures m;
    const auto setupStart = std::chrono::steady_clock::now();
    Simulator::SetScheduler(ParseSchedulerOption("scheduler", o.scheduler));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    MetaRoceFabricHelper fabric;
    fabric.SetDeviceType(o.device);
    fabric.SetHosts(o.hosts);
    fabric.SetPlanes(o.planes);
    fabric.SetHostsPerLeaf(8);
    fabric.SetSpines(4);
    fabric.SetHostLink(DataRate("100Gbps"), MicroSeconds(1));
    fabric.SetFabricLink(DataRate("100Gbps"), MicroSeconds(1));
    fabric.Build();
    fabric.AssignStreams(100);
    if (o.reference)
    {
        RecordHostPorts(fabric, o, traces);
    }
    m.connectRssKb = CurrentRssKb();
    const std::vector<Ptr<MetaRoceQueuePair>> senders = ConnectAll(fabric, o);
    m.queuePairs = 2 * senders.size();
    m.expected = senders.size();
    const auto runStart = std::chrono::steady_clock::now();
    const uint64_t allocStart = AllocationCount();
    const double cpuStart = CpuSeconds();
    Simulator::Run();
    m.run.cpuSeconds = CpuSeconds() - cpuStart;
    m.run.allocations = AllocationCount() - allocStart;
    m.run.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    m.setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    m.peakRssKb = PeakRssKb();
    m.hugePagesKb = metaroce::ResidentOnHugePagesKb();
    for (const auto& qp : senders)
    {
        m.completed += qp->GetCompletedCount();
    }
    CountHops(fabric, o.planes, m.run);
    m.run.events = Simulator::GetEventCount();
    m.completionUs = g_lastCompletion.GetMicroSeconds();
    Simulator::Destroy();
    return m;
}

/// The per-hop figures of one run, with `prefix` on every key.
void
PrintPerHop(const std::string& prefix, const RunFigures& r)
{
    const double hops = r.packetHops;
    std::cout << " " << prefix << "wall_s=" << r.wallSeconds << " " << prefix
              << "cpu_s=" << r.cpuSeconds << " " << prefix << "packets=" << r.packets << " "
              << prefix << "packet_hops=" << r.packetHops << " " << prefix << "events=" << r.events
              << " " << prefix << "cpu_us_per_hop=" << r.cpuSeconds * 1e6 / hops << " " << prefix
              << "events_per_hop=" << r.events / hops << " " << prefix
              << "allocs_per_hop=" << r.allocations / hops << " " << prefix
              << "hops_per_s=" << static_cast<uint64_t>(hops / r.wallSeconds);
}

void
Print(const Options& o, const ModelFigures& m, const RunFigures* stock)
{
    std::cout << "hosts=" << o.hosts << " planes=" << o.planes << " pattern=" << o.pattern
              << " message_bytes=" << o.messageBytes << " transport=" << o.transport
              << " device=" << o.device << " scheduler=" << o.scheduler
              << " ref_scheduler=" << o.referenceScheduler << " setup_s=" << m.setupSeconds
              << " completion_us=" << m.completionUs;
    PrintPerHop("", m.run);
    std::cout << " events_per_s=" << static_cast<uint64_t>(m.run.events / m.run.wallSeconds)
              << " max_rss_mb=" << m.peakRssKb / 1024 << " huge_mb=" << m.hugePagesKb / 1024
              << " queue_pairs=" << m.queuePairs
              << " kb_per_qp=" << static_cast<double>(m.peakRssKb - m.connectRssKb) / m.queuePairs
              << " completed=" << m.completed << "/" << m.expected;
    if (stock)
    {
        PrintPerHop("ref_", *stock);
        std::cout << " hop_cost_ratio="
                  << (m.run.cpuSeconds / m.run.packetHops) /
                         (stock->cpuSeconds / stock->packetHops);
    }
    std::cout << "\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CommandLine cmd(__FILE__);
    cmd.AddValue("hosts", "hosts (a multiple of 16 keeps the permutation across leaves)", o.hosts);
    cmd.AddValue("planes", "planes", o.planes);
    cmd.AddValue("messageBytes", "bytes per message", o.messageBytes);
    cmd.AddValue("pattern", "permutation or alltoall", o.pattern);
    cmd.AddValue("transport", "metaroce or rocev2 (one queue pair per plane)", o.transport);
    cmd.AddValue("reference", "also run the stock-ns-3 reference", o.reference);
    cmd.AddValue("scheduler", "the model run's ns-3 scheduler", o.scheduler);
    cmd.AddValue("referenceScheduler", "the reference's ns-3 scheduler", o.referenceScheduler);
    cmd.AddValue("device",
                 "the model's link device: ns3::MetaRoceNetDevice or ns3::PointToPointNetDevice",
                 o.device);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(o.hosts < 16 || o.hosts % 16 != 0,
                    "--hosts must be a multiple of 16 (8 hosts per leaf, h -> h + N/2 "
                    "crosses leaves), got "
                        << o.hosts);
    NS_ABORT_MSG_IF(o.transport != "metaroce" && o.transport != "rocev2",
                    "--transport must be metaroce or rocev2, got " << o.transport);
    NS_ABORT_MSG_IF(o.pattern != "permutation" && o.pattern != "alltoall",
                    "--pattern must be permutation or alltoall, got " << o.pattern);
    NS_ABORT_MSG_IF(o.messageBytes == 0, "--messageBytes must be positive");

    try
    {
        ParseSchedulerOption("scheduler", o.scheduler);
        ParseSchedulerOption("referenceScheduler", o.referenceScheduler);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "metaroce-sim-speed: " << e.what() << "\n";
        return 2;
    }
    std::vector<std::vector<PortTrace>> traces;
    const ModelFigures model = RunModel(o, traces);
    if (!o.reference)
    {
        Print(o, model, nullptr);
        return model.completed == model.expected ? 0 : 1;
    }
    const StockShape shape{o.hosts, o.planes, 8, 4, DataRate("100Gbps"), MicroSeconds(1)};
    Simulator::SetScheduler(ParseSchedulerOption("referenceScheduler", o.referenceScheduler));
    const RunFigures stock = RunStockReference(shape, traces);
    Print(o, model, &stock);
    return model.completed == model.expected ? 0 : 1;
}
