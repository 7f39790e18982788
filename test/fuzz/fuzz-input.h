/*
 * A reader over a fuzz input, shared by the fuzz targets: it hands out integers and byte runs
 * from the front and zeros once the input is used up, so every input, however short, is a
 * complete test case and libFuzzer's mutations map onto small changes of the case.
 */
#ifndef METAROCE_FUZZ_INPUT_H
#define METAROCE_FUZZ_INPUT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace metaroce_fuzz
{

/// Reads integers and byte runs from a fuzz input, front to back.
class FuzzInput
{
  public:
    FuzzInput(const uint8_t* data, std::size_t size)
        : m_data(data)
        , m_size(size)
    {
    }

    /// True when every byte has been read.
    bool Empty() const
    {
        return m_pos >= m_size;
    }

    /// Bytes not yet read.
    std::size_t Remaining() const
    {
        return m_pos < m_size ? m_size - m_pos : 0;
    }

    /// The next byte, or 0 past the end.
    uint8_t U8()
    {
        return m_pos < m_size ? m_data[m_pos++] : 0;
    }

    /// The next two bytes, big-endian.
    uint16_t U16()
    {
        return static_cast<uint16_t>(U8() << 8 | U8());
    }

    /// The next four bytes, big-endian.
    uint32_t U32()
    {
        return static_cast<uint32_t>(U16()) << 16 | U16();
    }

    /// Up to `n` next bytes (fewer at the end).
    std::vector<uint8_t> Bytes(std::size_t n)
    {
        const std::size_t take = n < Remaining() ? n : Remaining();
        std::vector<uint8_t> out(m_data + m_pos, m_data + m_pos + take);
        m_pos += take;
        return out;
    }

  private:
    const uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_pos{0};
};

/// Ends the run as a crash that libFuzzer (and the replay driver) reports, with why.
[[noreturn]] inline void
Violation(const char* what)
{
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
}

/// Checks an invariant of the code under test.
inline void
Check(bool ok, const char* what)
{
    if (!ok)
    {
        Violation(what);
    }
}

} // namespace metaroce_fuzz

#endif // METAROCE_FUZZ_INPUT_H
