/*
 * The engines' FIFO: a ring over one contiguous array that doubles its capacity when full (from
 * one entry) and never shrinks, with random access and random-access iterators in FIFO order.
 *
 * The engines' queues (a path's packets in flight, a stream's messages, a port's ACKs) hold a
 * handful of entries and most are empty most of the time, and there are many of them: 4,032
 * connections of 64 paths in a 64-host all-to-all. A deque allocates a block of 512 bytes or
 * more plus a map for its first element (std::deque even when empty); boost::circular_buffer,
 * used before, allocates only what it holds but keeps five words per ring (40 bytes). This one
 * keeps a pointer and three 32-bit counts (24 bytes), which is 16 bytes less in every path of
 * every connection (doc/performance.md). Growing from one entry rather than four saves a fifth of
 * the rest there (a short flow puts one or two packets on each path it sprays over), for a few
 * more reallocations of the queues that do grow.
 *
 * Entries are default-constructed in the array and assigned; a popped entry is reset to T{} so
 * that what it owned (a packet, a buffer) is released at once. front(), back() and pop_front()
 * on an empty ring throw std::out_of_range instead of reading outside the array.
 */
#ifndef METAROCE_ENGINE_RING_H
#define METAROCE_ENGINE_RING_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <utility>

namespace metaroce
{

/// FIFO ring with random access (see the file comment).
template<class T>
class Ring
{
    template<class R, class V>
    class Iter
    {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = V*;
        using reference = V&;

        Iter() = default;

        Iter(R* ring, std::ptrdiff_t index)
            : m_ring(ring)
            , m_index(index)
        {
        }

        reference operator*() const
        {
            return (*m_ring)[static_cast<std::size_t>(m_index)];
        }

        pointer operator->() const
        {
            return &**this;
        }

        reference operator[](difference_type n) const
        {
            return (*m_ring)[static_cast<std::size_t>(m_index + n)];
        }

        Iter& operator++()
        {
            ++m_index;
            return *this;
        }

        Iter operator++(int)
        {
            Iter before = *this;
            ++m_index;
            return before;
        }

        Iter& operator--()
        {
            --m_index;
            return *this;
        }

        Iter operator--(int)
        {
            Iter before = *this;
            --m_index;
            return before;
        }

        Iter& operator+=(difference_type n)
        {
            m_index += n;
            return *this;
        }

        Iter& operator-=(difference_type n)
        {
            m_index -= n;
            return *this;
        }

        friend Iter operator+(Iter it, difference_type n)
        {
            return it += n;
        }

        friend Iter operator+(difference_type n, Iter it)
        {
            return it += n;
        }

        friend Iter operator-(Iter it, difference_type n)
        {
            return it -= n;
        }

        friend difference_type operator-(const Iter& a, const Iter& b)
        {
            return a.m_index - b.m_index;
        }

        friend bool operator==(const Iter& a, const Iter& b)
        {
            return a.m_index == b.m_index;
        }

        friend bool operator!=(const Iter& a, const Iter& b)
        {
            return a.m_index != b.m_index;
        }

        friend bool operator<(const Iter& a, const Iter& b)
        {
            return a.m_index < b.m_index;
        }

        friend bool operator>(const Iter& a, const Iter& b)
        {
            return a.m_index > b.m_index;
        }

        friend bool operator<=(const Iter& a, const Iter& b)
        {
            return a.m_index <= b.m_index;
        }

        friend bool operator>=(const Iter& a, const Iter& b)
        {
            return a.m_index >= b.m_index;
        }

      private:
        R* m_ring{nullptr};
        std::ptrdiff_t m_index{0};
    };

  public:
    using value_type = T;
    using size_type = std::size_t;
    using iterator = Iter<Ring, T>;
    using const_iterator = Iter<const Ring, const T>;
    using reverse_iterator = std::reverse_iterator<iterator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;

    Ring() = default;

    Ring(std::initializer_list<T> values)
    {
        for (const T& value : values)
        {
            push_back(value);
        }
    }

    Ring(const Ring& other)
    {
        *this = other;
    }

    Ring(Ring&& other) noexcept
    {
        *this = std::move(other);
    }

    Ring& operator=(const Ring& other)
    {
        if (this != &other)
        {
            std::unique_ptr<T[]> data(other.m_size > 0 ? new T[other.m_size]() : nullptr);
            for (uint32_t i = 0; i < other.m_size; ++i)
            {
                data[i] = other[i];
            }
            m_data = std::move(data);
            m_head = 0;
            m_size = other.m_size;
            m_capacity = other.m_size;
        }
        return *this;
    }

    Ring& operator=(Ring&& other) noexcept
    {
        m_data = std::move(other.m_data);
        m_head = std::exchange(other.m_head, 0);
        m_size = std::exchange(other.m_size, 0);
        m_capacity = std::exchange(other.m_capacity, 0);
        return *this;
    }

    ~Ring() = default;

    bool empty() const
    {
        return m_size == 0;
    }

    size_type size() const
    {
        return m_size;
    }

    size_type capacity() const
    {
        return m_capacity;
    }

