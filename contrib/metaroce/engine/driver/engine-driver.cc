#include "engine-driver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

EngineDriver::EngineDriver(TransportEngine& engine,
                           uint16_t ports,
                           DriverHost& host,
                           DriverOptions options)
    : m_engine(engine)
    , m_ports(ports)
    , m_host(host)
    , m_options(options)
{
}

void
EngineDriver::Service(TimeNs now)
{
    Collect();
    ServePorts();
    Rearm(now);
}

void
EngineDriver::Collect()
{
    for (const Completion& c : m_engine.TakeCompletions())
    {
        m_host.Deliver(c);
    }
}

void
EngineDriver::ServePorts()
{
    if (!m_options.offerOnlyWithWork)
    {
        for (uint16_t port = 0; port < m_ports; ++port)
        {
            if (m_host.PortIdle(port))
            {
                m_host.StartPort(port);
            }
        }
        return;
    }
    // One WorkOnPorts call answers HasWork for every port, until a port starts: its pulls
    // take work and may add some elsewhere (the markers behind every path's tail, spec 4.5).
    uint64_t work = m_engine.WorkOnPorts(m_ports).any;
    for (uint16_t port = 0; port < m_ports; ++port)
    {
        const bool hasWork = port < 64 ? (work >> port & 1) != 0 : m_engine.HasWork(port);
        if (hasWork && m_host.PortIdle(port))
        {
            m_host.StartPort(port);
            work = m_engine.WorkOnPorts(m_ports).any;
        }
    }
}

bool
EngineDriver::Moves(TimeNs next) const
{
    switch (m_options.rearm)
    {
    case RearmPolicy::WhenEarlier:
        return next != kNever && (m_timerAt == kNever || next < m_timerAt);
    case RearmPolicy::WhenChanged:
        return next != kNever && next != m_timerAt;
    case RearmPolicy::Track:
        return next != m_timerAt;
    }
    return false;
}

void
EngineDriver::Rearm(TimeNs now)
{
    const TimeNs next = m_engine.NextTimeout();
    if (!Moves(next))
    {
        return;
    }
    m_timerAt = next;
    m_host.ScheduleTimer(next == kNever ? kNever : std::max(next, now));
}

std::optional<OutPacket>
EngineDriver::Pull(uint16_t port, TimeNs now, PullKind kind)
{
    std::optional<OutPacket> out = kind == PullKind::Control ? m_engine.PullControlPacket(port, now)
                                   : kind == PullKind::Recovery
                                       ? m_engine.PullRecoveryPacket(port, now)
                                       : m_engine.PullPacket(port, now);
    if (out && out->port != port)
    {
        throw std::logic_error(std::string(m_engine.Name()) +
                               ": engine returned a packet for another port");
    }
    if (m_options.rearmAfterPull)
    {
        // Every pull may move the deadline, also one that returns nothing: a pull held back
        // by pacing makes the release time a deadline, and one that retires a fully sent
        // message may start the tail-loss probe clock (spec 1.3).
        Rearm(now);
    }
    return out;
}

void
EngineDriver::OnTimer(TimeNs now)
{
    m_timerAt = kNever;
    // An engine whose deadline does not move past a timeout it was given would spin.
    if (now == m_lastTimeoutAt && ++m_timeoutsAtSameTime > m_options.maxTimeoutsPerInstant)
    {
        throw std::logic_error(std::string(m_engine.Name()) + ": NextTimeout() does not advance");
    }
    if (now != m_lastTimeoutAt)
    {
        m_lastTimeoutAt = now;
        m_timeoutsAtSameTime = 0;
    }
    m_engine.OnTimeout(now);
}

} // namespace metaroce
