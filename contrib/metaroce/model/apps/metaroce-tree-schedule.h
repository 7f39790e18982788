/*
 * The tree all-reduce as NCCL runs it between nodes: a double binary tree, pipelined in chunks.
 *
 * Two binary trees span the ranks so that a rank that is an inner node in one tree is a leaf (or
 * close to one) in the other: each tree carries half of the buffer, and every rank sends and
 * receives about twice the buffer in all, whatever the number of ranks (against 2 (n - 1) / n
 * for the ring), in about 2 log2(n) latencies instead of 2 (n - 1).
 *
 * The first tree is NCCL's "btree" over ranks 0..n-1. Rank 0 is the root and has one child, the
 * largest power of two below n (n / 2 for a power of two). Any other rank r, whose lowest set
 * bit is b, hangs under the rank that has b cleared and 2b set, which is r + b when r has bit
 * 2b clear and r - b when it is set; when that rank does not exist (it is n or above), under r
 * with b cleared. Odd ranks are leaves. For 8 ranks: 0 -> 4; 4 -> 2, 6; 2 -> 1, 3; 6 -> 5, 7.
 * The second tree mirrors the first (rank r plays rank n - 1 - r) when n is even and shifts it
 * by one rank (rank r plays rank r - 1) when n is odd.
 *
 * Each tree's half is cut into chunks of at most `chunkBytes`. Reduce: a rank passes chunk k to
 * its parent once chunk k has arrived from each of its children (leaves send at once).
 * Broadcast: the root sends chunk k back down once its child's chunk k has arrived; every other
 * rank forwards chunk k to its children once it has arrived from its parent. A rank's reduce
 * and broadcast are separate lanes (they wait for different peers and overlap, as NCCL's
 * reduce and broadcast warps do); the root's are one, as its broadcast waits for its reduce.
 * Tree t travels on sub-channel t: its own stream (MetaRoCE) or queue pair (RoCEv2) per peer.
 */
#ifndef METAROCE_TREE_SCHEDULE_H
#define METAROCE_TREE_SCHEDULE_H

#include "metaroce-collective-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// The default chunk of the tree's pipeline (NCCL's is of this order: a few hundred KiB).
constexpr uint64_t kDefaultTreeChunkBytes = 256 * 1024;

/// One binary tree over ranks: parent[r] (-1 at the root) and children[r], ascending.
struct MetaRoceTree
{
    std::vector<int64_t> parent;
    std::vector<std::vector<uint32_t>> children;
    uint32_t root{0};

    /// Levels below the root to the deepest leaf.
    uint32_t Height() const;
};

/**
 * \ingroup metaroce
 * The two trees of NCCL's double binary tree over `ranks` ranks (>= 2), as described above.
 */
std::vector<MetaRoceTree> DoubleBinaryTree(uint32_t ranks);

/**
 * \ingroup metaroce
 * The plan of one channel's `bytes` (>= 2: a byte per tree) of the tree all-reduce: two
 * sub-channels (one per tree), four lanes (each tree's reduce and broadcast), chunks of at most
 * `chunkBytes` (>= 1). Throws std::invalid_argument naming the parameter.
 */
MetaRoceCollectivePlan BuildTreePlan(uint32_t ranks, uint64_t bytes, uint64_t chunkBytes);

} // namespace ns3

#endif // METAROCE_TREE_SCHEDULE_H
