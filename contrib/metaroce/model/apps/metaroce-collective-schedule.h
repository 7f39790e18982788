/*
 * Collective communication as data: for every rank, the steps of an algorithm, each step a set
 * of messages to send and to receive. A rank starts step s + 1 once every message it expects in
 * step s has arrived (its sends may still be in flight: the queue pair keeps them in order), so
 * the data dependencies of the algorithm, not a global barrier, pace the collective - as in
 * NCCL's ring and tree kernels.
 *
 * The schedules are plain C++ (no ns-3 type), built by pure functions, so their byte counts are
 * checked without a simulator. Byte counts are exact: a buffer of S bytes is cut into N blocks of
 * floor(S / N) or floor(S / N) + 1 bytes, and every message carries whole blocks.
 *
 * Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md of nccl-tests): algbw = S / t, and
 * busbw = algbw x 2 (n - 1) / n for all-reduce (ring, halving-doubling or tree alike), x (n - 1)
 * / n for all-to-all, all-gather and reduce-scatter; 1 otherwise. S is nccl-tests' "size": the
 * all-reduce buffer, the all-gather's gathered (output) buffer, the reduce-scatter's input
 * buffer, the all-to-all's send buffer.
 *
 * Most collectives are one lane: a rank's steps run one after another. The tree all-reduce
 * (metaroce-tree-schedule.h) is several lanes that progress independently, as NCCL's tree
 * kernel runs its reduce and its broadcast side by side: a MetaRoceCollectivePlan.
 */
#ifndef METAROCE_COLLECTIVE_SCHEDULE_H
#define METAROCE_COLLECTIVE_SCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One message of a step: to (or from) `peer`, `bytes` long.
struct MetaRoceTransfer
{
    uint32_t peer{0};
    uint64_t bytes{0};
};

/// One step of one rank.
struct MetaRoceCollectiveStep
{
    std::vector<MetaRoceTransfer> sends;
    std::vector<MetaRoceTransfer> recvs;
};

/// The steps of every rank: schedule[rank][step].
using MetaRoceSchedule = std::vector<std::vector<MetaRoceCollectiveStep>>;

/// The collectives and traffic patterns the workload applications run.
enum class MetaRoceCollective
{
    ALL_REDUCE_RING,             ///< reduce-scatter then all-gather around a ring, 2(n-1) steps
    ALL_REDUCE_HALVING_DOUBLING, ///< Rabenseifner: recursive halving then doubling, 2 log2(n)
    ALL_TO_ALL,                  ///< every rank sends S / n to every other rank
    PERMUTATION,                 ///< rank r sends S to rank (r + n / 2) mod n
    INCAST,                      ///< every rank but 0 sends S to rank 0
    ALL_GATHER_RING,             ///< every rank's block S / n around a ring, n - 1 steps
    REDUCE_SCATTER_RING,         ///< partial blocks S / n reduced around a ring, n - 1 steps
    ALL_REDUCE_TREE,             ///< NCCL's double binary tree, pipelined in chunks
    ALL_TO_ALLV,                 ///< rank r sends M[r][d] bytes to rank d (a traffic matrix)
};

/**
 * \ingroup metaroce
 * A collective's work for one channel: independent lanes (each a MetaRoceSchedule that a rank
 * walks through at its own pace) and the sub-channel each lane's messages travel on. Lanes of
 * one sub-channel share its streams (MetaRoCE) or queue pairs (RoCEv2), so no two lanes of a
 * rank may receive from the same peer on one sub-channel (the k-th RECV completion of a stream
 * must be the k-th message a lane expects).
 */
struct MetaRoceCollectivePlan
{
    std::vector<MetaRoceSchedule> lanes;
    std::vector<uint32_t> laneSubChannel; ///< per lane, in [0, subChannels)
    uint32_t subChannels{1};
    /// The lanes of one rank start a repetition together (the tree: a rank's next all-reduce
    /// waits for its broadcast); otherwise each lane repeats on its own.
    bool repetitionBarrier{false};
};

/**
 * \ingroup metaroce
 * Parses "allreduce-ring", "allreduce-hd", "allreduce-tree", "allgather-ring",
 * "reducescatter-ring", "alltoall", "alltoallv", "permutation" or "incast"; throws
 * std::invalid_argument naming the text otherwise.
 */
MetaRoceCollective ParseCollective(const std::string& name);

/// The name ParseCollective() accepts.
std::string CollectiveName(MetaRoceCollective collective);

/**
 * \ingroup metaroce
 * The schedule of `collective` over `ranks` ranks for a buffer of `bytes` bytes (per rank, as
 * nccl-tests counts). Throws std::invalid_argument for impossible parameters (fewer than two
 * ranks, zero bytes, halving-doubling on a rank count that is not a power of two, fewer bytes
 * than blocks), naming the parameter. The tree (several lanes) and alltoallv (a matrix) have
 * builders of their own: BuildPlan() and BuildAllToAllV().
 */
MetaRoceSchedule BuildSchedule(MetaRoceCollective collective, uint32_t ranks, uint64_t bytes);

/**
 * \ingroup metaroce
 * The plan of `collective` for one channel's `bytes`: BuildSchedule() as one lane, or the tree's
 * lanes (BuildTreePlan() with `treeChunkBytes`). Throws as BuildSchedule() does; alltoallv has
 * no plan without its matrix.
 */
MetaRoceCollectivePlan BuildPlan(MetaRoceCollective collective,
                                 uint32_t ranks,
                                 uint64_t bytes,
                                 uint64_t treeChunkBytes);

/// A one-lane plan of `schedule`.
MetaRoceCollectivePlan SingleLanePlan(MetaRoceSchedule schedule);

/// Bytes `rank` sends over every lane of `plan`.
uint64_t PlanSentBytes(const MetaRoceCollectivePlan& plan, uint32_t rank);

/// True when `collective` cuts the buffer into a block per rank (so it needs bytes >= ranks).
bool IsBlocked(MetaRoceCollective collective);

/// nccl-tests' bus-bandwidth factor: busbw = algbw x factor.
double BusBandwidthFactor(MetaRoceCollective collective, uint32_t ranks);

/// Bytes sent by `rank` over the whole schedule.
uint64_t ScheduleSentBytes(const MetaRoceSchedule& schedule, uint32_t rank);

/// Bytes received by `rank` over the whole schedule.
uint64_t ScheduleReceivedBytes(const MetaRoceSchedule& schedule, uint32_t rank);

/// Size of block `index` when `bytes` are cut into `blocks` nearly equal blocks.
uint64_t BlockBytes(uint64_t bytes, uint32_t blocks, uint32_t index);

} // namespace ns3

#endif // METAROCE_COLLECTIVE_SCHEDULE_H
