/*
 * What the requester has to send, port by port (spec 1.3): the hints a driver asks before it
 * pulls. They read state only and are asked far more often than anything is sent, so each
 * is answered from a few fields, cheapest first.
 */
#include "metaroce-requester.h"

#include <algorithm>

namespace metaroce
{

bool
MetaRoceRequester::MaySendOn(uint16_t port) const
{
    return port < m_config.ports && m_portUp[port] && !Failed();
}

bool
MetaRoceRequester::TailDueOn(uint16_t port) const
{
    const std::optional<uint16_t> tailProbe = m_tailProbe.DueFlow();
    return (tailProbe && m_flows.PortOf(*tailProbe) == port) ||
           std::any_of(m_markersDue.begin(), m_markersDue.end(), [&](uint16_t id) {
               return m_flows.PortOf(id) == port;
           });
}

bool
MetaRoceRequester::HasRecoveryWork(uint16_t port) const
{
    return MaySendOn(port) && (m_queue.UrgentRetransmissionFirst() || TailDueOn(port));
}

bool
MetaRoceRequester::HasWork(uint16_t port) const
{
    if (!MaySendOn(port))
    {
        return false;
    }
    // Cheapest first: the NIC asks on every pull of every port.
    if (m_queue.HasQueued() || TailDueOn(port))
    {
        return true;
    }
    if (m_downFlows == 0)
    {
        return false;
    }
    for (uint16_t id : m_flows.OfPort(port))
    {
        const Flow* flow = m_flows.Find(id);
        if (flow && flow->health == FlowHealth::Down && flow->probeDue <= m_now)
        {
            return true;
        }
    }
    return false;
}

PortWork
MetaRoceRequester::WorkOnPorts() const
{
    PortWork work;
    if (Failed())
    {
        return work;
    }
    const uint64_t may = m_portUp.to_ullong() & PortBits(m_config.ports);
    uint64_t tail = 0;
    if (const std::optional<uint16_t> tailProbe = m_tailProbe.DueFlow())
    {
        tail |= uint64_t{1} << m_flows.PortOf(*tailProbe);
    }
    for (uint16_t id : m_markersDue)
    {
        tail |= uint64_t{1} << m_flows.PortOf(id);
    }
    work.recovery = may & (m_queue.UrgentRetransmissionFirst() ? ~uint64_t{0} : tail);
    work.any = may & (m_queue.HasQueued() ? ~uint64_t{0} : tail);
    if (m_downFlows == 0)
    {
        return work;
    }
    for (uint16_t port = 0; port < m_config.ports; ++port)
    {
        const uint64_t bit = uint64_t{1} << port;
        if ((may & ~work.any & bit) != 0 && HasWork(port))
        {
            work.any |= bit;
        }
    }
    return work;
}

} // namespace metaroce
