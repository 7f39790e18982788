#include "swift-congestion-control.h"

#include <algorithm>

namespace metaroce
{

const ConfigFields<SwiftConfig>&
SwiftConfigFields()
{
    using C = SwiftConfig;
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<SwiftConfig> fields = {
        METAROCE_FIELD(C, targetDelayNs, "TargetDelay", Nanoseconds, 1, 1e12, "9.6",
                       "Fabric RTT at and above which the windows are cut."),
        METAROCE_FIELD(C, additiveIncreaseBytes, "AdditiveIncrease", Bytes, 1, 1 << 30, "9.6",
                       "Bytes added per RTT to every window while the delay is below target."),
        METAROCE_FIELD(C, beta, "Beta", Real, 1e-6, 1, "9.6",
                       "Gain of a path's cut: share removed = Beta x (delay - target) / delay."),
        METAROCE_FIELD(C, connectionBeta, "ConnectionBeta", Real, 0, 1, "9.6",
                       "Same gain for the connection window (0: never cut it on delay)."),
        METAROCE_FIELD(C, maxDecrease, "MaxDecrease", Real, 1e-6, 1 - 1e-6, "9.6",
                       "Largest share of a window one cut removes; a loss cuts the path by it."),
    };
    // clang-format on
    return fields;
}

void
SwiftConfig::Validate(const char* owner) const
{
    ValidateFields(*this, SwiftConfigFields(), owner);
}

SwiftCongestionControl::SwiftCongestionControl(const SwiftConfig& config)
    : m_config(config)
{
    config.Validate();
}

const char*
SwiftCongestionControl::Name() const
{
    return "swift";
}

double
SwiftCongestionControl::DecreaseFactor(double gain, TimeNs delay) const
{
    const double excess = static_cast<double>(delay - m_config.targetDelayNs);
    const double proportional = 1.0 - gain * excess / static_cast<double>(delay);
    return std::max(proportional, 1.0 - m_config.maxDecrease);
}

void
SwiftCongestionControl::OnAck(WindowState& path,
                              WindowState& connection,
                              const AckSample& sample,
                              TimeNs now)
{
    // The ACK's own sample reacts within one RTT; srtt is only the fallback for an ACK that
    // echoed no timestamp (it lags a growing queue by several RTTs).
    const TimeNs delay = sample.rtt != 0 ? sample.rtt : sample.srtt;
    if (delay < m_config.targetDelayNs)
    {
        path.IncreaseAdditively(m_config.additiveIncreaseBytes, sample.ackedBytes);
        connection.IncreaseAdditively(m_config.additiveIncreaseBytes, sample.ackedBytes);
        return;
    }
    // Above target nothing grows; each window is cut once per (its) RTT.
    if (path.MayDecrease(sample.srtt, now))
    {
        path.Decrease(DecreaseFactor(m_config.beta, delay), now);
    }
    if (m_config.connectionBeta > 0 && connection.MayDecrease(sample.srtt, now))
    {
        connection.Decrease(DecreaseFactor(m_config.connectionBeta, delay), now);
    }
}

void
SwiftCongestionControl::OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now)
{
    // Loss is not necessarily congestion on a lossy fabric (spec 9.3): only the path is cut.
    if (path.MayDecrease(srtt, now))
    {
        path.Decrease(1.0 - m_config.maxDecrease, now);
    }
}

void
SwiftCongestionControl::OnTimeout(WindowState& path, WindowState& connection, TimeNs now)
{
    path.Collapse(now);
}

std::unique_ptr<CongestionControl>
SwiftCongestionControl::Clone() const
{
    return std::make_unique<SwiftCongestionControl>(*this);
}

} // namespace metaroce
