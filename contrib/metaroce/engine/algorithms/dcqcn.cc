#include "dcqcn.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace metaroce
{

const ConfigFields<DcqcnConfig>&
DcqcnConfigFields()
{
    using C = DcqcnConfig;
    constexpr double kMaxNs = 1e12;
    constexpr double kMaxBps = 1e15;
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<DcqcnConfig> fields = {
        METAROCE_FIELD(C, enabled, "Enabled", Flag, 0, 1, "8.5",
                       "DCQCN rate control: CNPs on CE marks, paced sending. Off: line rate."),
        METAROCE_FIELD(C, g, "G", Real, 1e-9, 1 - 1e-9, "8.5",
                       "Gain g of alpha."),
        METAROCE_FIELD(C, initialAlpha, "InitialAlpha", Real, 0, 1, "8.5",
                       "Alpha before the first CNP."),
        METAROCE_FIELD(C, alphaTimerNs, "AlphaTimer", Nanoseconds, 1, kMaxNs, "8.5",
                       "K: alpha decays once per K without a CNP."),
        METAROCE_FIELD(C, rateTimerNs, "RateTimer", Nanoseconds, 1, kMaxNs, "8.5",
                       "T: period of the timer-driven rate increase."),
        METAROCE_FIELD(C, byteCounterBytes, "ByteCounter", Bytes, 1, 1e15, "8.5",
                       "B: bytes sent between byte-driven rate increases."),
        METAROCE_FIELD(C, fastRecoverySteps, "FastRecoverySteps", Count, 0, 1e6, "8.5",
                       "F: increase events spent in fast recovery."),
        METAROCE_FIELD(C, additiveIncreaseBps, "AdditiveIncrease", BitsPerSecond, 1, kMaxBps, "8.5",
                       "R_AI: additive increase step."),
        METAROCE_FIELD(C, hyperIncreaseBps, "HyperIncrease", BitsPerSecond, 1, kMaxBps, "8.5",
                       "R_HAI: hyper increase step."),
        METAROCE_FIELD(C, minRateBps, "MinRate", BitsPerSecond, 1, kMaxBps, "8.5",
                       "Floor of the current rate (at most the line rate)."),
        METAROCE_FIELD(C, cnpIntervalNs, "CnpInterval", Nanoseconds, 1, kMaxNs, "8.5",
                       "N: at most one CNP per interval per queue pair (notification point)."),
    };
    // clang-format on
    return fields;
}

void
DcqcnConfig::Validate(uint64_t lineRateBps, const char* owner) const
{
    ValidateFields(*this, DcqcnConfigFields(), owner);
    if (minRateBps > lineRateBps)
    {
        ThrowFieldError(owner,
                        "minRateBps",
                        "must be <= the line rate " + std::to_string(lineRateBps),
                        std::to_string(minRateBps));
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
