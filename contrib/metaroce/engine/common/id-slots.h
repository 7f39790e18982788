/*
 * Values under ids dealt in increasing order and removed in any order: a ring of slots from the
 * oldest id still held to the newest. A look-up is an index into one array instead of a hash,
 * a bucket and a node (the send queue's messages, spec 7.1, looked up for every packet sent and
 * every packet acknowledged; doc/performance.md). An id removed before older ones leaves an empty
 * slot until those go too, so the ring spans what is outstanding plus such holes.
 */
#ifndef METAROCE_ENGINE_ID_SLOTS_H
#define METAROCE_ENGINE_ID_SLOTS_H

#include "ring.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

namespace metaroce
{

/// Values by consecutive ids (see the file comment).
template<class T>
class IdSlots
{
  public:
    /// Adds `value` under `id`, one above the newest id added (any id when none is held).
    T& Add(uint64_t id, T value)
    {
        if (m_slots.empty())
        {
            m_first = id;
        }
        else if (id != m_first + m_slots.size())
        {
            throw std::invalid_argument("IdSlots: ids must be added in order");
        }
        std::optional<T>& slot = m_slots.emplace_back();
        ++m_count;
        return slot.emplace(std::move(value));
    }

    /// The value under `id`, or nullptr.
    T* Find(uint64_t id)
    {
        return const_cast<T*>(std::as_const(*this).Find(id));
    }

    const T* Find(uint64_t id) const
    {
        if (id < m_first || id - m_first >= m_slots.size())
        {
            return nullptr;
        }
        const std::optional<T>& slot = m_slots[id - m_first];
        return slot ? &*slot : nullptr;
    }

    /// Removes the value under `id`, if there is one.
    void Erase(uint64_t id)
    {
        if (Find(id) == nullptr)
        {
            return;
        }
        m_slots[id - m_first].reset();
        --m_count;
        while (!m_slots.empty() && !m_slots.front())
        {
            m_slots.pop_front();
            ++m_first;
        }
    }

    bool Empty() const
    {
        return m_count == 0;
    }

    std::size_t Size() const
    {
        return m_count;
    }

    /// Calls `f(id, value)` for every value held, oldest id first.
    template<class F>
    void ForEach(F f)
    {
        for (std::size_t i = 0; i < m_slots.size(); ++i)
        {
            if (m_slots[i])
            {
                f(m_first + i, *m_slots[i]);
            }
        }
    }

  private:
    Ring<std::optional<T>> m_slots;
    uint64_t m_first{0}; ///< the id of m_slots.front()
    std::size_t m_count{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ID_SLOTS_H
