/*
 * One deadline per slot (a path, a port) and the earliest of them, kept as a binary min-tree
 * (a segment tree over the slots) once more than a few slots have one.
 *
 * A connection with 64 paths asked "when is your next deadline?" after every event used to scan
 * every path's state: tens of cache lines per question, most of them unchanged since the last
 * one (doc/performance.md). Here a change of one slot costs O(log n) (it stops climbing as soon
 * as a parent's minimum does not change), the earliest deadline is read in O(1), and the slots
 * due by some time are visited in slot order in O(k log n), so that acting on them gives the
 * same order a scan would.
 *
 * Most connections of a large all-to-all use one or two paths (a message of a few packets), so
 * the tree is built only when a fifth slot gets a deadline; until then the deadlines sit in a
 * short list in the object itself, sorted by slot. That list answers every question the same
 * way the tree would (the earliest, the lowest slot among equal ones, the due slots in slot
 * order), from the object itself and without the tree's 640 bytes per 64 slots. Once built, the
 * tree stays.
 *
 * A heap would answer "earliest" as fast, but not "every slot due by t, in slot order", which
 * the engines need to act on timeouts exactly as their specification's scans do (spec 1.3).
 */
#ifndef METAROCE_ENGINE_DEADLINE_TREE_H
#define METAROCE_ENGINE_DEADLINE_TREE_H

#include "engine-types.h"

#include <algorithm>
#include <array>
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

    /// Sets the deadline of `slot` (kNever: none). Inline with the tree's climb: the engines
    /// call it after every packet.
    void Set(std::size_t slot, TimeNs at)
    {
        if (!IsBuilt() && !SetFew(slot, at))
        {
            Build();
        }
        if (IsBuilt())
        {
            SetInTree(slot, at);
        }
    }

    TimeNs Get(std::size_t slot) const;

    /// The earliest deadline of all slots, kNever when none is set.
    TimeNs Min() const
    {
        return IsBuilt() ? m_leaf[m_winner[1]] : (m_fewCount == 0 ? kNever : m_fewAt[FewMin()]);
    }

    /// The slot that holds Min() (the lowest-numbered of equal ones); meaningful when Min() is
    /// not kNever.
    std::size_t MinSlot() const
    {
        return IsBuilt() ? m_winner[1] : (m_fewCount == 0 ? 0 : m_fewSlot[FewMin()]);
    }

    /// Calls `f(slot)` for every slot whose deadline is <= `limit`, in ascending slot order;
    /// never for a slot without one (kNever), even when `limit` is kNever. `f` must not change
    /// the tree (collect the slots first when acting on them changes it).
    template<typename F>
    void ForEachAtMost(TimeNs limit, F&& f) const
    {
        limit = std::min(limit, kNever - 1);
        if (!IsBuilt())
        {
            for (std::size_t i = 0; i < m_fewCount; ++i)
            {
                if (m_fewAt[i] <= limit)
                {
                    f(std::size_t{m_fewSlot[i]});
                }
            }
        }
        else if (Min() <= limit)
        {
            Visit(1, limit, f);
        }
    }

    /// Whether the slots outgrew the short list and the tree was built (for tests).
    bool IsBuilt() const
    {
        return !m_winner.empty();
    }

  private:
    /// Slots with a deadline that the short list holds before the tree is built.
    static constexpr std::size_t kFew = 4;

    /// The index in the short list of the earliest deadline, the first (lowest slot) of equal
    /// ones; m_fewCount > 0.
    std::size_t FewMin() const
    {
        std::size_t best = 0;
        for (std::size_t i = 1; i < m_fewCount; ++i)
        {
            best = m_fewAt[i] < m_fewAt[best] ? i : best;
        }
        return best;
    }

    /// Sets a deadline in the short list; false when it is full and `slot` is not in it.
    bool SetFew(std::size_t slot, TimeNs at);

    /// Moves the short list into a tree over all slots.
    void Build();

    /// Sets a deadline in the built tree.
    void SetInTree(std::size_t slot, TimeNs at)
    {
        if (m_leaf[slot] == at)
        {
            return;
        }
        m_leaf[slot] = at;
        // Climb while the winner of the subtree changes, or is this slot (its deadline
        // changed); above that point nothing does.
        for (std::size_t node = (m_leaves + slot) / 2; node >= 1; node /= 2)
        {
            const uint16_t leftWinner = WinnerOf(2 * node);
            const uint16_t rightWinner = WinnerOf(2 * node + 1);
            const uint16_t winner =
                m_leaf[leftWinner] <= m_leaf[rightWinner] ? leftWinner : rightWinner;
            if (m_winner[node] == winner && winner != slot)
            {
                break;
            }
            m_winner[node] = winner;
        }
    }

    /// The winner of `node`'s subtree, or the slot of a leaf (leaf i is node m_leaves + i).
    uint16_t WinnerOf(std::size_t node) const
    {
        return node >= m_leaves ? static_cast<uint16_t>(node - m_leaves) : m_winner[node];
    }

    /// The earliest deadline under `node` (a leaf is node m_leaves + slot).
    TimeNs Value(std::size_t node) const
    {
        return m_leaf[WinnerOf(node)];
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

    uint32_t m_slots;
    uint32_t m_leaves; ///< a power of two >= max(m_slots, 2); leaf i is node m_leaves + i
    /// Before the tree is built: how many slots have a deadline, those slots in ascending
    /// order, and their deadlines (never kNever).
    uint8_t m_fewCount{0};
    std::array<uint16_t, kFew> m_fewSlot{};
    std::array<TimeNs, kFew> m_fewAt{};
    /// Once built: the deadlines, by slot (padded to m_leaves with kNever).
    std::vector<TimeNs> m_leaf;
    /// Once built, internal node k (1 the root; children 2k and 2k + 1): the slot with the
    /// earliest deadline below it, the leftmost on ties. A slot number rather than its
    /// deadline: a quarter of the bytes, and a connection keeps three trees
    /// (doc/performance.md).
    std::vector<uint16_t> m_winner;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_DEADLINE_TREE_H
