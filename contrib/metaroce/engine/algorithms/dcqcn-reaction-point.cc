/*
 * DCQCN's reaction point, both variants (dcqcn.h). One loop (OnTimer) applies the timers in time
 * order; where a rate increase and a nic decrease check fall due at the same nanosecond, the
 * increase goes first, as in HPCC's simulator (whose increase timer was scheduled earlier).
 */
#include "dcqcn.h"

#include <algorithm>
#include <cmath>

namespace metaroce
{

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnConfig& config, uint64_t lineRateBps)
    : m_config(config.Resolved())
    , m_lineRate(lineRateBps)
    , m_rate(lineRateBps)
    , m_targetRate(lineRateBps)
    , m_alpha(config.initialAlpha)
{
}

void
DcqcnReactionPoint::OnCnp(TimeNs now)
{
    if (m_config.variant == DcqcnVariant::Paper)
    {
        PaperCnp(now);
    }
    else
    {
        NicCnp(now);
    }
    ++m_cnps;
}

void
DcqcnReactionPoint::PaperCnp(TimeNs now)
{
    // The paper's order: cut with the current alpha, then raise alpha; increase state restarts.
    const double alpha = Alpha(now);
    Cut(now, alpha, true);
    m_alpha = (1.0 - m_config.g) * alpha + m_config.g;
    m_alphaSince = now;
}

void
DcqcnReactionPoint::NicCnp(TimeNs now)
{
    OnTimer(now); // a check due at `now` concerns the CNPs before this one
    if (m_armedAt == kNever)
    {
        // The first CNP arms the alpha and decrease timers; the cut comes at the first check.
        m_armedAt = now;
        m_alpha = m_config.initialAlpha;
        m_alphaSince = now;
        m_alphaCnp = false;
        m_nextDecrease = now + m_config.rateDecreaseIntervalNs;
        return;
    }
    AdvanceAlpha(now);
    m_alphaCnp = true;
    if (m_nextDecrease == kNever)
    {
        const TimeNs d = m_config.rateDecreaseIntervalNs;
        m_nextDecrease = m_armedAt + ((now - m_armedAt) / d + 1) * d;
    }
}

void
DcqcnReactionPoint::AdvanceAlpha(TimeNs now)
{
    const TimeNs k = m_config.alphaTimerNs;
    if (m_armedAt == kNever || now < m_alphaSince + k)
    {
        return;
    }
    const TimeNs periods = (now - m_alphaSince) / k;
    const double g = m_config.g;
    m_alpha = (1.0 - g) * m_alpha + (m_alphaCnp ? g : 0.0);
    if (periods > 1)
    {
        m_alpha *= std::pow(1.0 - g, static_cast<double>(periods - 1));
    }
    m_alphaSince += periods * k;
    m_alphaCnp = false;
}

void
DcqcnReactionPoint::NicDecrease(TimeNs at)
{
    AdvanceAlpha(at); // the alpha update of this instant comes first (HPCC: 1 ns earlier)
    m_nextDecrease = kNever;
    // NVIDIA clamp_tgt_rate_after_time_inc (HPCC: rpTimeStage != 0): the target follows the
    // rate down only if the timer raised it since the last cut.
    Cut(at, m_alpha, m_config.clampTargetRate || m_timerStage > 0);
}

void
DcqcnReactionPoint::Cut(TimeNs at, double alpha, bool clampTarget)
{
    if (clampTarget)
    {
        m_targetRate = m_rate;
    }
    const auto cut = static_cast<uint64_t>(static_cast<double>(m_rate) * (1.0 - alpha / 2.0));
    m_rate = std::max(m_config.minRateBps, cut);
    m_rateTimerSince = at;
    m_bytes = 0;
    m_timerStage = 0;
    m_byteStage = 0;
    m_phase = DcqcnPhase::None;
    ++m_cuts;
}

