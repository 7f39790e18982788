#include "deadline-tree.h"

#include <algorithm>

namespace metaroce
{

DeadlineTree::DeadlineTree(std::size_t slots)
    : m_slots(slots)
    , m_leaves(1)
{
    while (m_leaves < slots)
    {
        m_leaves *= 2;
    }
    m_node.assign(2 * m_leaves, kNever);
}

void
DeadlineTree::Set(std::size_t slot, TimeNs at)
{
    std::size_t node = m_leaves + slot;
    if (m_node[node] == at)
    {
        return;
    }
    m_node[node] = at;
    // Climb while the minimum of the subtree changes; above that point nothing does.
    for (node /= 2; node >= 1; node /= 2)
    {
        const TimeNs min = std::min(m_node[2 * node], m_node[2 * node + 1]);
        if (m_node[node] == min)
        {
            break;
        }
        m_node[node] = min;
    }
}

} // namespace metaroce
