#include "udp-adapter.h"

#include "engine-adapter.h"
#include "metaroce-connection.h"
#include "rocev2-queue-pair.h"

#include <algorithm>
#include <arpa/inet.h>
#include <poll.h>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

/// Loopback addresses of plane p: the DUT's 127.0.90.(2p+1), the adapter's 127.0.90.(2p+2).
std::string
PlaneAddress(uint16_t port, bool dut)
{
    return "127.0.90." + std::to_string(2 * port + (dut ? 1 : 2));
}

/// How long a datagram may take through loopback before the adapter calls it lost.
constexpr int kLoopbackTimeoutMs = 2000;

} // namespace

UdpAdapter::UdpAdapter() = default;

UdpAdapter::~UdpAdapter()
{
    Teardown();
}

const char*
UdpAdapter::Name() const
{
    return "udp";
}

void
UdpAdapter::Teardown()
{
    m_driver.reset();
    m_engine.reset();
    m_tester.clear();
    m_inFlight.clear();
}

void
UdpAdapter::Reset(const DutSetup& setup)
{
    Teardown();
    m_setup = setup;
    m_memory = MakeDutMemory(setup);
    m_engine = MakeDutEngine(setup, *m_memory);
    const uint16_t udpPort =
        setup.transport == Transport::MetaRoce ? kMetaRoceUdpPort : kRoceV2UdpPort;
    udp::UdpDriverConfig config;
    for (uint16_t p = 0; p < setup.Ports(); ++p)
    {
        const udp::PlaneEndpoint dut{PlaneAddress(p, true),
                                     udpPort,
                                     PlaneAddress(p, false),
                                     udpPort};
        const udp::PlaneEndpoint far{PlaneAddress(p, false),
                                     udpPort,
                                     PlaneAddress(p, true),
                                     udpPort};
        config.planes.push_back(dut);
        m_tester.push_back(std::make_unique<udp::UdpPlane>(far, udp::EntropyMode::Bind, 4096));
    }
    config.rateBps = setup.PortRateBps();
    config.frameOverheadBytes = kFrameOverheadBytes;
    config.burstNs = 0;
    config.busyPollNs = 0;
    config.clock = udp::ClockMode::Virtual;
    m_driver = std::make_unique<udp::UdpDriver>(*m_engine, config);
    m_driver->OnCompletion([this](const Completion& c) { m_completions.push_back(c); });
    m_driver->OnTransmit(
        [this](TimeNs t, uint16_t port, uint16_t, const std::vector<uint8_t>& bytes) {
            m_inFlight.push_back({t, port, bytes});
        });
    m_nextWrId = 1;
    m_emitted.clear();
    m_completions.clear();
    m_driver->Step();
    Collect();
}

TimeNs
UdpAdapter::Now() const
{
    return m_driver->Now();
}

void
UdpAdapter::Collect()
{
    std::vector<uint8_t> buffer(65536);
    while (!m_inFlight.empty())
    {
        const InFlight f = m_inFlight.front();
        m_inFlight.pop_front();
        udp::UdpPlane& far = *m_tester[f.port];
        udp::ReceivedDatagram d;
        pollfd p{far.Fd(), POLLIN, 0};
        if (!far.Receive(buffer.data(), buffer.size(), d) &&
            !(poll(&p, 1, kLoopbackTimeoutMs) > 0 && far.Receive(buffer.data(), buffer.size(), d)))
        {
            throw std::runtime_error("udp adapter: a datagram the DUT sent on port " +
                                     std::to_string(f.port) + " never arrived");
        }
        WirePacket w;
        w.time = f.time;
        w.port = f.port;
        w.udpSrcPort = ntohs(d.from.sin_port);
        w.udpDstPort = far.Endpoint().localPort;
        w.ecnCe = d.ecnCe;
        w.bytes.assign(buffer.begin(), buffer.begin() + d.size);
        if (w.bytes != f.sent)
        {
            throw std::runtime_error("udp adapter: port " + std::to_string(f.port) +
                                     " delivered other bytes than the DUT sent (reordered?)");
        }
        m_emitted.push_back(std::move(w));
    }
}

bool
UdpAdapter::HasOutput() const
{
    return !m_emitted.empty() || !m_completions.empty();
}

void
UdpAdapter::AdvanceTo(TimeNs t, bool stopOnOutput)
{
    auto nextEvent = [this] { return std::max(m_driver->NextWake(), Now()); };
    for (TimeNs next = nextEvent(); next <= t; next = nextEvent())
    {
        if (stopOnOutput && HasOutput())
        {
            return;
        }
        m_driver->SetVirtualNow(next);
        m_driver->Step(); // the timer when due, then pulls on every free port
        Collect();
    }
    if (stopOnOutput && HasOutput())
    {
        return;
    }
    m_driver->SetVirtualNow(t);
}

void
UdpAdapter::Inject(const WirePacket& pkt)
{
    if (pkt.port >= m_tester.size())
    {
        throw std::invalid_argument("udp adapter: no port " + std::to_string(pkt.port));
    }
    const iovec iov{const_cast<uint8_t*>(pkt.bytes.data()), pkt.bytes.size()};
    if (m_tester[pkt.port]->Send(pkt.udpSrcPort, &iov, 1, pkt.ecnCe ? 0x03 : 0) <= 0)
    {
        throw std::runtime_error("udp adapter: cannot send to DUT port " +
                                 std::to_string(pkt.port));
    }
    if (m_driver->ReceiveBlocking(pkt.port, kLoopbackTimeoutMs) == 0)
    {
        throw std::runtime_error("udp adapter: an injected datagram never reached DUT port " +
                                 std::to_string(pkt.port));
    }
    m_driver->Step();
    Collect();
}

uint64_t
UdpAdapter::Post(const WorkRequest& request)
{
    WorkRequest wr = request;
    wr.id = m_nextWrId++;
    if (wr.op == Opcode::Recv)
    {
        m_driver->PostRecv(wr);
    }
    else
    {
        m_driver->PostSend(wr);
    }
    Collect();
    return wr.id;
}

void
UdpAdapter::SetPortState(uint16_t port, bool up)
{
    m_driver->SetPortState(port, up);
    Collect();
}

Counters
UdpAdapter::ReadCounters() const
{
    return m_engine->GetCounters();
}

} // namespace metaroce::compliance
