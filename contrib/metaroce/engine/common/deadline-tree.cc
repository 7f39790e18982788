#include "deadline-tree.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace metaroce
{

DeadlineTree::DeadlineTree(std::size_t slots)
    : m_slots(slots)
    , m_leaves(2)
{
    if (slots > std::size_t{std::numeric_limits<uint16_t>::max()} + 1)
    {
        throw std::invalid_argument("DeadlineTree: " + std::to_string(slots) +
                                    " slots, at most 65536");
    }
    while (m_leaves < slots)
    {
        m_leaves *= 2;
    }
    m_leaf.assign(m_leaves, kNever);
    // Every deadline is kNever: a node's winner is the leftmost slot below it.
    m_winner.assign(m_leaves, 0);
    for (std::size_t node = m_leaves - 1; node >= 1; --node)
    {
        const std::size_t left = 2 * node;
        m_winner[node] = left >= m_leaves ? static_cast<uint16_t>(left - m_leaves) : m_winner[left];
    }
}

void
DeadlineTree::Set(std::size_t slot, TimeNs at)
{
    if (m_leaf[slot] == at)
    {
        return;
    }
    m_leaf[slot] = at;
    // Climb while the winner of the subtree changes, or is this slot (its deadline changed);
    // above that point nothing does.
    for (std::size_t node = (m_leaves + slot) / 2; node >= 1; node /= 2)
    {
        const std::size_t left = 2 * node;
        const uint16_t leftWinner =
            left >= m_leaves ? static_cast<uint16_t>(left - m_leaves) : m_winner[left];
        const uint16_t rightWinner =
            left + 1 >= m_leaves ? static_cast<uint16_t>(left + 1 - m_leaves) : m_winner[left + 1];
        const uint16_t winner =
            m_leaf[leftWinner] <= m_leaf[rightWinner] ? leftWinner : rightWinner;
        if (m_winner[node] == winner && winner != slot)
        {
            break;
        }
        m_winner[node] = winner;
    }
}

} // namespace metaroce
