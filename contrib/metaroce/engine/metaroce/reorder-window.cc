#include "reorder-window.h"

#include <algorithm>

namespace metaroce
{

ReorderWindow::ReorderWindow(TimeNs ackDelay, uint32_t floorRttQuarters)
    : m_ackDelay(ackDelay)
    , m_floorRttQuarters(floorRttQuarters)
    , m_smoothed(ackDelay)
    , m_deviation(ackDelay / 2)
{
}

void
ReorderWindow::Sample(TimeNs lateness)
{
    // RFC 6298's gains, in integer nanoseconds.
    const TimeNs delta = lateness > m_smoothed ? lateness - m_smoothed : m_smoothed - lateness;
    m_deviation = (3 * m_deviation + delta) / 4;
    m_smoothed = (7 * m_smoothed + lateness) / 8;
}

TimeNs
ReorderWindow::Window(TimeNs minRtt, TimeNs srtt) const
{
    // The receiver's ACK delay is a known part of any lateness; the quarter of the minimum RTT
    // is RFC 8985's allowance for reordering on top of it (more quarters: its reo_wnd_mult).
    const TimeNs floor = m_ackDelay + m_floorRttQuarters * minRtt / 4;
    const TimeNs measured = std::min(m_smoothed + 4 * m_deviation, srtt);
    return std::max({floor, measured, m_srttHalvesAtLeast * srtt / 2});
}

} // namespace metaroce
