/*
 * MetaRoceMpi: what the experiments need of a distributed run, in one place, whether or not ns-3
 * was built with its MPI module (the in-tree build configured with --enable-mpi; Debian's
 * installed ns-3 has none).
 *
 *   mpirun -np 2 ./ns3 run "metaroce-distributed --sync=granted"
 *
 * Enable() starts MPI and selects ns-3's distributed simulator: "granted" (granted-time window,
 * ns3::DistributedSimulatorImpl: all ranks advance a lookahead at a time, one collective per
 * window) or "null" (null messages, ns3::NullMessageSimulatorImpl: each rank advances as far as
 * its neighbours' guarantees allow). Without MPI every call is the one-process answer, and
 * Enable() refuses in one line.
 */
#ifndef METAROCE_MPI_H
#define METAROCE_MPI_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Node;

/**
 * \ingroup metaroce
 * \brief Distributed-run plumbing (see the file comment).
 */
class MetaRoceMpi
{
  public:
    /// True when built against ns-3's MPI module.
    static bool IsAvailable();
    /// How many processes the launcher started (mpirun's OMPI_COMM_WORLD_SIZE or PMI_SIZE), 1
    /// when not launched by one.
    static uint32_t LaunchedProcesses();
    /// Starts MPI and the distributed simulator with synchronisation `sync` ("granted" or
    /// "null"); throws std::invalid_argument naming the problem (no MPI in this build, an
    /// unknown algorithm).
    static void Enable(int* argc, char*** argv, const std::string& sync);
    static bool IsEnabled();
    /// This process's rank and the number of ranks (0 and 1 when not enabled).
    static uint32_t GetRank();
    static uint32_t GetSize();
    /// True when `node` is simulated by this process (always, in a one-process run). The other
    /// ranks' nodes exist here as copies that never run, their counters zero.
    static bool IsLocal(const Node& node);
    /// Element-wise sum over the ranks (every rank must call it, in the same order).
    static std::vector<uint64_t> Sum(std::vector<uint64_t> values);
    /// Element-wise maximum over the ranks.
    static std::vector<uint64_t> Max(std::vector<uint64_t> values);
    /// Every rank's `values` (of any length), concatenated in rank order, on every rank.
    static std::vector<uint64_t> Gather(std::vector<uint64_t> values);
    /// Packets this rank's links sent to / received from other ranks.
    static uint64_t GetRemoteSent();
    static uint64_t GetRemoteReceived();
    /// Ends MPI (after the last simulation of the process).
    static void Disable();
    /// Ends every rank with exit status `code` (a rank that fails must not leave the others
    /// waiting for it); exits this process alone when MPI is not enabled.
    [[noreturn]] static void Abort(int code);
};

} // namespace ns3

#endif /* METAROCE_MPI_H */
