/*
 * metaroce-distributed: one experiment on ns-3's distributed simulator, its figures summed over
 * the ranks; run on one process, it prints the same line from a sequential run.
 *
 *   ./ns3 run "metaroce-distributed --hosts=8"                      # sequential
 *   mpirun -np 2 ./build/contrib/metaroce/examples/ns3.37-metaroce-distributed-optimized \
 *       --hosts=8 --sync=granted                                     # 2 ranks (or --sync=null)
 *
 * Each rank simulates the hosts of its block of leaves (MetaRoceFabricPartition::ByLeaf), their
 * leaves on every plane and a share of the spines; the line "result ..." is rank 0's, with every
 * figure combined over the ranks, and must equal the sequential run's (test/in-tree/run.sh
 * checks it). Built only where ns-3 has its MPI module.
 */
#include "ns3/command-line.h"
#include "ns3/metaroce-command-line.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-mpi.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

uint64_t
Ns(double us)
{
    return static_cast<uint64_t>(std::llround(us * 1e3));
}

} // namespace

int
main(int argc, char* argv[])
{
    try
    {
        MetaRoceExperimentConfig c;
        c.hosts = 8;
        c.planes = 2;
        c.hostsPerLeaf = 4;
        c.spines = 2;
        c.workload = "allreduce-ring";
        c.messageBytes = 1 << 20;
        std::string sync = "granted";
        CommandLine cmd(__FILE__);
        c.AddOptions(cmd);
        AddStringOption(cmd, "sync", "synchronisation of a distributed run: granted or null", sync);
        if (!ParseCommandLine(cmd, argc, argv, "metaroce-distributed"))
        {
            return 2;
        }
        c.Validate();
        if (MetaRoceMpi::LaunchedProcesses() > 1)
        {
            MetaRoceMpi::Enable(&argc, &argv, sync);
        }
        const auto wallStart = std::chrono::steady_clock::now();
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        const std::vector<uint64_t> sums = MetaRoceMpi::Sum({r.collective.bytesSent,
                                                             r.collective.errors,
                                                             r.messagesCompleted,
                                                             r.dataPackets,
                                                             r.retransmitted,
                                                             r.timeouts,
                                                             r.packetHops});
        const std::vector<uint64_t> maxima =
            MetaRoceMpi::Max({Ns(r.collective.endUs), Ns(r.simEndUs)});
        std::cout << "rank " << MetaRoceMpi::GetRank() << " of " << MetaRoceMpi::GetSize()
                  << ": wall " << wall << " s, local packet-hops " << r.packetHops << std::endl;
        if (MetaRoceMpi::GetRank() == 0)
        {
            std::cout << "result collective_end_ns=" << maxima[0] << " sim_end_ns=" << maxima[1]
                      << " bytes_sent=" << sums[0] << " errors=" << sums[1]
                      << " messages=" << sums[2] << " data_packets=" << sums[3]
                      << " retransmitted=" << sums[4] << " timeouts=" << sums[5]
                      << " packet_hops=" << sums[6] << std::endl;
        }
        MetaRoceMpi::Disable();
    }
    catch (const std::exception& e)
    {
        // One line, then every rank ends: the others must not wait for this one.
        std::cerr << "metaroce-distributed: " << e.what() << std::endl;
        MetaRoceMpi::Abort(2);
    }
    return 0;
}
