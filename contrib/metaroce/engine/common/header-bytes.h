/*
 * A packet's transport header bytes, kept inside the packet instead of on the heap: every packet
 * an engine sends has one, and none is longer than kCapacity (a MetaRoCE WRITE header is 64
 * bytes, an ACK with four repeats 96, spec 5.3 and 5.7; a RoCEv2 BTH with RETH and AETH 32, spec
 * 8.2), so a heap allocation and its release per packet bought nothing but their cost.
 *
 * The interface is the part of std::vector<uint8_t> that senders and drivers use: size, data,
 * iteration, indexing, and resize, which zero-fills what it adds.
 */
#ifndef METAROCE_ENGINE_HEADER_BYTES_H
#define METAROCE_ENGINE_HEADER_BYTES_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace metaroce
{

/// Up to kCapacity header bytes, inline.
class HeaderBytes
{
  public:
    static constexpr std::size_t kCapacity = 96;

    HeaderBytes() = default;

    /// `size` zero bytes.
    explicit HeaderBytes(std::size_t size)
    {
        resize(size);
    }

    /// Grows with zero bytes or shrinks to `size`; std::length_error beyond kCapacity.
    void resize(std::size_t size)
    {
        if (size > kCapacity)
        {
            ThrowTooLong(size);
        }
        // Bytes past the size are kept zero, so growing writes nothing: a header is sized once
        // per packet, and only a shrink, which is rare, has bytes to clear.
        if (size < m_size)
        {
            std::memset(m_bytes.data() + size, 0, m_size - size);
        }
        m_size = static_cast<uint8_t>(size);
    }

    std::size_t size() const
    {
        return m_size;
    }

    bool empty() const
    {
        return m_size == 0;
    }

    uint8_t* data()
    {
        return m_bytes.data();
    }

    const uint8_t* data() const
    {
        return m_bytes.data();
    }

    uint8_t* begin()
    {
        return data();
    }

    uint8_t* end()
    {
        return data() + m_size;
    }

    const uint8_t* begin() const
    {
        return data();
    }

    const uint8_t* end() const
    {
        return data() + m_size;
    }

    uint8_t& operator[](std::size_t i)
    {
        return m_bytes[i];
    }

    uint8_t operator[](std::size_t i) const
    {
        return m_bytes[i];
    }

    /// The bytes as a vector (for callers that keep or extend them).
    std::vector<uint8_t> ToVector() const
    {
        return std::vector<uint8_t>(begin(), end());
    }

  private:
    /// Out of line, so that resize() stays small enough to inline.
    [[noreturn]] static void ThrowTooLong(std::size_t size);

    std::array<uint8_t, kCapacity> m_bytes{}; ///< the first m_size; zero after them
    uint8_t m_size{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_HEADER_BYTES_H
