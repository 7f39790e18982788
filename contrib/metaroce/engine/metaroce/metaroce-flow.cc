#include "metaroce-flow.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

const char*
FlowHealthName(FlowHealth health)
{
    switch (health)
    {
    case FlowHealth::Up:
        return "up";
    case FlowHealth::Suspect:
        return "suspect";
    case FlowHealth::Down:
        return "down";
    }
    return "?";
}

RttEstimator::RttEstimator(TimeNs initial)
    : m_srtt(initial)
    , m_rttvar(initial / 2)
{
}

void
RttEstimator::Sample(TimeNs rtt)
{
    if (!HasSample())
    {
        m_srtt = rtt;
        m_rttvar = rtt / 2;
        m_min = rtt;
        return;
    }
    const TimeNs delta = rtt > m_srtt ? rtt - m_srtt : m_srtt - rtt;
    m_rttvar = (3 * m_rttvar + delta) / 4;
    m_srtt = (7 * m_srtt + rtt) / 8;
    m_min = std::min(m_min, rtt);
}

TimeNs
RttEstimator::Rto(TimeNs min, TimeNs max) const
{
    return std::clamp(m_srtt + 4 * m_rttvar, min, max);
}

Flow::Flow(uint16_t id_, uint16_t port_, uint16_t entropy_, TimeNs initialRtt)
    : id(id_)
    , port(port_)
    , entropy(entropy_)
    , rtt(initialRtt)
{
}

bool
Flow::HasRoom(uint32_t bytes, uint32_t maxPackets) const
{
    if (nextFsn - Floor() >= maxPackets)
    {
        return false;
    }
    if (health == FlowHealth::Suspect)
    {
        return inflightBytes == 0;
    }
    // A window below one packet still lets one packet out when nothing is in flight.
    return inflightBytes == 0 || inflightBytes + bytes <= window.window;
}

const SentPacket*
Flow::OldestDataInFlight() const
{
    for (const SentPacket& p : outstanding)
    {
        if (p.state == SentPacket::State::InFlight && p.message != kProbeMessage)
        {
            return &p;
        }
    }
    return nullptr;
}

void
Flow::PopResolved()
{
    while (!outstanding.empty() &&
           (outstanding.front().state != SentPacket::State::InFlight || UnansweredProbeAtFloor()))
    {
        outstanding.pop_front();
    }
}

bool
Flow::UnansweredProbeAtFloor() const
{
    // A PROBE is given up once a later FSN of its flow is acknowledged (spec 4.5): its ACK
    // would have come with or before that one unless it was lost, and no rule times a PROBE,
    // so a lost tail marker would otherwise hold the floor for good - after a re-draw even the
    // sequence rule no longer reaches it - until the flow's 256-FSN span is full and the flow
    // sends nothing more (a 64 MiB ring all-reduce at 10% loss per link end stalled so).
    if (outstanding.front().message != kProbeMessage)
    {
        return false;
    }
    for (std::size_t i = 1; i < outstanding.size(); ++i)
    {
        if (outstanding[i].state == SentPacket::State::Acked)
        {
            return true;
        }
    }
    return false;
}

void
Flow::SetHealth(FlowHealth next)
{
    const bool legal = next == health || (health == FlowHealth::Up && next != FlowHealth::Up) ||
                       (health == FlowHealth::Suspect) ||
                       (health == FlowHealth::Down && next == FlowHealth::Up);
    if (!legal)
    {
        throw std::logic_error(std::string("flow health: illegal transition ") +
                               FlowHealthName(health) + " -> " + FlowHealthName(next));
    }
    health = next;
}

void
Flow::Redraw(uint16_t newEntropy)
{
    entropy = newEntropy;
    ++epoch;
    markedRounds = 0;
}

} // namespace metaroce
