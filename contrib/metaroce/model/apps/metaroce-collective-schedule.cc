#include "metaroce-collective-schedule.h"

#include "metaroce-tree-schedule.h"

#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// Bytes of blocks [lo, hi).
uint64_t
RangeBytes(uint64_t bytes, uint32_t blocks, uint32_t lo, uint32_t hi)
{
    uint64_t sum = 0;
    for (uint32_t b = lo; b < hi; ++b)
    {
        sum += BlockBytes(bytes, blocks, b);
    }
    return sum;
}

/// Bytes of one side (`sends` or `recvs`) of every step of `rank`.
uint64_t
ScheduleBytes(const MetaRoceSchedule& schedule,
              uint32_t rank,
              std::vector<MetaRoceTransfer> MetaRoceCollectiveStep::*side)
{
    uint64_t sum = 0;
    for (const auto& step : schedule.at(rank))
    {
        for (const auto& t : step.*side)
        {
            sum += t.bytes;
        }
    }
    return sum;
}

MetaRoceSchedule
Ring(uint32_t n, uint64_t bytes)
{
    // Step s: rank r forwards block (r - s) mod n to its successor and receives block
    // (r - s - 1) mod n from its predecessor; steps 0..n-2 reduce-scatter, n-1..2n-3 all-gather.
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(2 * (n - 1)));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t s = 0; s < 2 * (n - 1); ++s)
        {
            const uint32_t sendBlock = (r + 2 * n - s % n) % n;
            const uint32_t recvBlock = (r + 2 * n - s % n - 1) % n;
            schedule[r][s].sends.push_back({(r + 1) % n, BlockBytes(bytes, n, sendBlock)});
            schedule[r][s].recvs.push_back({(r + n - 1) % n, BlockBytes(bytes, n, recvBlock)});
        }
    }
    return schedule;
}

/**
 * One pass around a ring, n - 1 steps, the way NCCL's ring all-gather and reduce-scatter run:
 * in step s rank r sends block (r - s - shift) mod n to its successor. All-gather (shift 0)
 * starts with the rank's own block, which every other rank ends up holding; reduce-scatter
 * (shift 1) starts with the block of its predecessor, so that block r, reduced by every rank on
 * its way, ends at rank r.
 */
MetaRoceSchedule
RingPass(uint32_t n, uint64_t bytes, uint32_t shift)
{
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(n - 1));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t s = 0; s + 1 < n; ++s)
        {
            const uint32_t sendBlock = (r + 2 * n - s - shift) % n;
            const uint32_t recvBlock = (r + 2 * n - s - shift - 1) % n;
            schedule[r][s].sends.push_back({(r + 1) % n, BlockBytes(bytes, n, sendBlock)});
            schedule[r][s].recvs.push_back({(r + n - 1) % n, BlockBytes(bytes, n, recvBlock)});
        }
    }
    return schedule;
}

MetaRoceSchedule
HalvingDoubling(uint32_t n, uint64_t bytes)
{
    if ((n & (n - 1)) != 0)
    {
        throw std::invalid_argument("allreduce-hd needs a power-of-two number of ranks, not " +
                                    std::to_string(n));
    }
    MetaRoceSchedule schedule(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        // Reduce-scatter by recursive halving: exchange half of the current range with the
        // partner at distance d, keep the other half; the ranges visited are kept for the
        // all-gather, which retraces them by recursive doubling.
        std::vector<std::pair<uint32_t, uint32_t>> ranges{{0, n}};
        for (uint32_t d = n / 2; d >= 1; d /= 2)
        {
            const auto [lo, hi] = ranges.back();
            const uint32_t mid = (lo + hi) / 2;
            const bool lower = (r & d) == 0;
            const std::pair<uint32_t, uint32_t> keep =
                lower ? std::make_pair(lo, mid) : std::make_pair(mid, hi);
            const std::pair<uint32_t, uint32_t> give =
                lower ? std::make_pair(mid, hi) : std::make_pair(lo, mid);
            MetaRoceCollectiveStep step;
            step.sends.push_back({r ^ d, RangeBytes(bytes, n, give.first, give.second)});
            step.recvs.push_back({r ^ d, RangeBytes(bytes, n, keep.first, keep.second)});
            schedule[r].push_back(step);
            ranges.push_back(keep);
        }
        for (uint32_t d = 1; d < n; d *= 2)
        {
            const auto [lo, hi] = ranges.back();
            ranges.pop_back();
            const auto [plo, phi] = ranges.back();
            MetaRoceCollectiveStep step;
            step.sends.push_back({r ^ d, RangeBytes(bytes, n, lo, hi)});
            step.recvs.push_back(
                {r ^ d, RangeBytes(bytes, n, plo, phi) - RangeBytes(bytes, n, lo, hi)});
            schedule[r].push_back(step);
        }
    }
    return schedule;
}

