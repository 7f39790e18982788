#include "injection-rate.h"

#include <algorithm>

namespace metaroce
{

void
InjectionRate::OnAck(uint32_t packets, uint32_t marked, TimeNs now, TimeNs roundNs)
{
    const TimeNs round = std::max(roundNs, kInjectionRoundMinNs);
    if (m_roundEnd == 0)
    {
        m_roundEnd = now + round;
    }
    else if (now >= m_roundEnd)
    {
        // The round is over: what it heard sets the rate for the next one.
        if (m_packets > 0)
        {
            const double f = static_cast<double>(m_marked) / static_cast<double>(m_packets);
            m_alpha = (1 - kInjectionGain) * m_alpha + kInjectionGain * f;
            if (m_marked > 0)
            {
                m_share *= 1 - m_alpha / 2;
                ++m_cuts;
            }
            m_share = std::clamp(m_share + kInjectionIncrease, kInjectionMinShare, 1.0);
        }
        m_packets = 0;
        m_marked = 0;
        m_roundEnd = now + round;
    }
    m_packets += packets;
    m_marked += std::min(marked, packets);
}

} // namespace metaroce
