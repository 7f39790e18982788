#include "metaroce-comparison.h"

#include "metaroce-atomic-file.h"
#include "metaroce-command-line.h"
#include "metaroce-experiment.h"
#include "metaroce-options.h"
#include "metaroce-transports.h"

#include "ns3/command-line.h"
#include "ns3/metaroce-mpi.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

std::string
FilePart(double loss)
{
    std::ostringstream os;
    os << "loss" << loss * 100;
    return os.str();
}

/// Link ends a packet between two hosts on different leaves meets, each dropping at `loss`:
/// host-leaf, leaf-spine, spine-leaf, leaf-host; two more through a fat-tree's core; two on a
/// single leaf. In a rail fabric (intra-server links lossless): two within a group of servers
/// (server-leaf, leaf-server), four between groups.
uint32_t
LossPointsPerPath(const MetaRoceExperimentConfig& c)
{
    if (c.topology == "rail")
    {
        return c.hosts / c.railGpus <= c.hostsPerLeaf ? 2 : 4;
    }
    if (c.hosts <= c.hostsPerLeaf)
    {
        return 2;
    }
    return c.topology == "fat-tree" ? 6 : 4;
}

/// Leaves per plane (rail leaves in a rail fabric).
uint32_t
Leaves(const MetaRoceExperimentConfig& c)
{
    if (c.topology == "rail")
    {
        const uint32_t servers = c.hosts / c.railGpus;
        return c.railGpus * ((servers + c.hostsPerLeaf - 1) / c.hostsPerLeaf);
    }
    return (c.hosts + c.hostsPerLeaf - 1) / c.hostsPerLeaf;
}

double
PathLoss(double linkEndLoss, uint32_t points)
{
    return 1 - std::pow(1 - linkEndLoss, points);
}

} // namespace

MetaRoceComparison::MetaRoceComparison(const MetaRoceExperimentConfig& base,
                                       const std::string& workloads,
                                       const std::string& transports,
                                       const std::string& losses,
                                       const MetaRoceExperimentConfig& defaults)
{
    const auto lossList = ParseProbabilityList("loss", losses);
    // Before the per-run suffixes, to name what was given.
    ValidateOutputPrefix("pcap", base.pcap);
    ValidateOutputPrefix("output", base.output);
    for (const auto& workload : SplitOptionList("workloads", workloads))
    {
        for (const auto& transport : SplitOptionList("transports", transports))
        {
            for (double loss : lossList)
            {
                MetaRoceExperimentConfig c = base;
                c.workload = workload;
                c.transport = transport;
                c.loss = loss;
                const std::string run = "-" + workload + "-" + transport + "-" + FilePart(loss);
                if (!base.output.empty())
                {
                    c.output = base.output + run;
                }
                if (!base.pcap.empty())
                {
                    c.pcap = base.pcap + run; // runs of a grid must not overwrite each other
                }
                c.Validate();
                m_runs.push_back(c);
            }
        }
    }
    // An option no run uses (each run's unused ones, kept while every run has them).
    std::vector<std::string> unused = m_runs.front().UnusedOptions(defaults);
    for (const auto& c : m_runs)
    {
        const std::vector<std::string> more = c.UnusedOptions(defaults);
        unused.erase(std::remove_if(unused.begin(),
                                    unused.end(),
                                    [&more](const std::string& u) {
                                        return std::find(more.begin(), more.end(), u) == more.end();
                                    }),
                     unused.end());
    }
    if (!unused.empty())
    {
        throw std::invalid_argument(unused.front());
    }
}

