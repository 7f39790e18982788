#include "deadline-tree.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace metaroce
{

DeadlineTree::DeadlineTree(std::size_t slots)
    : m_slots(static_cast<uint32_t>(slots))
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
}

TimeNs
DeadlineTree::Get(std::size_t slot) const
{
    if (IsBuilt())
    {
        return m_leaf[slot];
    }
    for (std::size_t i = 0; i < m_fewCount && m_fewSlot[i] <= slot; ++i)
    {
        if (m_fewSlot[i] == slot)
        {
            return m_fewAt[i];
        }
    }
    return kNever;
}

bool
DeadlineTree::SetFew(std::size_t slot, TimeNs at)
{
    std::size_t i = 0;
    while (i < m_fewCount && m_fewSlot[i] < slot)
    {
        ++i;
    }
    const bool present = i < m_fewCount && m_fewSlot[i] == slot;
    if (present && at != kNever)
    {
        m_fewAt[i] = at;
        return true;
    }
    if (present)
    {
        for (std::size_t j = i + 1; j < m_fewCount; ++j)
        {
            m_fewSlot[j - 1] = m_fewSlot[j];
            m_fewAt[j - 1] = m_fewAt[j];
        }
        --m_fewCount;
        return true;
    }
    if (at == kNever)
    {
        return true;
    }
    if (m_fewCount == kFew)
    {
        return false;
    }
    for (std::size_t j = m_fewCount; j > i; --j)
    {
        m_fewSlot[j] = m_fewSlot[j - 1];
        m_fewAt[j] = m_fewAt[j - 1];
    }
    m_fewSlot[i] = static_cast<uint16_t>(slot);
    m_fewAt[i] = at;
    ++m_fewCount;
    return true;
}

void
DeadlineTree::Build()
{
    m_leaf.assign(m_leaves, kNever);
    for (std::size_t i = 0; i < m_fewCount; ++i)
    {
        m_leaf[m_fewSlot[i]] = m_fewAt[i];
    }
    m_fewCount = 0;
    // A node's winner is a function of the leaves below it (the leftmost of the earliest), so
    // building bottom-up gives exactly the state that setting the slots one by one would.
    m_winner.assign(m_leaves, 0);
    for (std::size_t node = m_leaves - 1; node >= 1; --node)
    {
        const uint16_t left = WinnerOf(2 * node);
        const uint16_t right = WinnerOf(2 * node + 1);
        m_winner[node] = m_leaf[left] <= m_leaf[right] ? left : right;
    }
}

} // namespace metaroce
