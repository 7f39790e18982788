#include "engine-adapter.h"

#include "metaroce-connection.h"
#include "rocev2-queue-pair.h"

#include <algorithm>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

/// Bytes of a packet the engine is handed: a NIC copies the transport header and leaves the
/// payload virtual (MetaRoceNic does the same), so both adapters exercise the same engine path.
constexpr std::size_t kHeaderBytesHanded = kMrMaxHeaderSize;

/// The timer equals the deadline at every step; offer only ports the engine has work for.
constexpr DriverOptions kAdapterDriving{RearmPolicy::Track, false, true, 10'000};

} // namespace

TimeNs
FrameTimeNs(uint64_t udpPayloadBytes, uint64_t rateBps)
{
    const unsigned __int128 bits = (udpPayloadBytes + kFrameOverheadBytes) * 8;
    const unsigned __int128 scaled = bits * 1000000000u + rateBps / 2;
    return static_cast<TimeNs>(scaled / rateBps);
}

const char*
EngineAdapter::Name() const
{
    return "engine";
}

void
EngineAdapter::Reset(const DutSetup& setup)
{
    m_setup = setup;
    m_memory = MakeDutMemory(setup);
    m_engine = MakeDutEngine(setup, *m_memory);
    DriverHost& host = *this; // a private base: converted here, inside the class
    m_driver = std::make_unique<EngineDriver>(*m_engine, setup.Ports(), host, kAdapterDriving);
    m_now = 0;
    m_busyUntil.assign(setup.Ports(), kNever);
    m_portUp.assign(setup.Ports(), true);
    m_nextWrId = 1;
    m_emitted.clear();
    m_completions.clear();
    Service();
}

TimeNs
EngineAdapter::Now() const
{
    return m_now;
}

bool
EngineAdapter::HasOutput() const
{
    return !m_emitted.empty() || !m_completions.empty();
}

TimeNs
EngineAdapter::NextEvent() const
{
    TimeNs next = m_driver->TimerAt();
    if (next != kNever)
    {
        next = std::max(next, m_now);
    }
    for (TimeNs busy : m_busyUntil)
    {
        next = std::min(next, busy);
    }
    return next;
}

void
EngineAdapter::AdvanceTo(TimeNs t, bool stopOnOutput)
{
    for (TimeNs next = NextEvent(); next <= t; next = NextEvent())
    {
        if (stopOnOutput && HasOutput())
        {
            return;
        }
        m_now = next;
        for (TimeNs& busy : m_busyUntil)
        {
            if (busy <= m_now)
            {
                busy = kNever; // the port is free again: Service() pulls
            }
        }
        if (m_driver->TimerAt() <= m_now)
        {
            m_driver->OnTimer(m_now); // throws when the deadline does not advance
        }
        Service();
    }
    if (stopOnOutput && HasOutput())
    {
        return;
    }
    m_now = std::max(m_now, t);
}

void
EngineAdapter::Service()
{
    m_driver->Service(m_now);
}

void
EngineAdapter::ScheduleTimer(TimeNs)
{
}

bool
EngineAdapter::PortIdle(uint16_t port) const
{
    return m_portUp[port] && m_busyUntil[port] == kNever;
}

void
EngineAdapter::Deliver(const Completion& c)
{
    m_completions.push_back(c);
}

void
EngineAdapter::StartPort(uint16_t port)
{
    std::optional<OutPacket> out = m_driver->Pull(port, m_now);
    if (out)
    {
        WirePacket w;
        w.time = m_now;
        w.port = out->port;
        w.udpSrcPort = out->udpSrcPort;
        w.udpDstPort = out->udpDstPort;
        w.bytes = out->header.ToVector();
        w.bytes.resize(out->WireSize(), 0); // virtual payload: zeros, as on the NIC's wire
        m_busyUntil[port] = m_now + FrameTimeNs(w.bytes.size(), m_setup.PortRateBps());
        m_emitted.push_back(std::move(w));
    }
}

void
EngineAdapter::Inject(const WirePacket& pkt)
{
    if (pkt.port >= m_portUp.size())
    {
        throw std::invalid_argument("engine adapter: no port " + std::to_string(pkt.port));
    }
    RxPacket rx;
    rx.data = pkt.bytes.data();
    rx.size = std::min(pkt.bytes.size(), kHeaderBytesHanded);
    rx.wireSize = pkt.bytes.size();
    rx.port = pkt.port;
    rx.ecnCe = pkt.ecnCe;
    rx.now = m_now;
    m_engine->OnPacket(rx);
    Service();
}

uint64_t
EngineAdapter::Post(const WorkRequest& request)
{
    WorkRequest wr = request;
    wr.id = m_nextWrId++;
    if (wr.op == Opcode::Recv)
    {
        m_engine->PostRecv(wr);
    }
    else
    {
        m_engine->PostSend(wr, m_now);
    }
    Service();
    return wr.id;
}

void
EngineAdapter::SetPortState(uint16_t port, bool up)
{
    if (m_portUp[port] == up)
    {
        return;
    }
    m_portUp[port] = up;
    m_engine->OnPortState(port, up, m_now);
    Service();
}

Counters
EngineAdapter::ReadCounters() const
{
    return m_engine->GetCounters();
}

} // namespace metaroce::compliance
