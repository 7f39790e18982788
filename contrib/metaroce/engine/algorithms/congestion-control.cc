#include "congestion-control.h"

#include <algorithm>

namespace metaroce
{

void
WindowState::Clamp()
{
    window = std::clamp(window, minWindow, maxWindow);
}

AimdCongestionControl::AimdCongestionControl(double additiveIncrease,
                                             double pathDecrease,
                                             double connectionDecrease)
    : m_additiveIncrease(additiveIncrease)
    , m_pathDecrease(pathDecrease)
    , m_connectionDecrease(connectionDecrease)
{
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
