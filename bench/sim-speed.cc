// Simulation-speed benchmark of the ns-3 module (issue 5): how fast whole fabrics simulate.
//
// A fixed fabric and workload, scaled only by the number of hosts: a multi-plane leaf-spine
// (8 planes, 8 hosts per leaf, 4 spines per plane, 100 Gb/s and 1 us links, default switches)
// and a permutation in which host h writes one 1 MiB message to host (h + N/2) mod N over one
// MetaRoCE connection (always across leaves: four links per data packet). MetaRoceNic::Connect
// and PostWrite are used directly, so only the simulator, the NIC, the engine and the switches
// are measured. Run one size per process (peak memory is per process):
//
//   build/bench/metaroce-sim-speed --hosts=64
//
// It prints one line of key=value pairs: wall and CPU seconds of Simulator::Run (setup apart;
// CPU time is the steadier number on a shared machine), the simulated time of the last
// completion, the simulated packets (what the hosts sent, data and ACKs), packet-hops (packets
// carried over any link: into a switch or into a host), events, packet-hops per wall second and
// the peak resident memory (getrusage). bench/sim-speed.sh runs 16, 64 and 256 hosts and prints
// a table. This is a benchmark, not a test: it checks only that every message completed.
#include "ns3/command-line.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <chrono>
#include <iostream>
#include <sys/resource.h>

using namespace ns3;

namespace
{

/// Seconds of CPU (user and system) this process has used so far.
double
CpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/// When the last message completed (the simulation runs on until the last timer lapses).
Time g_lastCompletion;

void
OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    g_lastCompletion = Simulator::Now();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t hosts = 64;
    uint32_t planes = 8;
    uint64_t messageBytes = 1 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("hosts", "hosts (a multiple of 16 keeps the permutation across leaves)", hosts);
    cmd.AddValue("planes", "planes", planes);
    cmd.AddValue("messageBytes", "bytes per message", messageBytes);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(hosts < 16 || hosts % 16 != 0,
                    "--hosts must be a multiple of 16 (8 hosts per leaf, h -> h + N/2 "
                    "crosses leaves), got "
                        << hosts);

    const auto setupStart = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    MetaRoceFabricHelper fabric;
    fabric.SetHosts(hosts);
    fabric.SetPlanes(planes);
    fabric.SetHostsPerLeaf(8);
    fabric.SetSpines(4);
    fabric.SetHostLink(DataRate("100Gbps"), MicroSeconds(1));
    fabric.SetFabricLink(DataRate("100Gbps"), MicroSeconds(1));
    fabric.Build();
    fabric.AssignStreams(100);
    std::vector<Ptr<MetaRoceQueuePair>> senders;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(h),
                                             fabric.GetNic((h + hosts / 2) % hosts),
                                             metaroce::Transport::MetaRoce);
        qa->SetCompletionCallback(MakeCallback(&OnCompletion));
        qa->PostWrite(0, messageBytes);
        senders.push_back(qa);
    }
    const auto runStart = std::chrono::steady_clock::now();
    const double cpuStart = CpuSeconds();
    Simulator::Run();
    const double cpu = CpuSeconds() - cpuStart;
    const auto runEnd = std::chrono::steady_clock::now();

    uint64_t completed = 0;
    for (const auto& qp : senders)
    {
        completed += qp->GetCompletedCount();
    }
    // Every packet a host sends enters its leaf once; every packet a switch receives crossed a
    // link, and so did every packet a leaf forwards to a host.
    uint64_t sent = 0;
    uint64_t hops = 0;
    for (uint32_t p = 0; p < planes; ++p)
    {
        for (const MetaRoceFabricLink& link : fabric.GetLinks(p))
        {
            if (link.nic)
            {
                sent += link.swB->GetPortCounters(link.portB).rxPackets;
                hops += link.swB->GetPortCounters(link.portB).txPackets;
            }
        }
    }
    for (const auto& sw : fabric.GetSwitches())
    {
        hops += sw->GetReceived();
    }
    const double wall = std::chrono::duration<double>(runEnd - runStart).count();
    const double setup = std::chrono::duration<double>(runStart - setupStart).count();
    const uint64_t events = Simulator::GetEventCount();
    const double simUs = g_lastCompletion.GetMicroSeconds();
    Simulator::Destroy();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::cout << "hosts=" << hosts << " planes=" << planes << " setup_s=" << setup
              << " wall_s=" << wall << " cpu_s=" << cpu << " completion_us=" << simUs
              << " packets=" << sent << " packet_hops=" << hops << " events=" << events
              << " hops_per_s=" << static_cast<uint64_t>(hops / wall)
              << " events_per_s=" << static_cast<uint64_t>(events / wall)
              << " max_rss_mb=" << usage.ru_maxrss / 1024 << " completed=" << completed << "/"
              << hosts << "\n";
    return completed == hosts ? 0 : 1;
}