MetaRoceSchedule
AllToAll(uint32_t n, uint64_t bytes)
{
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(1));
    for (uint32_t r = 0; r < n; ++r)
    {
        // Start with the next rank and wrap, so that not every rank hits rank 0 first.
        for (uint32_t k = 1; k < n; ++k)
        {
            const uint32_t peer = (r + k) % n;
            schedule[r][0].sends.push_back({peer, BlockBytes(bytes, n, peer)});
            schedule[r][0].recvs.push_back({(r + n - k) % n, BlockBytes(bytes, n, r)});
        }
    }
    return schedule;
}

MetaRoceSchedule
Permutation(uint32_t n, uint64_t bytes)
{
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(1));
    const uint32_t shift = n / 2;
    for (uint32_t r = 0; r < n; ++r)
    {
        schedule[r][0].sends.push_back({(r + shift) % n, bytes});
        schedule[r][0].recvs.push_back({(r + n - shift) % n, bytes});
    }
    return schedule;
}

MetaRoceSchedule
Incast(uint32_t n, uint64_t bytes)
{
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(1));
    for (uint32_t r = 1; r < n; ++r)
    {
        schedule[r][0].sends.push_back({0, bytes});
        schedule[0][0].recvs.push_back({r, bytes});
    }
    return schedule;
}

} // namespace

MetaRoceCollective
ParseCollective(const std::string& name)
{
    for (MetaRoceCollective c : {MetaRoceCollective::ALL_REDUCE_RING,
                                 MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING,
                                 MetaRoceCollective::ALL_TO_ALL,
                                 MetaRoceCollective::PERMUTATION,
                                 MetaRoceCollective::INCAST,
                                 MetaRoceCollective::ALL_GATHER_RING,
                                 MetaRoceCollective::REDUCE_SCATTER_RING,
                                 MetaRoceCollective::ALL_REDUCE_TREE,
                                 MetaRoceCollective::ALL_TO_ALLV})
    {
        if (CollectiveName(c) == name)
        {
            return c;
        }
    }
    throw std::invalid_argument("unknown workload '" + name +
                                "' (allreduce-ring, allreduce-hd, allreduce-tree, "
                                "allgather-ring, reducescatter-ring, alltoall, alltoallv, "
                                "permutation, incast)");
}

std::string
CollectiveName(MetaRoceCollective collective)
{
    switch (collective)
    {
    case MetaRoceCollective::ALL_REDUCE_RING:
        return "allreduce-ring";
    case MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING:
        return "allreduce-hd";
    case MetaRoceCollective::ALL_TO_ALL:
        return "alltoall";
    case MetaRoceCollective::PERMUTATION:
        return "permutation";
    case MetaRoceCollective::INCAST:
        return "incast";
    case MetaRoceCollective::ALL_GATHER_RING:
        return "allgather-ring";
    case MetaRoceCollective::REDUCE_SCATTER_RING:
        return "reducescatter-ring";
    case MetaRoceCollective::ALL_REDUCE_TREE:
        return "allreduce-tree";
    case MetaRoceCollective::ALL_TO_ALLV:
        return "alltoallv";
    }
    return "unknown";
}

