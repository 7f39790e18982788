#include "udp-driver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace metaroce::udp
{

namespace
{

/// Every pull happens inside Service() (the loop never pulls on its own), so re-arming once
/// per Service() suffices; the deadline is re-armed whenever it changes, as in the harness.
constexpr DriverOptions kUdpDriving{RearmPolicy::WhenChanged, false, true, 10'000};

/// Packets one StartPort() may send before the loop reads its sockets again.
constexpr int kSendBatch = 32;

/// A wake-up closer than this is waited for by polling: a timerfd sleep costs tens of
/// microseconds of scheduler latency, more than a pacing gap at a few Gb/s.
constexpr TimeNs kSpinNs = 50'000;

/// Retry interval of a socket that said EAGAIN.
constexpr TimeNs kRetryNs = 10'000;

/// Largest datagram read: an MTU of 9000 plus the largest header, with room to spare.
constexpr std::size_t kRxBufferBytes = 65536;

TimeNs
MonotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<TimeNs>(ts.tv_sec) * 1'000'000'000ULL + static_cast<TimeNs>(ts.tv_nsec);
}

void
AddToEpoll(int epoll, int fd, uint64_t tag)
{
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
    {
        throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
    }
}

/// epoll tags: planes are their port number; these are above any port.
constexpr uint64_t kTagTimer = 1 << 20;
constexpr uint64_t kTagWatched = kTagTimer + 1;

} // namespace

UdpDriver::UdpDriver(TransportEngine& engine, const UdpDriverConfig& config)
    : m_engine(engine)
    , m_config(config)
    , m_ports(config.planes.size())
    , m_driver(engine, static_cast<uint16_t>(config.planes.size()), *this, kUdpDriving)
    , m_faults(config.faults)
    , m_rxBuffer(kRxBufferBytes)
    , m_origin(MonotonicNs())
{
    if (config.planes.empty() || config.rateBps == 0)
    {
        throw std::invalid_argument("UdpDriverConfig: at least one plane and a rate > 0");
    }
    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    m_timerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (m_epoll < 0 || m_timerFd < 0)
    {
        throw std::runtime_error(std::string("epoll/timerfd: ") + std::strerror(errno));
    }
    AddToEpoll(m_epoll, m_timerFd, kTagTimer);
    for (std::size_t p = 0; p < config.planes.size(); ++p)
    {
        m_planes.push_back(
            std::make_unique<UdpPlane>(config.planes[p], config.entropy, config.maxEntropySockets));
        AddToEpoll(m_epoll, m_planes.back()->Fd(), p);
    }
    if (!config.pcapPath.empty())
    {
        m_pcap = std::make_unique<PcapWriter>(config.pcapPath, config.pcapSnapLength);
    }
}

UdpDriver::~UdpDriver()
{
    close(m_timerFd);
    close(m_epoll);
}

TimeNs
UdpDriver::Now() const
{
    return m_config.clock == ClockMode::Virtual ? m_virtualNow : MonotonicNs() - m_origin;
}

void
UdpDriver::SetVirtualNow(TimeNs t)
{
    if (m_config.clock != ClockMode::Virtual)
    {
        throw std::logic_error("UdpDriver::SetVirtualNow on a real clock");
    }
    m_virtualNow = std::max(m_virtualNow, t);
}

void
UdpDriver::PostSend(const WorkRequest& wr)
{
    const TimeNs now = Now();
    m_engine.PostSend(wr, now);
    m_driver.Service(now);
}

void
UdpDriver::PostRecv(const WorkRequest& wr)
{
    m_engine.PostRecv(wr);
    m_driver.Service(Now());
}

void
UdpDriver::SetPortState(uint16_t port, bool up)
{
    if (port >= m_ports.size())
    {
        throw std::invalid_argument("UdpDriver: no port " + std::to_string(port));
    }
    if (m_ports[port].up == up)
    {
        return;
    }
    m_ports[port].up = up;
    const TimeNs now = Now();
    m_engine.OnPortState(port, up, now);
    m_driver.Service(now);
}

void
UdpDriver::ScheduleTimer(TimeNs at)
{
    m_timerAt = at;
}

bool
UdpDriver::PortIdle(uint16_t port) const
{
    const PortState& s = m_ports[port];
    return s.up && !s.hasPending && s.busyUntil <= Now();
}

void
UdpDriver::StartPort(uint16_t port)
{
    for (int sent = 0; sent < kSendBatch && PortIdle(port); ++sent)
    {
        const TimeNs now = Now();
        std::optional<OutPacket> pkt = m_driver.Pull(port, now);
        if (!pkt)
        {
            return;
        }
        // The port is busy for the frame's line time, from now or from where a late loop's
        // catch-up allowance starts.
        PortState& s = m_ports[port];
        const uint64_t frameBits = (pkt->WireSize() + m_config.frameOverheadBytes) * 8;
        const TimeNs frameNs =
            (frameBits * 1'000'000'000ULL + m_config.rateBps / 2) / m_config.rateBps;
        const TimeNs from = now > m_config.burstNs ? now - m_config.burstNs : 0;
        s.busyUntil = std::max(s.busyUntil, from) + frameNs;
        Transmit(port, *pkt);
    }
}

void
UdpDriver::Deliver(const Completion& c)
{
    if (m_onCompletion)
    {
        m_onCompletion(c);
    }
}

void
UdpDriver::Transmit(uint16_t port, const OutPacket& pkt)
{
    // A virtual payload (a request with local key 0) goes out as zeros, as a NIC's would.
    static const std::vector<uint8_t> zeros(kRxBufferBytes, 0);
    const bool virtualPayload = pkt.payload.size() < pkt.payloadSize;
    const iovec iov[2] = {{const_cast<uint8_t*>(pkt.header.data()), pkt.header.size()},
                          {const_cast<uint8_t*>(virtualPayload ? zeros.data() : pkt.payload.data()),
                           virtualPayload ? std::min<std::size_t>(pkt.payloadSize, zeros.size())
                                          : pkt.payload.size()}};
    const int iovCount = iov[1].iov_len == 0 ? 1 : 2;
    if (!m_config.faults.Active())
    {
        SendNow(port, pkt.udpSrcPort, iov, iovCount);
        return;
    }
    const FaultDecision d = m_faults.Decide();
    if (d.drop)
    {
        return;
    }
    for (int c = 0; c < d.copies; ++c)
    {
        if (d.holdNs == 0 && !d.corruptDraw)
        {
            SendNow(port, pkt.udpSrcPort, iov, iovCount);
            continue;
        }
        std::vector<uint8_t> bytes = pkt.header.ToVector();
        const auto* payload = static_cast<const uint8_t*>(iov[1].iov_base);
        bytes.insert(bytes.end(), payload, payload + iov[1].iov_len);
        if (d.corruptDraw)
        {
            // A bit error: one bit of the datagram flipped (every copy alike).
            const uint64_t bit = *d.corruptDraw % (bytes.size() * 8);
            bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        }
        if (d.holdNs == 0)
        {
            const iovec whole{bytes.data(), bytes.size()};
            SendNow(port, pkt.udpSrcPort, &whole, 1);
            continue;
        }
        m_faults.Hold(Now() + d.holdNs + c, port, pkt.udpSrcPort, std::move(bytes));
    }
}

bool
UdpDriver::SendNow(uint16_t port, uint16_t srcPort, const iovec* iov, int iovCount)
{
    UdpPlane& plane = *m_planes[port];
    const int used = plane.Send(srcPort, iov, iovCount);
    if (used == 0)
    {
        // The socket is full: keep a copy and retry it before anything else on this port.
        PortState& s = m_ports[port];
        s.hasPending = true;
        s.pendingSrcPort = srcPort;
        s.pending.clear();
        for (int i = 0; i < iovCount; ++i)
        {
            const auto* b = static_cast<const uint8_t*>(iov[i].iov_base);
            s.pending.insert(s.pending.end(), b, b + iov[i].iov_len);
        }
        return false;
    }
    std::size_t bytes = 0;
    for (int i = 0; i < iovCount; ++i)
    {
        bytes += iov[i].iov_len;
    }
    ++m_stats.txDatagrams;
    m_stats.txBytes += bytes;
    m_lastTraffic = Now();
    if (used > 0 && m_pcap)
    {
        sockaddr_in src = plane.LocalAddress();
        src.sin_port = htons(static_cast<uint16_t>(used));
        m_pcap->Write(src, plane.RemoteAddress(), false, iov, iovCount);
    }
    if (m_onTransmit)
    {
        std::vector<uint8_t> copy;
        for (int i = 0; i < iovCount; ++i)
        {
            const auto* b = static_cast<const uint8_t*>(iov[i].iov_base);
            copy.insert(copy.end(), b, b + iov[i].iov_len);
        }
        m_onTransmit(Now(), port, static_cast<uint16_t>(used > 0 ? used : srcPort), copy);
    }
    return true;
}

void
UdpDriver::Flush()
{
    for (uint16_t port = 0; port < m_ports.size(); ++port)
    {
        PortState& s = m_ports[port];
        if (s.hasPending)
        {
            s.hasPending = false;
            std::vector<uint8_t> bytes = std::move(s.pending);
            const iovec iov{bytes.data(), bytes.size()};
            SendNow(port, s.pendingSrcPort, &iov, 1); // may set it pending again
        }
    }
    const TimeNs now = Now();
    while (m_faults.NextRelease() <= now)
    {
        HeldPacket held = m_faults.PopReleased();
        const iovec iov{held.bytes.data(), held.bytes.size()};
        // A held packet refused by a full socket is lost rather than re-held: it has already
        // been delayed, and a loss is what a full queue does.
        if (!m_ports[held.port].hasPending)
        {
            SendNow(held.port, held.srcPort, &iov, 1);
        }
    }
}

std::size_t
UdpDriver::Receive(std::size_t max)
{
    std::size_t total = 0;
    for (uint16_t port = 0; port < m_planes.size(); ++port)
    {
        PortState& s = m_ports[port];
        std::size_t n = 0;
        ReceivedDatagram d;
        // `max` bounds what is read, dropped datagrams included: a flood from elsewhere
        // cannot keep the loop from its timers and sends.
        for (std::size_t read = 0; s.readable && read < max; ++read)
        {
            if (!m_planes[port]->Receive(m_rxBuffer.data(), m_rxBuffer.size(), d))
            {
                s.readable = false; // until epoll says otherwise
                break;
            }
            ++m_stats.rxDatagrams;
            m_stats.rxBytes += d.size;
            if (m_pcap)
            {
                // The capture is the wire: a datagram from elsewhere is in it too.
                const iovec iov{m_rxBuffer.data(), d.size};
                m_pcap->Write(d.from, m_planes[port]->LocalAddress(), d.ecnCe, &iov, 1);
            }
            if (const std::optional<UdpDropReason> why = m_planes[port]->Screen(d.from))
            {
                ++m_stats.rxDropped[static_cast<std::size_t>(*why)];
                continue;
            }
            ++n;
            // A packet on a down plane still reaches the engine, which refuses and counts it
            // (PortDown), as the spec asks of every refusal.
            RxPacket rx;
            rx.data = m_rxBuffer.data();
            rx.size = d.size;
            rx.wireSize = d.size;
            rx.port = port;
            rx.ecnCe = d.ecnCe;
            rx.now = Now();
            m_stats.rxRefused += !m_engine.OnPacket(rx).accepted;
        }
        total += n;
    }
    return total;
}

std::size_t
UdpDriver::ReceiveBlocking(uint16_t port, int timeoutMs)
{
    pollfd p{m_planes[port]->Fd(), POLLIN, 0};
    if (poll(&p, 1, timeoutMs) <= 0)
    {
        return 0;
    }
    m_ports[port].readable = true;
    return Receive(1);
}

void
UdpDriver::Step()
{
    const TimeNs now = Now();
    if (m_timerAt != kNever && m_timerAt <= now)
    {
        m_timerAt = kNever;
        m_driver.OnTimer(now);
    }
    Flush();
    m_driver.Service(now);
}

TimeNs
UdpDriver::NextWake() const
{
    TimeNs wake = std::min(m_timerAt, m_faults.NextRelease());
    const TimeNs now = Now();
    for (uint16_t port = 0; port < m_ports.size(); ++port)
    {
        const PortState& s = m_ports[port];
        if (s.hasPending)
        {
            wake = std::min(wake, now + kRetryNs);
        }
        else if (s.up && s.busyUntil > now && m_engine.HasWork(port))
        {
            wake = std::min(wake, s.busyUntil);
        }
    }
    return wake;
}

void
UdpDriver::ArmTimerFd(TimeNs at)
{
    if (at == m_timerFdAt)
    {
        return;
    }
    m_timerFdAt = at;
    itimerspec spec{};
    if (at != kNever)
    {
        const TimeNs abs = std::max<TimeNs>(at + m_origin, 1);
        spec.it_value.tv_sec = static_cast<time_t>(abs / 1'000'000'000ULL);
        spec.it_value.tv_nsec = static_cast<long>(abs % 1'000'000'000ULL);
    }
    timerfd_settime(m_timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void
UdpDriver::WatchFd(int fd)
{
    AddToEpoll(m_epoll, fd, kTagWatched);
    m_watchedReadable = true;
}

bool
UdpDriver::TakeWatchedReadable()
{
    const bool readable = m_watchedReadable;
    m_watchedReadable = false;
    return readable;
}

void
UdpDriver::WaitInput(TimeNs timeoutNs)
{
    int timeoutMs = 0;
    if (timeoutNs > kSpinNs)
    {
        // Sleep on the timerfd for precision; the epoll timeout is only a backstop.
        const TimeNs now = Now();
        ArmTimerFd(timeoutNs == kNever ? kNever : now + timeoutNs);
        timeoutMs = timeoutNs == kNever ? 1000 : static_cast<int>(timeoutNs / 1'000'000 + 1);
        ++m_stats.sleeps;
    }
    epoll_event events[16];
    const int n = epoll_wait(m_epoll, events, 16, timeoutMs);
    for (int i = 0; i < n; ++i)
    {
        const uint64_t tag = events[i].data.u64;
        if (tag < m_ports.size())
        {
            m_ports[tag].readable = true;
        }
        else if (tag == kTagWatched)
        {
            m_watchedReadable = true;
        }
        else if (tag == kTagTimer)
        {
            uint64_t expirations = 0;
            [[maybe_unused]] ssize_t r = read(m_timerFd, &expirations, sizeof(expirations));
            m_timerFdAt = kNever;
        }
    }
}

bool
UdpDriver::RunUntil(const std::function<bool()>& done, TimeNs limit)
{
    m_driver.Service(Now());
    while (!done())
    {
        if (Now() >= limit)
        {
            return false;
        }
        ++m_stats.loopIterations;
        if (Receive(64) > 0)
        {
            m_lastTraffic = Now();
        }
        Step();
        if (done())
        {
            // Completions delivered in this round are acted on before the loop sleeps: a
            // ping-pong server would otherwise answer only at its next wake-up.
            return true;
        }
        const TimeNs wake = NextWake();
        const TimeNs now = Now();
        const bool input = std::any_of(m_ports.begin(), m_ports.end(), [](const PortState& s) {
            return s.readable;
        });
        if (!input)
        {
            const TimeNs until = std::min(wake, limit);
            const bool busy = now - m_lastTraffic < m_config.busyPollNs;
            WaitInput(until <= now || busy ? 0 : until - now);
        }
    }
    return true;
}

void
UdpDriver::FinishCapture()
{
    if (m_pcap)
    {
        m_pcap->Finish();
    }
}

UdpDriverStats
UdpDriver::Stats() const
{
    UdpDriverStats s = m_stats;
    s.faults = m_faults.Stats();
    for (const auto& plane : m_planes)
    {
        const PlaneStats& p = plane->Stats();
        s.planes.entropySockets += p.entropySockets;
        s.planes.entropyFallbacks += p.entropyFallbacks;
        s.planes.sendWouldBlock += p.sendWouldBlock;
        s.planes.sendErrors += p.sendErrors;
        s.planes.truncated += p.truncated;
    }
    return s;
}

} // namespace metaroce::udp
