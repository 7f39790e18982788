#include "loopback-harness.h"

#include <stdexcept>

namespace metaroce
{

LoopbackHarness::LoopbackHarness(TransportEngine& a,
                                 TransportEngine& b,
                                 const ChannelConfig& channel)
    : m_engines{&a, &b}
    , m_channel(channel)
    , m_rng(channel.seed)
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
    for (auto& busy : m_portBusy)
    {
        busy.assign(channel.ports, false);
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
LoopbackHarness::Push(TimeNs time, EventType type, int side, uint16_t port, uint64_t generation)
{
    m_events.push(Event{time, m_seq++, type, side, port, generation});
}

void
LoopbackHarness::Transmit(int side, const OutPacket& pkt)
{
    ++m_stats.sent;
    const uint64_t index = m_txCount[side]++;
    bool dropped = m_dropNth[side].count(index) > 0;
    // Draw every random decision for every packet, so that scripted drops do not shift the
    // random sequence of later packets.
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double lossDraw = uniform(m_rng);
    const double dupDraw = uniform(m_rng);
    const double reorderDraw = uniform(m_rng);
    const TimeNs extra =
        m_channel.reorderDelayNs > 0 ? m_rng() % (m_channel.reorderDelayNs + 1) : 0;
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
    const TimeNs serialisation = pkt.WireSize() * 8'000'000'000ULL / m_channel.rateBps;
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
        Push(arrival + c, EventType::Deliver, 1 - side, pkt.port, slot);
    }
}

void
LoopbackHarness::ServePort(int side, uint16_t port)
{
    if (m_portBusy[side][port] || !m_planeUp[port])
    {
        return;
    }
    std::optional<OutPacket> pkt = m_engines[side]->PullPacket(port, m_now);
    if (!pkt)
    {
        return;
    }
    if (pkt->port != port)
    {
        throw std::logic_error("engine returned a packet for another port");
    }
    m_portBusy[side][port] = true;
    Push(m_now + pkt->WireSize() * 8'000'000'000ULL / m_channel.rateBps,
         EventType::PortFree,
         side,
         port);
    Transmit(side, *pkt);
}

void
LoopbackHarness::ServeAll(int side)
{
    for (uint16_t port = 0; port < m_channel.ports; ++port)
    {
        ServePort(side, port);
    }
}

void
LoopbackHarness::Rearm(int side)
{
    const TimeNs next = m_engines[side]->NextTimeout();
    if (next == kNever || next == m_timerAt[side])
    {
        return;
    }
    m_timerAt[side] = next;
    Push(std::max(next, m_now), EventType::Timer, side, 0, ++m_timerGeneration[side]);
}

void
LoopbackHarness::Collect(int side)
{
    for (const Completion& c : m_engines[side]->TakeCompletions())
    {
        m_completions[side].push_back(c);
    }
}

void
LoopbackHarness::Kick()
{
    for (int side = 0; side < 2; ++side)
    {
        ServeAll(side);
        Rearm(side);
    }
}

bool
LoopbackHarness::Run(const std::function<bool()>& done, TimeNs limit)
{
    Kick();
    while (!m_events.empty())
    {
        if (done())
        {
            return true;
        }
        const Event e = m_events.top();
        if (e.time > limit)
        {
            return false;
        }
        m_events.pop();
        m_now = e.time;
        switch (e.type)
        {
        case EventType::PortFree:
            m_portBusy[e.side][e.port] = false;
            ServePort(e.side, e.port);
            break;
        case EventType::Deliver: {
            Frame& f = m_frames[e.generation];
            if (!m_planeUp[e.port] || f.planeEpoch != m_planeEpoch[e.port])
            {
                ++m_stats.lostOnDownPlane;
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
                m_engines[e.side]->OnPacket(rx);
            }
            m_freeFrames.push_back(e.generation);
            ServeAll(e.side);
            break;
        }
        case EventType::Timer:
            if (e.generation != m_timerGeneration[e.side])
            {
                continue;
            }
            m_timerAt[e.side] = kNever;
            // An engine whose deadline does not move past a timeout it was given would spin.
            if (m_now == m_lastTimerAt[e.side] && ++m_timersAtSameTime[e.side] > 10'000)
            {
                throw std::logic_error(std::string(m_engines[e.side]->Name()) +
                                       ": NextTimeout() does not advance");
            }
            if (m_now != m_lastTimerAt[e.side])
            {
                m_lastTimerAt[e.side] = m_now;
                m_timersAtSameTime[e.side] = 0;
            }
            m_engines[e.side]->OnTimeout(m_now);
            ServeAll(e.side);
            break;
        case EventType::PlaneDown:
        case EventType::PlaneUp: {
            const bool up = e.type == EventType::PlaneUp;
            m_planeUp[e.port] = up;
            ++m_planeEpoch[e.port];
            for (int side = 0; side < 2; ++side)
            {
                m_engines[side]->OnPortState(e.port, up, m_now);
                ServeAll(side);
            }
            break;
        }
        }
        for (int side = 0; side < 2; ++side)
        {
            Collect(side);
            Rearm(side);
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