MetaRoceSchedule
BuildSchedule(MetaRoceCollective collective, uint32_t ranks, uint64_t bytes)
{
    if (ranks < 2)
    {
        throw std::invalid_argument("a collective needs at least 2 ranks, not " +
                                    std::to_string(ranks));
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("a collective needs a message of at least 1 byte");
    }
    if (IsBlocked(collective) && bytes < ranks)
    {
        throw std::invalid_argument(CollectiveName(collective) + " of " + std::to_string(bytes) +
                                    " bytes over " + std::to_string(ranks) +
                                    " ranks: every rank's block would not hold a byte");
    }
    switch (collective)
    {
    case MetaRoceCollective::ALL_REDUCE_RING:
        return Ring(ranks, bytes);
    case MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING:
        return HalvingDoubling(ranks, bytes);
    case MetaRoceCollective::ALL_TO_ALL:
        return AllToAll(ranks, bytes);
    case MetaRoceCollective::PERMUTATION:
        return Permutation(ranks, bytes);
    case MetaRoceCollective::INCAST:
        return Incast(ranks, bytes);
    case MetaRoceCollective::ALL_GATHER_RING:
        return RingPass(ranks, bytes, 0);
    case MetaRoceCollective::REDUCE_SCATTER_RING:
        return RingPass(ranks, bytes, 1);
    case MetaRoceCollective::ALL_REDUCE_TREE:
    case MetaRoceCollective::ALL_TO_ALLV:
        break;
    }
    throw std::invalid_argument(CollectiveName(collective) +
                                " has no one-lane schedule (BuildPlan, BuildAllToAllV)");
}

double
BusBandwidthFactor(MetaRoceCollective collective, uint32_t ranks)
{
    const double n = ranks;
    switch (collective)
    {
    case MetaRoceCollective::ALL_REDUCE_RING:
    case MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING:
    case MetaRoceCollective::ALL_REDUCE_TREE:
        return 2 * (n - 1) / n;
    case MetaRoceCollective::ALL_TO_ALL:
    case MetaRoceCollective::ALL_TO_ALLV:
    case MetaRoceCollective::ALL_GATHER_RING:
    case MetaRoceCollective::REDUCE_SCATTER_RING:
        return (n - 1) / n;
    default:
        return 1;
    }
}

MetaRoceCollectivePlan
SingleLanePlan(MetaRoceSchedule schedule)
{
    MetaRoceCollectivePlan plan;
    plan.lanes.push_back(std::move(schedule));
    plan.laneSubChannel.push_back(0);
    return plan;
}

MetaRoceCollectivePlan
BuildPlan(MetaRoceCollective collective, uint32_t ranks, uint64_t bytes, uint64_t treeChunkBytes)
{
    if (collective == MetaRoceCollective::ALL_REDUCE_TREE)
    {
        return BuildTreePlan(ranks, bytes, treeChunkBytes);
    }
    return SingleLanePlan(BuildSchedule(collective, ranks, bytes));
}

uint64_t
PlanSentBytes(const MetaRoceCollectivePlan& plan, uint32_t rank)
{
    uint64_t sum = 0;
    for (const auto& lane : plan.lanes)
    {
        sum += ScheduleSentBytes(lane, rank);
    }
    return sum;
}

bool
IsBlocked(MetaRoceCollective collective)
{
    return collective == MetaRoceCollective::ALL_REDUCE_RING ||
           collective == MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING ||
           collective == MetaRoceCollective::ALL_TO_ALL ||
           collective == MetaRoceCollective::ALL_GATHER_RING ||
           collective == MetaRoceCollective::REDUCE_SCATTER_RING;
}

uint64_t
ScheduleSentBytes(const MetaRoceSchedule& schedule, uint32_t rank)
{
    return ScheduleBytes(schedule, rank, &MetaRoceCollectiveStep::sends);
}

uint64_t
ScheduleReceivedBytes(const MetaRoceSchedule& schedule, uint32_t rank)
{
    return ScheduleBytes(schedule, rank, &MetaRoceCollectiveStep::recvs);
}

uint64_t
BlockBytes(uint64_t bytes, uint32_t blocks, uint32_t index)
{
    return bytes / blocks + (index < bytes % blocks ? 1 : 0);
}

} // namespace ns3
