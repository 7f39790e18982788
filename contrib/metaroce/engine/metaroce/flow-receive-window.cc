#include "flow-receive-window.h"

namespace metaroce
{

bool
FlowReceiveWindow::Test(uint64_t offset) const
{
    return offset > 0 && (m_bits[(offset - 1) / 64] >> ((offset - 1) % 64)) & 1;
}

void
FlowReceiveWindow::Set(uint64_t offset)
{
    m_bits[(offset - 1) / 64] |= uint64_t{1} << ((offset - 1) % 64);
}

uint64_t
FlowReceiveWindow::ReceivedRun() const
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
FlowReceiveWindow::Advance(uint64_t to)
{
    // Shift the bitmap right by (to - m_cumulative) bits: bit k stays FSN m_cumulative + 1 + k.
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

FlowReceiveWindow::Verdict
FlowReceiveWindow::Classify(uint64_t fsn) const
{
    if (fsn < m_cumulative)
    {
        return Verdict::Duplicate;
    }
    if (fsn - m_cumulative > kSackBits)
    {
        return Verdict::OutOfWindow;
    }
    return Test(fsn - m_cumulative) ? Verdict::Duplicate : Verdict::New;
}

FlowReceiveWindow::Verdict
FlowReceiveWindow::Observe(uint64_t fsn, uint64_t floor)
{
    // A floor is only trusted when the packet itself is acceptable: fsn >= floor, and the
    // sender never has more than 256 FSNs outstanding above its floor.
    if (fsn < floor || fsn - floor >= kSackBits)
    {
        return Verdict::OutOfWindow;
    }
    if (floor > m_cumulative)
    {
        Advance(floor);
    }
    const Verdict v = Classify(fsn);
    if (v != Verdict::New)
    {
        return v;
    }
    if (fsn > m_cumulative)
    {
        Set(fsn - m_cumulative);
    }
    else
    {
        // The expected FSN: slide over it and the run received above it.
        Advance(m_cumulative + 1 + ReceivedRun());
    }
    return Verdict::New;
}

bool
FlowReceiveWindow::HasGap() const
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
FlowReceiveWindow::Sack() const
{
    return SackFromWords(m_bits);
}

} // namespace metaroce
