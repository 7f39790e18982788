#include "loopback-harness.h"

#include <boost/crc.hpp>
#include <stdexcept>

namespace metaroce
{

namespace
{

/// The harness re-arms whenever a deadline changes, once per event (spec 12.1).
constexpr DriverOptions kHarnessDriving{RearmPolicy::WhenChanged, false, false, 10'000};

} // namespace

LoopbackHarness::SideHost::SideHost(LoopbackHarness& harness, int side)
    : m_harness(harness)
    , m_side(side)
{
}

void
LoopbackHarness::SideHost::ScheduleTimer(TimeNs at)
{
    m_harness.m_timers[m_side] =
        Event{at, m_harness.m_seq++, 0, 0, EventType::Timer, static_cast<uint8_t>(m_side)};
}

bool
LoopbackHarness::SideHost::PortIdle(uint16_t port) const
{
    return !m_harness.PortBusy(m_side, port) && m_harness.m_planeUp[port];
}

void
LoopbackHarness::SideHost::StartPort(uint16_t port)
{
    m_harness.ServePort(m_side, port);
}

void
LoopbackHarness::SideHost::Deliver(const Completion& c)
{
    m_harness.m_completions[m_side].push_back(c);
}

LoopbackHarness::LoopbackHarness(TransportEngine& a,
                                 TransportEngine& b,
                                 const ChannelConfig& channel)
    : m_engines{&a, &b}
    , m_hosts{SideHost(*this, 0), SideHost(*this, 1)}
    , m_drivers{EngineDriver(a, channel.ports, m_hosts[0], kHarnessDriving),
                EngineDriver(b, channel.ports, m_hosts[1], kHarnessDriving)}
    , m_channel(channel)
    , m_rng(channel.seed)
    , m_impaired(channel.lossRate > 0 || channel.duplicateRate > 0 || channel.reorderRate > 0)
    , m_planeUp(channel.ports, true)
    , m_planeEpoch(channel.ports, 0)
{
    if (channel.ports == 0 || channel.rateBps == 0)
    {
        throw std::invalid_argument("ChannelConfig: ports and rateBps must be positive");
    }
    for (double p : {channel.lossRate, channel.duplicateRate, channel.reorderRate})
    {
        if (!(p >= 0 && p <= 1))
        {
            throw std::invalid_argument("ChannelConfig: rates must be probabilities in [0, 1]");
        }
    }
    for (int side = 0; side < 2; ++side)
    {
        m_portFree[side].assign(channel.ports, Event{kNever, 0, 0, 0, EventType::PortFree, 0});
        m_wires[side].resize(channel.ports);
    }
    for (Event& timer : m_timers)
    {
        timer.time = kNever;
    }
}

void
LoopbackHarness::DropNth(int side, uint64_t n)
{
    m_dropNth[side].insert(n);
}

void
LoopbackHarness::SchedulePlaneFailure(uint16_t port, TimeNs at, TimeNs upAt)
{
    if (port >= m_channel.ports)
    {
        throw std::invalid_argument("SchedulePlaneFailure: no plane " + std::to_string(port));
    }
    Push(at, EventType::PlaneDown, 0, port);
    if (upAt != kNever)
    {
        Push(upAt, EventType::PlaneUp, 0, port);
    }
}

void
LoopbackHarness::Push(TimeNs time, EventType type, int side, uint16_t port, std::size_t frame)
{
    if (frame > UINT32_MAX)
    {
        throw std::length_error("loopback harness: more than 2^32 frames in flight");
    }
    const Event e{time,
                  m_seq++,
                  static_cast<uint32_t>(frame),
                  port,
                  type,
                  static_cast<uint8_t>(side)};
    if (type == EventType::PortFree)
    {
        m_portFree[side][port] = e;
        return;
    }
    if (type == EventType::Deliver)
    {
        Ring<Event>& wire = m_wires[side][port];
        if (wire.empty() || wire.back().time <= time)
        {
            wire.push_back(e); // later seq: after the wire's last in (time, seq) order
            return;
        }
    }
    m_events.push(e);
}

const LoopbackHarness::Event*
LoopbackHarness::Earliest() const
{
    // Called once per event: the best (time, seq) so far is kept in locals rather than read
    // back through the pointer at every candidate.
    const Event* earliest = nullptr;
    TimeNs bestTime = kNever;
    uint64_t bestSeq = 0;
    const auto consider = [&](const Event& e) {
        if (e.time < bestTime || (e.time == bestTime && e.time != kNever && e.seq < bestSeq))
        {
            earliest = &e;
            bestTime = e.time;
            bestSeq = e.seq;
        }
    };
    if (!m_events.empty())
    {
        earliest = &m_events.top();
        bestTime = earliest->time;
        bestSeq = earliest->seq;
    }
    const uint16_t ports = m_channel.ports;
    for (int side = 0; side < 2; ++side)
    {
        consider(m_timers[side]);
        const Event* portFree = m_portFree[side].data();
        const Ring<Event>* wires = m_wires[side].data();
        for (uint16_t port = 0; port < ports; ++port)
        {
            consider(portFree[port]);
            if (!wires[port].empty())
            {
                consider(wires[port].front());
            }
        }
    }
    return earliest;
}

void
LoopbackHarness::Consume(const Event* e)
{
    if (e == &m_timers[0] || e == &m_timers[1])
    {
        m_timers[e->side].time = kNever;
    }
    else if (!m_events.empty() && e == &m_events.top())
    {
        m_events.pop();
    }
    else if (e->type == EventType::PortFree)
    {
        m_portFree[e->side][e->port].time = kNever;
    }
    else
    {
        m_wires[e->side][e->port].pop_front();
    }
}

uint32_t
Crc32(const uint8_t* data, std::size_t size)
{
    boost::crc_32_type crc; // IEEE 802.3, reflected
    crc.process_bytes(data, size);
    return crc.checksum();
}

void
LoopbackHarness::Corrupt(Frame& f)
{
    const uint64_t bit = m_rng() % (static_cast<uint64_t>(f.wireSize) * 8);
    if (bit / 8 < f.bytes.size())
    {
        f.bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    }
    else
    {
        f.payloadHit = true;
    }
}

bool
LoopbackHarness::Intact(const Frame& f) const
{
    return m_channel.corruptRate <= 0 ||
           (!f.payloadHit && f.crc == Crc32(f.bytes.data(), f.bytes.size()));
}

void
LoopbackHarness::Transmit(int side, const OutPacket& pkt, TimeNs serialisation)
{
    ++m_stats.sent;
    const uint64_t index = m_txCount[side]++;
    bool dropped =
        m_dropNth[side].count(index) > 0 || (m_dropIf[side] && m_dropIf[side](pkt, m_now));
    // Draw every random decision for every packet, so that scripted drops do not shift the
    // random sequence of later packets; a channel that impairs nothing has nothing to draw.
    double lossDraw = 1;
    double dupDraw = 1;
    double reorderDraw = 1;
    TimeNs extra = 0;
    if (m_impaired)
    {
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        lossDraw = uniform(m_rng);
        dupDraw = uniform(m_rng);
        reorderDraw = uniform(m_rng);
        extra = m_channel.reorderDelayNs > 0 ? m_rng() % (m_channel.reorderDelayNs + 1) : 0;
    }
    dropped = dropped || lossDraw < m_channel.lossRate;
    if (m_onTransmit)
    {
        m_onTransmit(side, pkt, dropped);
    }
    if (dropped)
    {
        ++m_stats.dropped;
        return;
    }
    TimeNs arrival = m_now + serialisation + m_channel.delayNs;
    if (reorderDraw < m_channel.reorderRate)
    {
        ++m_stats.reordered;
        arrival += extra;
    }
    const int copies = dupDraw < m_channel.duplicateRate ? 2 : 1;
    m_stats.duplicated += copies - 1;
    for (int c = 0; c < copies; ++c)
    {
        std::size_t slot;
        if (!m_freeFrames.empty())
        {
            slot = m_freeFrames.back();
            m_freeFrames.pop_back();
        }
        else
        {
            slot = m_frames.size();
            m_frames.emplace_back();
        }
        Frame& f = m_frames[slot];
        f.bytes.assign(pkt.header.begin(), pkt.header.end());
        f.bytes.insert(f.bytes.end(), pkt.payload.begin(), pkt.payload.end());
        f.wireSize = pkt.WireSize();
        f.planeEpoch = m_planeEpoch[pkt.port];
        f.payloadHit = false;
        // Corruption draws only when it is on, so that runs without it keep their sequence.
        if (m_channel.corruptRate > 0)
        {
            f.crc = Crc32(f.bytes.data(), f.bytes.size());
            if (std::uniform_real_distribution<double>(0.0, 1.0)(m_rng) < m_channel.corruptRate)
            {
                Corrupt(f);
            }
        }
        Push(arrival + c, EventType::Deliver, 1 - side, pkt.port, slot);
    }
}

void
LoopbackHarness::ServePort(int side, uint16_t port)
{
    if (PortBusy(side, port) || !m_planeUp[port])
    {
        return;
    }
    std::optional<OutPacket> pkt = m_drivers[side].Pull(port, m_now);
    if (!pkt)
    {
        return;
    }
    // One division per frame: it is a slow instruction, and the port and the wire need the same
    // time.
    const TimeNs serialisation = pkt->WireSize() * 8'000'000'000ULL / m_channel.rateBps;
    Push(m_now + serialisation, EventType::PortFree, side, port);
    Transmit(side, *pkt, serialisation);
}

void
LoopbackHarness::ServeAll(int side)
{
    m_drivers[side].ServePorts();
}

void
LoopbackHarness::Kick()
{
    for (int side = 0; side < 2; ++side)
    {
        ServeAll(side);
        m_drivers[side].Rearm(m_now);
    }
}

bool
LoopbackHarness::Run(const std::function<bool()>& done, TimeNs limit)
{
    Kick();
    while (const Event* next = Earliest())
    {
        if (done())
        {
            return true;
        }
        const Event e = *next;
        if (e.time > limit)
        {
            return false;
        }
        Consume(next);
        m_now = e.time;
        // Only the engines an event calls into can have changed: only they are re-armed.
        bool touched[2] = {e.side == 0, e.side == 1};
        switch (e.type)
        {
        case EventType::PortFree:
            ServePort(e.side, e.port);
            break;
        case EventType::Deliver: {
            Frame& f = m_frames[e.frame];
            if (!m_planeUp[e.port] || f.planeEpoch != m_planeEpoch[e.port])
            {
                ++m_stats.lostOnDownPlane;
            }
            else if (!Intact(f))
            {
                ++m_stats.corrupted; // detected by the port: never handed to the engine
            }
            else
            {
                RxPacket rx;
                rx.data = f.bytes.data();
                rx.size = f.bytes.size();
                rx.wireSize = f.wireSize;
                rx.port = e.port;
                rx.now = m_now;
                m_stats.bytesDelivered += f.wireSize;
                ++m_stats.delivered;
                m_engines[e.side]->OnPacket(rx);
            }
            m_freeFrames.push_back(e.frame);
            ServeAll(e.side);
            break;
        }
        case EventType::Timer:
            m_drivers[e.side].OnTimer(m_now);
            ServeAll(e.side);
            break;
        case EventType::PlaneDown:
        case EventType::PlaneUp: {
            const bool up = e.type == EventType::PlaneUp;
            m_planeUp[e.port] = up;
            ++m_planeEpoch[e.port];
            for (int side = 0; side < 2; ++side)
            {
                touched[side] = true;
                m_engines[side]->OnPortState(e.port, up, m_now);
                ServeAll(side);
            }
            break;
        }
        }
        for (int side = 0; side < 2; ++side)
        {
            if (touched[side])
            {
                m_drivers[side].Collect();
                m_drivers[side].Rearm(m_now);
            }
        }
    }
    return done();
}

bool
LoopbackHarness::RunUntilIdle(TimeNs limit)
{
    return Run([this] { return m_engines[0]->Idle() && m_engines[1]->Idle(); }, limit);
}

} // namespace metaroce