std::vector<MetaRoceExperimentResults>
MetaRoceComparison::Run(std::ostream& os)
{
    std::vector<MetaRoceExperimentResults> results;
    const auto& first = m_runs.front();
    os << first.hosts << " hosts, " << first.planes << " planes x (" << Leaves(first) << " leaves, "
       << first.spines << " spines), " << first.hostRate << " host links, " << first.messageBytes
       << " B per rank\n";
    if (first.topology == "rail")
    {
        os << "rail-optimized: servers of " << first.railGpus << " GPUs on " << first.serverRate
           << " intra-server links, " << first.hostsPerLeaf << " servers per rail leaf\n";
    }
    os << "loss: random drops at every link end; a packet between leaves meets "
       << LossPointsPerPath(first) << ", so per path = 1-(1-loss)^" << LossPointsPerPath(first)
       << ".\nThe announced 'about 86% of throughput at 1% packet loss' is 1% per path (0.25% "
       << "per link end).\nkept: bus bandwidth over the same transport's lossless run; spur: "
       << "retransmissions the receiver already had.\n\n"
       << std::left << std::setw(16) << "workload" << std::setw(16) << "transport" << std::right
       << std::setw(6) << "loss" << std::setw(6) << "path" << std::setw(11) << "time (us)"
       << std::setw(9) << "algbw" << std::setw(9) << "busbw" << std::setw(8) << "kept"
       << std::setw(10) << "FCT p99" << std::setw(9) << "retx" << std::setw(7) << "spur"
       << std::setw(6) << "RTOs" << std::setw(8) << "drops" << std::setw(8) << "pauses"
       << std::setw(8) << "wall s"
       << "\n"
       << std::setw(38) << "end" << std::setw(26) << "GB/s" << std::setw(9) << "GB/s"
       << std::setw(8) << "%" << std::setw(10) << "us"
       << "\n";
    // The lossless busbw of each (workload, transport), for the "kept" column.
    std::map<std::pair<std::string, std::string>, double> lossless;
    for (const auto& c : m_runs)
    {
        MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        const double bw = r.collective.name.empty() ? r.goodputGbps / 8 : r.collective.busBwGBps;
        const auto key = std::make_pair(c.workload, c.transport);
        if (c.loss == 0)
        {
            lossless[key] = bw;
        }
        uint64_t drops = 0;
        for (const auto& [reason, n] : r.drops)
        {
            drops += reason.rfind("nic-", 0) == 0 ? 0 : n;
        }
        os << std::left << std::setw(16) << c.workload << std::setw(16) << c.transport << std::right
           << std::fixed << std::setprecision(2) << std::setw(5) << c.loss * 100 << "%"
           << std::setprecision(1) << std::setw(5) << PathLoss(c.loss, LossPointsPerPath(c)) * 100
           << "%" << std::setw(11) << r.durationUs << std::setw(9) << r.collective.algBwGBps
           << std::setw(9) << bw;
        if (lossless.count(key) && lossless[key] > 0)
        {
            os << std::setw(8) << 100 * bw / lossless[key];
        }
        else
        {
            os << std::setw(8) << "-";
        }
        os << std::setw(10) << r.fctP99Us << std::setw(9) << r.retransmitted << std::setw(7)
           << r.SpuriousRetransmissions() << std::setw(6) << r.timeouts << std::setw(8) << drops
           << std::setw(8) << r.pfcPauses << std::setw(8) << std::setprecision(2) << r.wallSeconds
           << std::defaultfloat;
        if (!r.complete)
        {
            os << "  INCOMPLETE";
            m_allComplete = false;
        }
        os << "\n" << std::flush;
        results.push_back(std::move(r));
    }
    return results;
}

std::size_t
MetaRoceComparison::GetNRuns() const
{
    return m_runs.size();
}

bool
MetaRoceComparison::AllComplete() const
{
    return m_allComplete;
}

int
RunComparisonMain(int argc,
                  char* argv[],
                  const std::string& program,
                  const MetaRoceExperimentConfig& base)
{
    MetaRoceExperimentConfig config = base;
    std::string workloads = "allreduce-ring,alltoall";
    std::string transports = "metaroce,rocev2,rocev2-pfc";
    // Lossless, the announced point (1% per path) and 1% at every link end.
    std::string losses = "0,0.0025,0.01";
    CommandLine cmd(program);
    config.AddOptions(cmd, false);
    AddStringOption(cmd, "workloads", "comma-separated workloads", workloads);
    AddStringOption(cmd,
                    "transports",
                    "comma-separated transports: " + MetaRoceTransportNames() +
                        " (metaroce-transports.h describes each)",
                    transports);
    AddStringOption(cmd, "losses", "comma-separated loss probabilities at every link end", losses);
    std::string sync = "granted";
    AddStringOption(cmd,
                    "sync",
                    "synchronisation when launched as MPI processes: granted or null",
                    sync);
    if (!ParseCommandLine(cmd, argc, argv, program))
    {
        return 2;
    }
    const uint32_t processes = MetaRoceMpi::LaunchedProcesses();
    try
    {
        if (sync != "granted" && sync != "null")
        {
            throw std::invalid_argument("--sync: '" + sync + "' is not granted or null");
        }
        MetaRoceComparison comparison(config, workloads, transports, losses, base);
        if (processes > 1)
        {
            // ns-3.37 sets its MPI interface up once per process and tears it down with the
            // first simulation: one experiment per distributed run.
            if (comparison.GetNRuns() != 1)
            {
                throw std::invalid_argument(
                    "launched as " + std::to_string(processes) +
                    " MPI processes: a distributed run simulates one experiment, not " +
                    std::to_string(comparison.GetNRuns()) +
                    "; choose one each of --workloads, --transports and --losses");
            }
            MetaRoceMpi::Enable(&argc, &argv, sync);
        }
        // Every rank holds the combined results; rank 0 prints them.
        std::ostringstream elsewhere;
        std::ostream& os = MetaRoceMpi::GetRank() == 0 ? std::cout : elsewhere;
        const auto results = comparison.Run(os);
        if (MetaRoceMpi::IsEnabled())
        {
            std::clog << "rank " << MetaRoceMpi::GetRank() << " of " << MetaRoceMpi::GetSize()
                      << ": wall " << results.front().wallSeconds << " s, events "
                      << results.front().rankEvents << ", packet-hops "
                      << results.front().rankPacketHops << std::endl;
            MetaRoceMpi::Disable();
        }
        MetaRoceFlushStandardOutput(); // the table, if stdout is a file on a full disk
        return comparison.AllComplete() ? 0 : 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": " << e.what() << "\n";
        if (processes > 1)
        {
            MetaRoceMpi::Abort(2); // the other ranks must not wait for this one
        }
        return 2;
    }
}

} // namespace ns3
