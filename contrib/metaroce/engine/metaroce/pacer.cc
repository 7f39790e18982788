#include "pacer.h"

#include <algorithm>

namespace metaroce
{

Pacer::Pacer(uint64_t lineRateBps, bool honourRateHint, uint16_t packetsPerTurn)
    : m_lineRateBps(lineRateBps)
    , m_honourRateHint(honourRateHint)
    , m_burstPackets(std::max<TimeNs>(kPacingCreditPackets, packetsPerTurn))
{
}

uint64_t
Pacer::RateBps() const
{
    if (!m_honourRateHint || m_rateHintBps == 0)
    {
        return m_lineRateBps;
    }
    return std::min(m_lineRateBps, m_rateHintBps);
}

bool
Pacer::MayRelease(TimeNs now)
{
    // Time only moves forward, so a release time ahead of `now` was set by a paced packet:
    // Unpaced never holds back.
    if (now < m_releaseAt)
    {
        m_state = State::HeldBack;
        return false;
    }
    if (m_state == State::HeldBack)
    {
        m_state = State::Paced;
    }
    return true;
}

void
Pacer::OnSent(uint64_t wireBytes, TimeNs now)
{
    const uint64_t rate = RateBps();
    if (rate >= m_lineRateBps)
    {
        m_state = State::Unpaced;
        m_releaseAt = now;
        return;
    }
    // The bucket fills at the paced rate from the last release (or unpaced send) and holds
    // Burst() packets (spec 9.4).
    const TimeNs gap = wireBytes * 8'000'000'000ULL / rate;
    const TimeNs credit = m_burstPackets * gap;
    const TimeNs start = std::max(m_releaseAt, now > credit ? now - credit : 0);
    m_releaseAt = start + gap;
    m_state = State::Paced;
}

TimeNs
Pacer::Deadline(TimeNs latest) const
{
    return m_state == State::HeldBack && m_releaseAt > latest ? m_releaseAt : kNever;
}

} // namespace metaroce
