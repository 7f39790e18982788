#include "path-receive-window.h"

namespace metaroce
{

bool
PathReceiveWindow::Test(uint64_t offset) const
{
    return offset > 0 && (m_bits[(offset - 1) / 64] >> ((offset - 1) % 64)) & 1;
}

void
PathReceiveWindow::Set(uint64_t offset)
{
    m_bits[(offset - 1) / 64] |= uint64_t{1} << ((offset - 1) % 64);
}

uint64_t
PathReceiveWindow::ReceivedRun() const
{
    uint64_t run = 0;
    for (uint64_t word : m_bits)
    {
        if (word != ~uint64_t{0})
        {
            return run + static_cast<uint64_t>(__builtin_ctzll(~word));
        }
        run += 64;
    }
    return run;
}

void
PathReceiveWindow::Advance(uint64_t to)
{
    // Shift the bitmap right by (to - m_cumulative) bits: bit k stays PSN m_cumulative + 1 + k.
    const uint64_t shift = to - m_cumulative;
    m_cumulative = to;
    if (shift >= kWords * 64)
    {
        m_bits.fill(0);
        return;
    }
    const std::size_t words = shift / 64;
    const unsigned bits = shift % 64;
    for (std::size_t i = 0; i < kWords; ++i)
    {
        const std::size_t src = i + words;
        uint64_t v = src < kWords ? m_bits[src] >> bits : 0;
        if (bits != 0 && src + 1 < kWords)
        {
            v |= m_bits[src + 1] << (64 - bits);
        }
        m_bits[i] = v;
    }
}

PathReceiveWindow::Verdict
PathReceiveWindow::Classify(uint64_t psn) const
{
    if (psn < m_cumulative)
    {
        return Verdict::Duplicate;
    }
    if (psn - m_cumulative > kSackBits)
    {
        return Verdict::OutOfWindow;
    }
    return Test(psn - m_cumulative) ? Verdict::Duplicate : Verdict::New;
}

PathReceiveWindow::Verdict
PathReceiveWindow::Observe(uint64_t psn, uint64_t floor)
{
    // A floor is only trusted when the packet itself is acceptable: psn >= floor, and the
    // sender never has more than 256 PSNs outstanding above its floor.
    if (psn < floor || psn - floor >= kSackBits)
    {
        return Verdict::OutOfWindow;
    }
    if (floor > m_cumulative)
    {
        Advance(floor);
    }
    const Verdict v = Classify(psn);
    if (v != Verdict::New)
    {
        return v;
    }
    if (psn > m_cumulative)
    {
        Set(psn - m_cumulative);
    }
    else
    {
        // The expected PSN: slide over it and the run received above it.
        Advance(m_cumulative + 1 + ReceivedRun());
    }
    return Verdict::New;
}

bool
PathReceiveWindow::HasGap() const
{
    for (uint64_t w : m_bits)
    {
        if (w != 0)
        {
            return true;
        }
    }
    return false;
}

std::bitset<kSackBits>
PathReceiveWindow::Sack() const
{
    return SackFromWords(m_bits);
}

} // namespace metaroce