void
DcqcnReactionPoint::OnBytesSent(uint64_t bytes, TimeNs /* now */)
{
    if (m_rate >= m_lineRate)
    {
        return;
    }
    m_bytes += bytes;
    while (m_bytes >= m_config.byteCounterBytes && m_rate < m_lineRate)
    {
        m_bytes -= m_config.byteCounterBytes;
        ++m_byteStage;
        Increase();
    }
}

void
DcqcnReactionPoint::OnTimer(TimeNs now)
{
    for (;;)
    {
        const TimeNs increase =
            m_rate < m_lineRate ? m_rateTimerSince + m_config.rateTimerNs : kNever;
        const TimeNs next = std::min(increase, m_nextDecrease);
        if (next == kNever || next > now)
        {
            return;
        }
        if (increase <= m_nextDecrease)
        {
            m_rateTimerSince = increase;
            ++m_timerStage;
            Increase();
        }
        else
        {
            NicDecrease(m_nextDecrease);
        }
    }
}

TimeNs
DcqcnReactionPoint::NextTimer() const
{
    const TimeNs increase = m_rate < m_lineRate ? m_rateTimerSince + m_config.rateTimerNs : kNever;
    return std::min(increase, m_nextDecrease);
}

void
DcqcnReactionPoint::Increase()
{
    const uint32_t f = m_config.fastRecoverySteps;
    const uint32_t most = std::max(m_timerStage, m_byteStage);
    const uint32_t least = std::min(m_timerStage, m_byteStage);
    if (most <= f)
    {
        m_phase = DcqcnPhase::FastRecovery;
    }
    else if (m_config.variant == DcqcnVariant::Nic &&
             m_config.byteCounterBytes == kDcqcnNoByteCounter)
    {
        // HPCC's ladder: one additive step at stage F, hyper steps of R_HAI after it.
        const bool additive = most == f + 1;
        m_phase = additive ? DcqcnPhase::AdditiveIncrease : DcqcnPhase::HyperIncrease;
        m_targetRate += additive ? m_config.additiveIncreaseBps : m_config.hyperIncreaseBps;
    }
    else if (least > f)
    {
        m_phase = DcqcnPhase::HyperIncrease;
        m_targetRate += uint64_t{least - f} * m_config.hyperIncreaseBps;
    }
    else
    {
        m_phase = DcqcnPhase::AdditiveIncrease;
        m_targetRate += m_config.additiveIncreaseBps;
    }
    m_targetRate = std::min(m_targetRate, m_lineRate);
    // Rounding up makes Rc reach Rt exactly instead of stalling one bit per second below it.
    m_rate = (m_targetRate + m_rate + 1) / 2;
}

uint64_t
DcqcnReactionPoint::RateBps() const
{
    return m_rate;
}

uint64_t
DcqcnReactionPoint::TargetRateBps() const
{
    return m_targetRate;
}

uint64_t
DcqcnReactionPoint::LineRateBps() const
{
    return m_lineRate;
}

double
DcqcnReactionPoint::Alpha(TimeNs now) const
{
    if (m_config.variant == DcqcnVariant::Nic)
    {
        DcqcnReactionPoint copy = *this;
        copy.AdvanceAlpha(now);
        return copy.m_alpha;
    }
    if (now <= m_alphaSince)
    {
        return m_alpha;
    }
    const auto periods = static_cast<double>((now - m_alphaSince) / m_config.alphaTimerNs);
    return m_alpha * std::pow(1.0 - m_config.g, periods);
}

uint32_t
DcqcnReactionPoint::TimerStage() const
{
    return m_timerStage;
}

uint32_t
DcqcnReactionPoint::ByteStage() const
{
    return m_byteStage;
}

DcqcnPhase
DcqcnReactionPoint::Phase() const
{
    return m_phase;
}

uint64_t
DcqcnReactionPoint::CnpsReceived() const
{
    return m_cnps;
}

uint64_t
DcqcnReactionPoint::Cuts() const
{
    return m_cuts;
}

const DcqcnConfig&
DcqcnReactionPoint::GetConfig() const
{
    return m_config;
}

} // namespace metaroce
