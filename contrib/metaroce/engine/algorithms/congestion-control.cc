#include "congestion-control.h"

#include <algorithm>

namespace metaroce
{

void
WindowState::Clamp()
{
    window = std::clamp(window, minWindow, maxWindow);
}

const ConfigFields<AimdConfig>&
AimdConfigFields()
{
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<AimdConfig> fields = {
        METAROCE_FIELD(AimdConfig, additiveIncreaseBytes, "AdditiveIncrease", Bytes,
                       1, 1 << 30, "7.2",
                       "Bytes added per RTT to every window whose ACKs carry no mark."),
        METAROCE_FIELD(AimdConfig, pathDecrease, "PathDecrease", Real, 1e-6, 1 - 1e-6, "7.2",
                       "Share of a path window removed when its ACKs echo CE (once per RTT)."),
        METAROCE_FIELD(AimdConfig, connectionDecrease, "ConnectionDecrease", Real,
                       1e-6, 1 - 1e-6, "7.2",
                       "Share of the connection window removed on CE echoes (once per RTT)."),
    };
    // clang-format on
    return fields;
}

void
AimdConfig::Validate(const char* owner) const
{
    ValidateFields(*this, AimdConfigFields(), owner);
}

AimdCongestionControl::AimdCongestionControl(const AimdConfig& config)
    : m_additiveIncrease(config.additiveIncreaseBytes)
    , m_pathDecrease(config.pathDecrease)
    , m_connectionDecrease(config.connectionDecrease)
{
    config.Validate();
}

const char*
AimdCongestionControl::Name() const
{
    return "aimd";
}

void
AimdCongestionControl::Decrease(WindowState& w, double fraction, TimeNs srtt, TimeNs now)
{
    // One cut per round trip: the marks of one window of packets reflect one congestion event.
    if (w.decreased && now < w.lastDecrease + srtt)
    {
        return;
    }
    w.window *= 1.0 - fraction;
    w.lastDecrease = now;
    w.decreased = true;
    w.Clamp();
}

void
AimdCongestionControl::Increase(WindowState& w, uint64_t ackedBytes) const
{
    // additiveIncrease bytes per window's worth of acknowledged bytes, i.e. per RTT.
    w.window += m_additiveIncrease * static_cast<double>(ackedBytes) / std::max(w.window, 1.0);
    w.Clamp();
}

void
AimdCongestionControl::OnAck(WindowState& path,
                             WindowState& connection,
                             const AckSample& sample,
                             TimeNs now)
{
    if (sample.ceCount > 0)
    {
        Decrease(path, m_pathDecrease, sample.srtt, now);
        Decrease(connection, m_connectionDecrease, sample.srtt, now);
        return;
    }
    Increase(path, sample.ackedBytes);
    Increase(connection, sample.ackedBytes);
}

void
AimdCongestionControl::OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now)
{
    // Loss on a lossy fabric is not necessarily congestion (spec 7.3): only the path that lost
    // is cut, which moves traffic elsewhere; the connection window is left alone.
    Decrease(path, m_pathDecrease, srtt, now);
}

void
AimdCongestionControl::OnTimeout(WindowState& path, WindowState& connection, TimeNs now)
{
    path.window = path.minWindow;
    path.lastDecrease = now;
    path.decreased = true;
}

std::unique_ptr<CongestionControl>
AimdCongestionControl::Clone() const
{
    return std::make_unique<AimdCongestionControl>(*this);
}

} // namespace metaroce
