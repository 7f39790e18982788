#include "dcqcn.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

[[noreturn]] void
Bad(const char* owner, const char* field, const std::string& why)
{
    throw std::invalid_argument(std::string(owner) + "." + field + " " + why);
}

} // namespace

void
DcqcnConfig::Validate(uint64_t lineRateBps, const char* owner) const
{
    if (!(g > 0.0 && g < 1.0))
    {
        Bad(owner, "g", "must be in (0, 1) (got " + std::to_string(g) + ")");
    }
    if (!(initialAlpha >= 0.0 && initialAlpha <= 1.0))
    {
        Bad(owner, "initialAlpha", "must be in [0, 1] (got " + std::to_string(initialAlpha) + ")");
    }
    if (alphaTimerNs == 0)
    {
        Bad(owner, "alphaTimerNs", "must be > 0");
    }
    if (rateTimerNs == 0)
    {
        Bad(owner, "rateTimerNs", "must be > 0");
    }
    if (byteCounterBytes == 0)
    {
        Bad(owner, "byteCounterBytes", "must be > 0");
    }
    if (additiveIncreaseBps == 0)
    {
        Bad(owner, "additiveIncreaseBps", "must be > 0");
    }
    if (hyperIncreaseBps == 0)
    {
        Bad(owner, "hyperIncreaseBps", "must be > 0");
    }
    if (minRateBps == 0 || minRateBps > lineRateBps)
    {
        Bad(owner,
            "minRateBps",
            "must be > 0 and <= the line rate " + std::to_string(lineRateBps) + " (got " +
                std::to_string(minRateBps) + ")");
    }
}

const char*
DcqcnPhaseName(DcqcnPhase phase)
{
    switch (phase)
    {
    case DcqcnPhase::None:
        return "none";
    case DcqcnPhase::FastRecovery:
        return "fast-recovery";
    case DcqcnPhase::AdditiveIncrease:
        return "additive-increase";
    case DcqcnPhase::HyperIncrease:
        return "hyper-increase";
    }
    return "?";
}

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnConfig& config, uint64_t lineRateBps)
    : m_config(config)
    , m_lineRate(lineRateBps)
    , m_rate(lineRateBps)
    , m_targetRate(lineRateBps)
    , m_alpha(config.initialAlpha)
{
}

void
DcqcnReactionPoint::OnCnp(TimeNs now)
{
    // The paper's order: cut with the current alpha, then raise alpha; increase state restarts.
    const double alpha = Alpha(now);
    m_targetRate = m_rate;
    const auto cut = static_cast<uint64_t>(static_cast<double>(m_rate) * (1.0 - alpha / 2.0));
    m_rate = std::max(m_config.minRateBps, cut);
    m_alpha = (1.0 - m_config.g) * alpha + m_config.g;
    m_alphaSince = now;
    m_rateTimerSince = now;
    m_bytes = 0;
    m_timerStage = 0;
    m_byteStage = 0;
    m_phase = DcqcnPhase::None;
    ++m_cnps;
}

void
DcqcnReactionPoint::OnBytesSent(uint64_t bytes, TimeNs now)
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
    while (m_rate < m_lineRate && m_rateTimerSince + m_config.rateTimerNs <= now)
    {
        m_rateTimerSince += m_config.rateTimerNs;
        ++m_timerStage;
        Increase();
    }
}

TimeNs
DcqcnReactionPoint::NextTimer() const
{
    return m_rate < m_lineRate ? m_rateTimerSince + m_config.rateTimerNs : kNever;
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

DcqcnNotificationPoint::DcqcnNotificationPoint(TimeNs cnpIntervalNs)
    : m_interval(cnpIntervalNs)
{
}

bool
DcqcnNotificationPoint::OnCeMarked(TimeNs now)
{
    if (m_cnps > 0 && now < m_lastCnp + m_interval)
    {
        return false;
    }
    m_lastCnp = now;
    ++m_cnps;
    return true;
}

uint64_t
DcqcnNotificationPoint::CnpsGenerated() const
{
    return m_cnps;
}

} // namespace metaroce
