/*
 * One deadline per slot (a path, a port) and the earliest of them, kept as a binary min-tree
 * (a segment tree over the slots).
 *
 * A connection with 64 paths asked "when is your next deadline?" after every event used to scan
 * every path's state: tens of cache lines per question, most of them unchanged since the last
 * one (doc/benchmarks.md). Here a change of one slot costs O(log n) (it stops climbing as soon
 * as a parent's minimum does not change), the earliest deadline is read in O(1), and the slots
 * due by some time are visited in slot order in O(k log n), so that acting on them gives the
 * same order a scan would. The slots are fixed at construction; nothing allocates afterwards.
 *
 * A heap would answer "earliest" as fast, but not "every slot due by t, in slot order", which
 * the engines need to act on timeouts exactly as their specification's scans do (spec 2.3).
 */
#ifndef METAROCE_ENGINE_DEADLINE_TREE_H
#define METAROCE_ENGINE_DEADLINE_TREE_H

#include "engine-types.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace metaroce
{

/// Deadlines of a fixed number of slots (at most 65,536), every one kNever until set.
class DeadlineTree
{
  public:
    explicit DeadlineTree(std::size_t slots);

    std::size_t Size() const
    {
        return m_slots;
    }

    /// Sets the deadline of `slot` (kNever: none).
    void Set(std::size_t slot, TimeNs at);

    TimeNs Get(std::size_t slot) const
    {
        return m_leaf[slot];
    }

    /// The earliest deadline of all slots, kNever when none is set.
    TimeNs Min() const
    {
        return m_leaf[m_winner[1]];
    }

    /// The slot that holds Min() (the lowest-numbered of equal ones); meaningful when Min() is
    /// not kNever.
    std::size_t MinSlot() const
    {
        return m_winner[1];
    }

    /// Calls `f(slot)` for every slot whose deadline is <= `limit`, in ascending slot order.
    /// `f` must not change the tree (collect the slots first when acting on them changes it).
    template<typename F>
    void ForEachAtMost(TimeNs limit, F&& f) const
    {
        if (Min() <= limit)
        {
            Visit(1, limit, f);
        }
    }

  private:
    /// The earliest deadline under `node` (a leaf is node m_leaves + slot).
    TimeNs Value(std::size_t node) const
    {
        return node >= m_leaves ? m_leaf[node - m_leaves] : m_leaf[m_winner[node]];
    }

    template<typename F>
    void Visit(std::size_t node, TimeNs limit, F& f) const
    {
        if (node >= m_leaves)
        {
            if (node - m_leaves < m_slots)
            {
                f(node - m_leaves);
            }
            return;
        }
        for (std::size_t child : {2 * node, 2 * node + 1})
        {
            if (Value(child) <= limit)
            {
                Visit(child, limit, f);
            }
        }
    }

    std::size_t m_slots;
    std::size_t m_leaves; ///< a power of two >= max(m_slots, 2); leaf i is node m_leaves + i
    /// The deadlines, by slot (padded to m_leaves with kNever).
    std::vector<TimeNs> m_leaf;
    /// Internal node k (1 the root; children 2k and 2k + 1): the slot with the earliest
    /// deadline below it, the leftmost on ties. A slot number rather than its deadline: a
    /// quarter of the bytes, and a connection keeps four trees (doc/benchmarks.md).
    std::vector<uint16_t> m_winner;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_DEADLINE_TREE_H
