/*
 * metaroce-distributed: one experiment on ns-3's distributed simulator, its figures summed over
 * the ranks; run on one process, it prints the same line from a sequential run.
 *
 *   ./ns3 run "metaroce-distributed --hosts=8"                      # sequential
 *   mpirun -np 2 ./build/contrib/metaroce/examples/ns3.37-metaroce-distributed-optimized \
 *       --hosts=8 --sync=granted                                     # 2 ranks (or --sync=null)
 *
 * Each rank simulates the hosts of its block of leaves (MetaRoceFabricPartition::ByLeaf), their
 * leaves on every plane and a share of the spines, and prints its wall time, events and
 * packet-hops; the ranks then combine their counts, so that the line "result ..." (rank 0's) and
 * the files of --output (written by rank 0) equal the sequential run's (test/in-tree/run.sh
 * checks both). Built only where ns-3 has its MPI module.
 */
#include "ns3/command-line.h"
#include "ns3/metaroce-command-line.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-mpi.h"

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
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        std::cout << "rank " << MetaRoceMpi::GetRank() << " of " << MetaRoceMpi::GetSize()
                  << ": wall " << r.wallSeconds << " s, events " << r.rankEvents << ", packet-hops "
                  << r.rankPacketHops << std::endl;
        if (MetaRoceMpi::GetRank() == 0)
        {
            std::cout << "result collective_end_ns=" << Ns(r.collective.endUs)
                      << " sim_end_ns=" << Ns(r.simEndUs)
                      << " bytes_sent=" << r.collective.bytesSent
                      << " errors=" << r.collective.errors << " messages=" << r.messagesCompleted
                      << " data_packets=" << r.dataPackets << " retransmitted=" << r.retransmitted
                      << " timeouts=" << r.timeouts << " packet_hops=" << r.packetHops << std::endl;
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
