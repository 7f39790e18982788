#include "metaroce-tree-schedule.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// Parent of `rank` in the first tree over `n` ranks (-1 for the root, rank 0).
int64_t
BtreeParent(uint32_t n, uint32_t rank)
{
    if (rank == 0)
    {
        return -1;
    }
    const uint32_t low = rank & (~rank + 1); // the lowest set bit
    const uint64_t up = (rank ^ low) | (uint64_t(low) << 1);
    return up < n ? int64_t(up) : int64_t(rank ^ low);
}

/// A tree from each rank's parent: children in ascending order.
MetaRoceTree
FromParents(std::vector<int64_t> parent)
{
    MetaRoceTree tree;
    tree.children.resize(parent.size());
    for (uint32_t r = 0; r < parent.size(); ++r)
    {
        if (parent[r] < 0)
        {
            tree.root = r;
        }
        else
        {
            tree.children[parent[r]].push_back(r);
        }
    }
    tree.parent = std::move(parent);
    return tree;
}

/**
 * The two lanes of `tree` for a half of `bytes` cut into `chunks`: lanes[0] the reduce (with
 * the root's broadcast), lanes[1] the other ranks' broadcast.
 */
std::vector<MetaRoceSchedule>
TreeLanes(const MetaRoceTree& tree, uint64_t bytes, uint32_t chunks)
{
    const auto n = static_cast<uint32_t>(tree.parent.size());
    std::vector<MetaRoceSchedule> lanes(2, MetaRoceSchedule(n));
    const auto chunk = [bytes, chunks](uint32_t k) { return BlockBytes(bytes, chunks, k); };
    for (uint32_t r = 0; r < n; ++r)
    {
        const std::vector<uint32_t>& children = tree.children[r];
        if (children.empty())
        {
            // A leaf: its chunks up at once, then each chunk down as it comes.
            for (uint32_t k = 0; k < chunks; ++k)
            {
                MetaRoceCollectiveStep up;
                up.sends.push_back({static_cast<uint32_t>(tree.parent[r]), chunk(k)});
                lanes[0][r].push_back(up);
                MetaRoceCollectiveStep down;
                down.recvs.push_back({static_cast<uint32_t>(tree.parent[r]), chunk(k)});
                lanes[1][r].push_back(down);
            }
            continue;
        }
        // Step k waits for chunk k from below (reduce) or above (broadcast) and, on entry,
        // passes chunk k - 1 on: up to the parent, or down to the children.
        const bool root = tree.parent[r] < 0;
        for (uint32_t k = 0; k <= chunks; ++k)
        {
            MetaRoceCollectiveStep up;
            MetaRoceCollectiveStep down;
            for (uint32_t c : children)
            {
                if (k < chunks)
                {
                    up.recvs.push_back({c, chunk(k)});
                }
                if (k > 0)
                {
                    (root ? up : down).sends.push_back({c, chunk(k - 1)});
                }
            }
            if (!root)
            {
                if (k > 0)
                {
                    up.sends.push_back({static_cast<uint32_t>(tree.parent[r]), chunk(k - 1)});
                }
                if (k < chunks)
                {
                    down.recvs.push_back({static_cast<uint32_t>(tree.parent[r]), chunk(k)});
                }
                // The broadcast's step k waits for chunk k from the parent, and its entry
                // sends chunk k - 1 down: the same shape, in its own lane.
                lanes[1][r].push_back(down);
            }
            lanes[0][r].push_back(up);
        }
    }
    return lanes;
}

} // namespace

uint32_t
MetaRoceTree::Height() const
{
    uint32_t height = 0;
    for (uint32_t r = 0; r < parent.size(); ++r)
    {
        uint32_t depth = 0;
        for (int64_t p = parent[r]; p >= 0; p = parent[p])
        {
            ++depth;
        }
        height = std::max(height, depth);
    }
    return height;
}

std::vector<MetaRoceTree>
DoubleBinaryTree(uint32_t ranks)
{
    if (ranks < 2)
    {
        throw std::invalid_argument("a tree needs at least 2 ranks, not " + std::to_string(ranks));
    }
    std::vector<int64_t> first(ranks);
    std::vector<int64_t> second(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        first[r] = BtreeParent(ranks, r);
        if (ranks % 2 == 0)
        {
            // Mirrored: rank r plays rank n - 1 - r of the first tree.
            const int64_t p = BtreeParent(ranks, ranks - 1 - r);
            second[r] = p < 0 ? -1 : int64_t(ranks - 1) - p;
        }
        else
        {
            // Shifted: rank r plays rank r - 1 of the first tree.
            const int64_t p = BtreeParent(ranks, (r + ranks - 1) % ranks);
            second[r] = p < 0 ? -1 : (p + 1) % ranks;
        }
    }
    return {FromParents(std::move(first)), FromParents(std::move(second))};
}

MetaRoceCollectivePlan
BuildTreePlan(uint32_t ranks, uint64_t bytes, uint64_t chunkBytes)
{
    if (chunkBytes == 0)
    {
        throw std::invalid_argument("the tree's chunks need at least 1 byte");
    }
    if (bytes < 2)
    {
        throw std::invalid_argument("allreduce-tree of " + std::to_string(bytes) +
                                    " bytes: each of its two trees needs a byte");
    }
    const std::vector<MetaRoceTree> trees = DoubleBinaryTree(ranks);
    MetaRoceCollectivePlan plan;
    plan.subChannels = 2;
    plan.repetitionBarrier = true;
    for (uint32_t t = 0; t < 2; ++t)
    {
        const uint64_t half = BlockBytes(bytes, 2, t);
        const auto chunks =
            static_cast<uint32_t>(std::min<uint64_t>((half + chunkBytes - 1) / chunkBytes, half));
        for (MetaRoceSchedule& lane : TreeLanes(trees[t], half, chunks))
        {
            plan.lanes.push_back(std::move(lane));
            plan.laneSubChannel.push_back(t);
        }
    }
    return plan;
}

} // namespace ns3
