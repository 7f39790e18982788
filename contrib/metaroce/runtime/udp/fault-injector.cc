#include "fault-injector.h"

#include <stdexcept>
#include <string>

namespace metaroce::udp
{

void
FaultConfig::Validate() const
{
    const std::pair<const char*, double> rates[] = {{"loss", lossRate},
                                                    {"duplicate", duplicateRate},
                                                    {"reorder", reorderRate},
                                                    {"corrupt", corruptRate}};
    for (const auto& [name, rate] : rates)
    {
        if (!(rate >= 0 && rate <= 1))
        {
            throw std::invalid_argument(std::string(name) + " rate " + std::to_string(rate) +
                                        " is not a probability in [0, 1]");
        }
    }
}

FaultInjector::FaultInjector(const FaultConfig& config)
    : m_config(config)
    , m_rng(config.seed)
{
    config.Validate();
}

FaultDecision
FaultInjector::Decide()
{
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double lossDraw = uniform(m_rng);
    const double dupDraw = uniform(m_rng);
    const double reorderDraw = uniform(m_rng);
    const TimeNs extra = m_config.reorderDelayNs > 0 ? m_rng() % (m_config.reorderDelayNs + 1) : 0;
    FaultDecision d;
    if (lossDraw < m_config.lossRate)
    {
        ++m_stats.dropped;
        d.drop = true;
        return d;
    }
    if (dupDraw < m_config.duplicateRate)
    {
        ++m_stats.duplicated;
        d.copies = 2;
    }
    d.holdNs = m_config.delayNs;
    if (reorderDraw < m_config.reorderRate)
    {
        ++m_stats.reordered;
        d.holdNs += extra;
    }
    m_stats.delayed += d.holdNs > 0;
    // Drawn only when on, so that runs without bit errors keep their sequence.
    if (m_config.corruptRate > 0 && uniform(m_rng) < m_config.corruptRate)
    {
        ++m_stats.corrupted;
        d.corruptDraw = m_rng();
    }
    return d;
}

void
FaultInjector::Hold(TimeNs release, uint16_t port, uint16_t srcPort, std::vector<uint8_t> bytes)
{
    m_held.push(HeldPacket{release, m_seq++, port, srcPort, std::move(bytes)});
}

TimeNs
FaultInjector::NextRelease() const
{
    return m_held.empty() ? kNever : m_held.top().release;
}

HeldPacket
FaultInjector::PopReleased()
{
    HeldPacket p = m_held.top();
    m_held.pop();
    return p;
}

} // namespace metaroce::udp
