/*
 * Objects under the ids of a fixed range (a connection's paths), each made on first use, where
 * an id never used costs two bytes.
 *
 * A connection has 64 paths by default, yet most connections of a large all-to-all send a
 * message of a packet or two and use one or two of them. A vector of 64 owning pointers cost
 * 512 bytes per connection and direction before anything was made: at 1,024 hosts (a million
 * queue pairs) about 1 GB of pointers that stay null (doc/performance.md, "The fast path"). Here
 * each id has a 16-bit index into the objects made, which are held by pointer in the order they
 * were made, so a reference to one stays valid while others are made. Visiting the made objects
 * goes in id order, as a scan over every id would.
 */
#ifndef METAROCE_ENGINE_LAZY_SLOTS_H
#define METAROCE_ENGINE_LAZY_SLOTS_H

#include <boost/range/adaptor/filtered.hpp>
#include <boost/range/adaptor/transformed.hpp>
#include <boost/range/irange.hpp>
#include <cassert>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace metaroce
{

/// Objects of type T under ids [0, Size()), made on first use (see the file comment).
template<class T>
class LazySlots
{
  public:
    /// The most ids a table holds: the index of a made object is 16 bits, one value marks "none".
    static constexpr std::size_t kMaxIds = 65535;

    /// Gives the table `ids` ids, none made; only once, on an empty table.
    void Resize(std::size_t ids)
    {
        if (ids > kMaxIds)
        {
            throw std::length_error("LazySlots: more than 65,535 ids");
        }
        assert(m_index.empty() && m_made.empty());
        m_index.assign(ids, kNone);
    }

    /// The number of ids, made or not.
    std::size_t Size() const
    {
        return m_index.size();
    }

    bool Empty() const
    {
        return m_index.empty();
    }

    /// The object under `id` (< Size()) if it was made, else null.
    T* Find(std::size_t id) const
    {
        assert(id < m_index.size());
        const uint16_t at = m_index[id];
        return at == kNone ? nullptr : m_made[at].get();
    }

    /// Makes the object under `id` (< Size(), not made yet) from `args`.
    template<class... Args>
    T& Make(std::size_t id, Args&&... args)
    {
        assert(id < m_index.size() && m_index[id] == kNone);
        m_index[id] = static_cast<uint16_t>(m_made.size());
        return *m_made.emplace_back(std::make_unique<T>(std::forward<Args>(args)...));
    }

    /// The number of objects made.
    std::size_t MadeCount() const
    {
        return m_made.size();
    }

    /// The objects made, in id order: a range of `const T&`. Making an object adds to it.
    auto Made() const
    {
        return boost::irange(std::size_t{0}, m_index.size()) |
               boost::adaptors::filtered([this](std::size_t id) { return m_index[id] != kNone; }) |
               boost::adaptors::transformed(
                   [this](std::size_t id) -> const T& { return *m_made[m_index[id]]; });
    }

  private:
    static constexpr uint16_t kNone = UINT16_MAX;

    std::vector<uint16_t> m_index;          ///< per id: its object in m_made, or kNone
    std::vector<std::unique_ptr<T>> m_made; ///< in the order made
};

} // namespace metaroce

#endif // METAROCE_ENGINE_LAZY_SLOTS_H