    bool full() const
    {
        return m_size == m_capacity;
    }

    T& operator[](size_type i)
    {
        return m_data[Slot(i)];
    }

    const T& operator[](size_type i) const
    {
        return m_data[Slot(i)];
    }

    T& front()
    {
        Check();
        return m_data[m_head];
    }

    const T& front() const
    {
        Check();
        return m_data[m_head];
    }

    T& back()
    {
        Check();
        return (*this)[m_size - 1];
    }

    const T& back() const
    {
        Check();
        return (*this)[m_size - 1];
    }

    void push_back(const T& value)
    {
        if (m_size == m_capacity)
        {
            T copy(value); // `value` may be an entry of this ring, which Grow() moves
            Grow();
            m_data[Slot(m_size)] = std::move(copy);
        }
        else
        {
            m_data[Slot(m_size)] = value;
        }
        ++m_size;
    }

    /// Appends a default-constructed entry and returns it: the array's own slot beyond the last
    /// entry, which holds T{} (entries are reset when they leave), so nothing is copied.
    T& emplace_back()
    {
        Grow();
        ++m_size;
        return (*this)[m_size - 1];
    }

    void push_front(const T& value)
    {
        T copy(value); // `value` may be an entry of this ring, which Grow() moves
        Grow();
        m_head = m_head == 0 ? m_capacity - 1 : m_head - 1;
        m_data[m_head] = std::move(copy);
        ++m_size;
    }

    void pop_front()
    {
        Check();
        m_data[m_head] = T{};
        m_head = m_head + 1 == m_capacity ? 0 : m_head + 1;
        --m_size;
    }

    /// Inserts `value` before `pos` (growing when full), moving the later entries back; returns
    /// the inserted entry.
    iterator insert(iterator pos, const T& value)
    {
        const std::size_t index = static_cast<std::size_t>(pos - begin());
        push_back(value);
        for (std::size_t i = m_size - 1; i > index; --i)
        {
            std::swap((*this)[i], (*this)[i - 1]);
        }
        return {this, static_cast<std::ptrdiff_t>(index)};
    }

    /// Removes the entry at `pos`, moving the later ones forward; returns the entry that follows.
    iterator erase(iterator pos)
    {
        const std::size_t index = static_cast<std::size_t>(pos - begin());
        for (std::size_t i = index; i + 1 < m_size; ++i)
        {
            (*this)[i] = std::move((*this)[i + 1]);
        }
        (*this)[m_size - 1] = T{};
        --m_size;
        return {this, static_cast<std::ptrdiff_t>(index)};
    }

    void clear()
    {
        for (uint32_t i = 0; i < m_size; ++i)
        {
            (*this)[i] = T{};
        }
        m_head = 0;
        m_size = 0;
    }

    iterator begin()
    {
        return {this, 0};
    }

    iterator end()
    {
        return {this, static_cast<std::ptrdiff_t>(m_size)};
    }

    const_iterator begin() const
    {
        return {this, 0};
    }

    const_iterator end() const
    {
        return {this, static_cast<std::ptrdiff_t>(m_size)};
    }

    reverse_iterator rbegin()
    {
        return reverse_iterator(end());
    }

    reverse_iterator rend()
    {
        return reverse_iterator(begin());
    }

    const_reverse_iterator rbegin() const
    {
        return const_reverse_iterator(end());
    }

    const_reverse_iterator rend() const
    {
        return const_reverse_iterator(begin());
    }

  private:
    /// Array index of the `i`-th entry from the front.
    std::size_t Slot(std::size_t i) const
    {
        const std::size_t slot = m_head + i;
        return slot >= m_capacity ? slot - m_capacity : slot;
    }

    void Check() const
    {
        if (m_size == 0)
        {
            throw std::out_of_range("metaroce::Ring: front, back or pop_front of an empty ring");
        }
    }

    /// Makes room for one more entry, doubling the array when full.
    void Grow()
    {
        if (m_size == m_capacity)
        {
            if (m_capacity == UINT32_MAX)
            {
                throw std::length_error("metaroce::Ring: more than 2^32 - 1 entries");
            }
            Reallocate(m_capacity == 0
                           ? 1
                           : std::min<std::size_t>(2 * std::size_t{m_capacity}, UINT32_MAX));
        }
    }

    /// Moves the entries, in FIFO order, to a new array of `capacity` (>= size) from index 0.
    void Reallocate(std::size_t capacity)
    {
        std::unique_ptr<T[]> data(capacity > 0 ? new T[capacity]() : nullptr);
        for (uint32_t i = 0; i < m_size; ++i)
        {
            data[i] = std::move((*this)[i]);
        }
        m_data = std::move(data);
        m_head = 0;
        m_capacity = static_cast<uint32_t>(capacity);
    }

    std::unique_ptr<T[]> m_data;
    uint32_t m_head{0};     ///< array index of the front entry
    uint32_t m_size{0};     ///< entries held
    uint32_t m_capacity{0}; ///< array length
};

} // namespace metaroce

#endif // METAROCE_ENGINE_RING_H
