#include "metaroce-nic.h"

#include "metaroce-transport-header.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/metaroce-connection.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/rocev2-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceNic");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceNic);

namespace
{

/// Bytes of a transport header the NIC copies out of a packet for the engine (both formats).
constexpr uint32_t kMaxTransportHeader = 64;

metaroce::TimeNs
EngineNow()
{
    return static_cast<metaroce::TimeNs>(Simulator::Now().GetNanoSeconds());
}

metaroce::TimeNs
Ns(const Time& t)
{
    return static_cast<metaroce::TimeNs>(t.GetNanoSeconds());
}

/// The first set bit of `words` in [from, end), or `end`.
std::size_t
FindMarked(const std::vector<uint64_t>& words, std::size_t from, std::size_t end)
{
    while (from < end)
    {
        const uint64_t w = words[from / 64] >> (from % 64);
        if (w != 0)
        {
            return std::min(end, from + static_cast<std::size_t>(__builtin_ctzll(w)));
        }
        from = (from / 64 + 1) * 64;
    }
    return end;
}

} // namespace

TypeId
MetaRoceNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceNic")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceNic>()
            .AddAttribute("Mtu",
                          "Payload bytes per data packet (both transports; RoCEv2 needs "
                          "256, 512, 1024, 2048 or 4096).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&MetaRoceNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(256, 9000))
            .AddAttribute("PathsPerPort",
                          "MetaRoCE logical paths per plane (spec 4.1).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&MetaRoceNic::m_pathsPerPort),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Streams",
                          "Ordered streams per MetaRoCE connection (spec 6).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&MetaRoceNic::m_streams),
                          MakeUintegerChecker<uint32_t>(1, 65535))
            .AddAttribute("InitialPathWindow",
                          "MetaRoCE initial path window, packets (assumption, spec 9).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&MetaRoceNic::m_initialPathWindow),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("AckEveryPackets",
                          "Packets per path coalesced into one MetaRoCE ACK (spec 6.4).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&MetaRoceNic::m_ackEveryPackets),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("AckDelay",
                          "Longest a MetaRoCE ACK waits for coalescing.",
                          TimeValue(NanoSeconds(2000)),
                          MakeTimeAccessor(&MetaRoceNic::m_ackDelay),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RtoMin",
                          "MetaRoCE floor of the per-path retransmission timeout "
                          "(srtt + 4 rttvar, spec 5.5).",
                          TimeValue(MicroSeconds(60)),
                          MakeTimeAccessor(&MetaRoceNic::m_rtoMin),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RtoMax",
                          "MetaRoCE maximum per-path retransmission timeout.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&MetaRoceNic::m_rtoMax),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("InitialRtt",
                          "RTT MetaRoCE assumes before its first sample.",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&MetaRoceNic::m_initialRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("InitialRto",
                          "MetaRoCE retransmission timeout before a path's first RTT sample.",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&MetaRoceNic::m_initialRto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TailProbeMin",
                          "Floor of the MetaRoCE tail-loss probe timeout (max(2 srtt, srtt + "
                          "AckDelay, this), spec 5.5).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&MetaRoceNic::m_tailProbeMin),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxTailProbes",
                          "MetaRoCE tail-loss probes without progress: the first two one probe "
                          "timeout apart, each further one twice the wait of the one before "
                          "(spec 5.5); 0 disables tail-loss probes.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&MetaRoceNic::m_maxTailProbes),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("PathDownTimeouts",
                          "Consecutive timeouts before a MetaRoCE path is taken down.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&MetaRoceNic::m_pathDownTimeouts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ProbeInterval",
                          "How often a down MetaRoCE path is probed.",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&MetaRoceNic::m_probeInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("HonourRateHint",
                          "Pace MetaRoCE senders at the receiver's fair-share rate hint.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceNic::m_honourRateHint),
                          MakeBooleanChecker())
            .AddAttribute("RealPayload",
                          "Copy whole packets to the engines so registered memory receives "
                          "real bytes (slower); otherwise payloads are virtual.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceNic::m_realPayload),
                          MakeBooleanChecker())
            .AddAttribute("FairShareWindow",
                          "A queue pair counts as an active sender for the rate hint when it "
                          "delivered data within this window.",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&MetaRoceNic::m_fairShareWindow),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FairShareWhenMarked",
                          "Advertise the fair share only while arriving data carries ECN CE "
                          "marks (this receiver's last hop is the bottleneck); otherwise the "
                          "line rate. False: always the fair share.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceNic::m_fairShareWhenMarked),
                          MakeBooleanChecker())
            .AddAttribute("RoceWindow",
                          "RoCEv2: most packets sent and not yet acknowledged.",
                          UintegerValue(256),
                          MakeUintegerAccessor(&MetaRoceNic::m_roceWindow),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RoceRto",
                          "RoCEv2: retransmission timeout before backoff.",
                          TimeValue(MicroSeconds(1048)),
                          MakeTimeAccessor(&MetaRoceNic::m_roceRto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RoceRetryLimit",
                          "RoCEv2: timeouts in a row before RetryExceeded (IB retry_cnt).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&MetaRoceNic::m_roceRetryLimit),
                          MakeUintegerChecker<uint32_t>(0, 7))
            .AddAttribute("Dcqcn",
                          "RoCEv2: DCQCN rate control (CNPs on CE, paced sending).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceNic::m_dcqcn),
                          MakeBooleanChecker())
            .AddTraceSource("Tx",
                            "A packet left on a port (IPv4 and below not yet added by the "
                            "device: starts with IPv4).",
                            MakeTraceSourceAccessor(&MetaRoceNic::m_txTrace),
                            "ns3::MetaRoceNic::PortTracedCallback")
            .AddTraceSource("Rx",
                            "A packet arrived on a port (starts with IPv4).",
                            MakeTraceSourceAccessor(&MetaRoceNic::m_rxTrace),
                            "ns3::MetaRoceNic::PortTracedCallback")
            .AddTraceSource("Drop",
                            "An arriving packet was refused, with the reason.",
                            MakeTraceSourceAccessor(&MetaRoceNic::m_dropTrace),
                            "ns3::MetaRoceNic::DropTracedCallback");
    return tid;
}

MetaRoceNic::MetaRoceNic()
    : m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

MetaRoceNic::~MetaRoceNic() = default;

void
MetaRoceNic::DoDispose()
{
    for (auto& [id, qp] : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    for (Port& port : m_ports)
    {
        port.pauseExpiry.Cancel();
        port.qps.clear();
        port.queue->Dispose();
        port.device = nullptr;
    }
    m_ports.clear();
    Object::DoDispose();
}

int64_t
MetaRoceNic::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
MetaRoceNic::AddPort(Ptr<PointToPointNetDevice> device, Ipv4Address address)
{
    NS_ABORT_MSG_IF(device == nullptr, "MetaRoceNic::AddPort: null device");
    NS_ABORT_MSG_IF(device->GetChannel() == nullptr,
                    "MetaRoceNic::AddPort: attach the device to a channel first");
    NS_ABORT_MSG_IF(!m_qps.empty(), "MetaRoceNic::AddPort: add every port before connecting");
    const auto index = static_cast<uint32_t>(m_ports.size());
    Port port;
    port.device = device;
    port.address = address;
    port.queue = CreateObject<MetaRocePortQueue>();
    port.queue->SetPullCallback(MakeCallback(&MetaRoceNic::Pull, this).Bind(index));
    port.queue->Attach(device);
    device->SetReceiveCallback(MakeCallback(&MetaRoceNic::Receive, this));
    m_ports.push_back(port);
    return index;
}

uint32_t
MetaRoceNic::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<PointToPointNetDevice>
MetaRoceNic::GetPort(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic: no port " << port);
    return m_ports[port].device;
}

Ipv4Address
MetaRoceNic::GetAddress(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic: no port " << port);
    return m_ports[port].address;
}

uint64_t
MetaRoceNic::LineRateBps(uint32_t port) const
{
    DataRateValue rate;
    m_ports[port].device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

void
MetaRoceNic::RegisterMemory(uint32_t key, uint64_t addr, uint64_t length, uint8_t* data)
{
    try
    {
        m_memory.Register({key, addr, length, data});
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR("MetaRoceNic::RegisterMemory: " << e.what());
    }
}

std::vector<Ptr<MetaRoceQueuePair>>
MetaRoceNic::GetQueuePairs() const
{
    std::vector<Ptr<MetaRoceQueuePair>> out;
    for (const auto& [id, qp] : m_qps)
    {
        out.push_back(qp);
    }
    return out;
}

uint64_t
MetaRoceNic::GetFairShare() const
{
    return m_fairShareBps;
}

metaroce::MetaRoceConfig
MetaRoceNic::MetaRoceConfigFor(uint32_t local, uint32_t remote) const
{
    metaroce::MetaRoceConfig c;
    c.localConnection = local;
    c.remoteConnection = remote;
    c.seed = static_cast<uint64_t>(m_rng->GetInteger(1, 0x7fffffff));
    c.ports = static_cast<uint16_t>(m_ports.size());
    c.pathsPerPort = static_cast<uint16_t>(m_pathsPerPort);
    c.streams = static_cast<uint16_t>(m_streams);
    c.mtu = m_mtu;
    c.portRateBps = LineRateBps(0);
    c.initialPathWindowPackets = m_initialPathWindow;
    c.ackEveryPackets = m_ackEveryPackets;
    c.ackDelayNs = Ns(m_ackDelay);
    c.rtoMinNs = Ns(m_rtoMin);
    c.rtoMaxNs = Ns(m_rtoMax);
    c.initialRttNs = Ns(m_initialRtt);
    c.initialRtoNs = Ns(m_initialRto);
    c.tailProbeMinNs = Ns(m_tailProbeMin);
    c.maxTailProbes = m_maxTailProbes;
    c.pathDownTimeouts = m_pathDownTimeouts;
    c.pathSuspectTimeouts = std::min(c.pathSuspectTimeouts, m_pathDownTimeouts);
    c.probeIntervalNs = Ns(m_probeInterval);
    c.honourRateHint = m_honourRateHint;
    return c;
}

metaroce::RoceV2Config
MetaRoceNic::RoceV2ConfigFor(uint32_t local, uint32_t remote, uint32_t plane) const
{
    metaroce::RoceV2Config c;
    c.localQpn = local;
    c.remoteQpn = remote;
    c.mtu = m_mtu;
    c.windowPackets = m_roceWindow;
    c.rtoNs = Ns(m_roceRto);
    c.retryLimit = m_roceRetryLimit;
    c.port = static_cast<uint16_t>(plane);
    c.udpSrcPort = static_cast<uint16_t>(m_rng->GetInteger(49152, 65535));
    c.lineRateBps = LineRateBps(plane);
    c.dcqcn.enabled = m_dcqcn;
    return c;
}

Ptr<MetaRoceQueuePair>
MetaRoceNic::CreateQueuePair(metaroce::Transport transport,
                             uint32_t localId,
                             uint32_t remoteId,
                             uint32_t plane)
{
    Ptr<MetaRoceQueuePair> qp = CreateObject<MetaRoceQueuePair>();
    qp->m_nic = this;
    qp->m_transport = transport;
    qp->m_localId = localId;
    qp->m_remoteId = remoteId;
    qp->m_realPayload = m_realPayload;
    try
    {
        if (transport == metaroce::Transport::MetaRoce)
        {
            qp->m_engine =
                std::make_unique<metaroce::MetaRoceConnection>(MetaRoceConfigFor(localId, remoteId),
                                                               &m_memory);
            qp->m_udpPort = metaroce::kMetaRoceUdpPort;
            for (uint32_t port = 0; port < m_ports.size(); ++port)
            {
                AddToPort(port, qp);
            }
        }
        else
        {
            qp->m_engine = std::make_unique<metaroce::RoceV2QueuePair>(
                RoceV2ConfigFor(localId, remoteId, plane),
                m_memory);
            qp->m_udpPort = metaroce::kRoceV2UdpPort;
            AddToPort(plane, qp);
        }
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR("MetaRoceNic: invalid configuration: " << e.what());
    }
    m_qps[localId] = qp;
    return qp;
}

std::pair<Ptr<MetaRoceQueuePair>, Ptr<MetaRoceQueuePair>>
MetaRoceNic::Connect(Ptr<MetaRoceNic> a,
                     Ptr<MetaRoceNic> b,
                     metaroce::Transport transport,
                     uint32_t plane)
{
    NS_ABORT_MSG_IF(a == nullptr || b == nullptr, "MetaRoceNic::Connect: null NIC");
    NS_ABORT_MSG_IF(a == b, "MetaRoceNic::Connect: a NIC cannot connect to itself");
    NS_ABORT_MSG_IF(a->m_ports.empty() || a->m_ports.size() != b->m_ports.size(),
                    "MetaRoceNic::Connect: NICs need the same, non-zero number of ports ("
                        << a->m_ports.size() << " vs " << b->m_ports.size() << ")");
    NS_ABORT_MSG_IF(plane >= a->m_ports.size(),
                    "MetaRoceNic::Connect: no plane " << plane << " (NICs have "
                                                      << a->m_ports.size() << " ports)");
    NS_ABORT_MSG_IF(a->m_mtu != b->m_mtu,
                    "MetaRoceNic::Connect: NICs disagree on Mtu (" << a->m_mtu << " vs " << b->m_mtu
                                                                   << ")");
    NS_ABORT_MSG_IF(a->m_pathsPerPort != b->m_pathsPerPort,
                    "MetaRoceNic::Connect: NICs disagree on PathsPerPort");
    NS_ABORT_MSG_IF(a->m_streams != b->m_streams, "MetaRoceNic::Connect: NICs disagree on Streams");
    const uint32_t idA = a->m_nextId++;
    const uint32_t idB = b->m_nextId++;
    Ptr<MetaRoceQueuePair> qa = a->CreateQueuePair(transport, idA, idB, plane);
    Ptr<MetaRoceQueuePair> qb = b->CreateQueuePair(transport, idB, idA, plane);
    for (uint32_t p = 0; p < a->m_ports.size(); ++p)
    {
        qa->m_peerAddresses.push_back(b->m_ports[p].address);
        qb->m_peerAddresses.push_back(a->m_ports[p].address);
    }
    return {qa, qb};
}

void
MetaRoceNic::SetPortUp(uint32_t port, bool up)
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic::SetPortUp: no port " << port);
    if (m_ports[port].up == up)
    {
        return;
    }
    NS_LOG_INFO("port " << port << (up ? " up" : " down"));
    m_ports[port].up = up;
    for (auto& [id, qp] : m_qps)
    {
        qp->m_engine->OnPortState(static_cast<uint16_t>(port), up, EngineNow());
        Service(*qp);
    }
}

bool
MetaRoceNic::IsPortUp(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic::IsPortUp: no port " << port);
    return m_ports[port].up;
}

Ptr<Packet>
MetaRoceNic::Frame(const MetaRoceQueuePair& qp, metaroce::OutPacket& out)
{
    Ptr<Packet> p = out.payload.empty() ? Create<Packet>(out.payloadSize)
                                        : Create<Packet>(out.payload.data(),
                                                         static_cast<uint32_t>(out.payload.size()));
    p->AddHeader(MetaRoceTransportHeader(std::move(out.header), out.udpDstPort));
    UdpHeader udp;
    udp.SetSourcePort(out.udpSrcPort);
    udp.SetDestinationPort(out.udpDstPort);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_ports[out.port].address);
    ip.SetDestination(qp.m_peerAddresses[out.port]);
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    if (out.isControl)
    {
        // ACK, NAK, CNP, probe: the switches' CONTROL class (metaroce-switch-pfc.h).
        ip.SetDscp(static_cast<Ipv4Header::DscpType>(kMetaRoceControlDscp));
    }
    ip.SetPayloadSize(p->GetSize());
    ip.EnableChecksum();
    p->AddHeader(ip);
    return p;
}

Ptr<Packet>
MetaRoceNic::Pull(uint32_t index)
{
    Port& port = m_ports[index];
    if (!port.up)
    {
        return nullptr;
    }
    // While DATA is paused, control packets still leave; data stays in the engines, unsent and
    // untimed, as a NIC's scheduler skips a paused class.
    return PullFromQueuePairs(index, port.dataPaused);
}

void
MetaRoceNic::AddToPort(uint32_t index, Ptr<MetaRoceQueuePair> qp)
{
    Port& port = m_ports[index];
    const auto slot = static_cast<uint32_t>(port.qps.size());
    port.qps.push_back(qp);
    port.maybeWork.resize(port.qps.size() / 64 + 1, 0);
    qp->m_portSlots.emplace_back(index, slot);
}

void
MetaRoceNic::MarkMaybeWork(const MetaRoceQueuePair& qp)
{
    for (const auto& [index, slot] : qp.m_portSlots)
    {
        m_ports[index].maybeWork[slot / 64] |= uint64_t(1) << (slot % 64);
    }
}

Ptr<Packet>
MetaRoceNic::PullFromQueuePairs(uint32_t index, bool controlOnly)
{
    // Round-robin from the cursor over the slots that may have work. HasWork() depends on
    // nothing but the engine's state, which only our calls into the engine change, and each of
    // those marks the queue pair again (MarkMaybeWork); so a slot found without work and not
    // marked since still has none, and skipping it pulls exactly what a scan of every queue
    // pair would, in O(queue pairs with work) instead of O(queue pairs).
    Port& port = m_ports[index];
    const std::size_t start = port.cursor;
    Ptr<Packet> p = PullFromSlots(index, start, port.qps.size(), controlOnly);
    return p != nullptr ? p : PullFromSlots(index, 0, start, controlOnly);
}

Ptr<Packet>
MetaRoceNic::PullFromSlots(uint32_t index, std::size_t from, std::size_t end, bool controlOnly)
{
    Port& port = m_ports[index];
    const std::size_t n = port.qps.size();
    const metaroce::TimeNs now = EngineNow();
    for (std::size_t slot = FindMarked(port.maybeWork, from, end); slot < end;
         slot = FindMarked(port.maybeWork, slot + 1, end))
    {
        MetaRoceQueuePair& qp = *port.qps[slot];
        if (!qp.m_engine->HasWork(static_cast<uint16_t>(index)))
        {
            port.maybeWork[slot / 64] &= ~(uint64_t(1) << (slot % 64));
            continue;
        }
        const auto port16 = static_cast<uint16_t>(index);
        std::optional<metaroce::OutPacket> out = controlOnly
                                                     ? qp.m_engine->PullControlPacket(port16, now)
                                                     : qp.m_engine->PullPacket(port16, now);
        // Every pull may move the deadline, also one that returns nothing: a pull held back by
        // pacing makes the release time a deadline, and one that retires a fully sent message
        // may start the tail-loss probe clock (spec 2.3: re-arm after every call). (No
        // Service() here: this runs inside the device's Dequeue, where kicking a port would
        // re-enter it.)
        Rearm(qp);
        MarkMaybeWork(qp);
        if (!out)
        {
            continue;
        }
        port.cursor = (slot + 1) % n;
        Ptr<Packet> p = Frame(qp, *out);
        m_txTrace(p, index);
        return p;
    }
    return nullptr;
}

void
MetaRoceNic::SetDataPaused(uint32_t index, bool paused, Time duration)
{
    Port& port = m_ports[index];
    port.pauseExpiry.Cancel();
    port.dataPaused = paused;
    if (paused)
    {
        port.pauseExpiry =
            Simulator::Schedule(duration, &MetaRoceNic::SetDataPaused, this, index, false, Time());
        return;
    }
    port.queue->Kick();
}

bool
MetaRoceNic::Receive(Ptr<NetDevice> device,
                     Ptr<const Packet> packet,
                     uint16_t protocol,
                     const Address& from)
{
    uint32_t index = 0;
    while (index < m_ports.size() && m_ports[index].device != device)
    {
        ++index;
    }
    NS_ASSERT(index < m_ports.size());
    m_rxTrace(packet, index);
    if (!m_ports[index].up)
    {
        m_dropTrace(packet, index, metaroce::NicDropReasonName(metaroce::NicDropReason::PortDown));
        return true;
    }
    if (IsPfcProtocol(packet))
    {
        const std::optional<MetaRocePfcFrame> frame = ParsePfcFrame(packet);
        if (frame && frame->cls == METAROCE_CLASS_DATA)
        {
            DataRateValue rate;
            m_ports[index].device->GetAttribute("DataRate", rate);
            SetDataPaused(index, frame->pause, PfcQuantaToTime(frame->quanta, rate.Get()));
        }
        return true;
    }
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    UdpHeader udp;
    if (protocol != 0x0800 || p->RemoveHeader(ip) == 0 || ip.GetProtocol() != 17 ||
        p->RemoveHeader(udp) == 0)
    {
        m_dropTrace(packet, index, metaroce::NicDropReasonName(metaroce::NicDropReason::NotUdp));
        return true;
    }
    const uint32_t size = p->GetSize();
    uint8_t head[kMaxTransportHeader];
    const uint32_t copied = p->CopyData(head, std::min(size, kMaxTransportHeader));
    const std::optional<uint32_t> dest =
        metaroce::PeekDestination(head, copied, udp.GetDestinationPort());
    auto it = dest ? m_qps.find(*dest) : m_qps.end();
    if (it == m_qps.end())
    {
        m_dropTrace(packet,
                    index,
                    metaroce::NicDropReasonName(metaroce::NicDropReason::UnknownDestination));
        return true;
    }
    MetaRoceQueuePair& qp = *it->second;
    std::vector<uint8_t> whole;
    metaroce::RxPacket rx;
    rx.data = head;
    rx.size = copied;
    if (qp.m_realPayload)
    {
        whole.resize(size);
        p->CopyData(whole.data(), size);
        rx.data = whole.data();
        rx.size = size;
    }
    rx.wireSize = size;
    rx.port = static_cast<uint16_t>(index);
    rx.ecnCe = ip.GetEcn() == Ipv4Header::ECN_CE;
    rx.now = EngineNow();
    const metaroce::RxResult result = qp.m_engine->OnPacket(rx);
    if (!result.accepted)
    {
        m_dropTrace(packet, index, metaroce::DropReasonName(result.reason));
    }
    else if (size > kMaxTransportHeader)
    {
        // Longer than any control header: it carried data, so its sender is active.
        qp.m_lastDataRx = Simulator::Now();
        m_markedSinceUpdate += rx.ecnCe ? 1 : 0;
        UpdateFairShare();
    }
    Service(qp);
    return true;
}

void
MetaRoceNic::UpdateFairShare()
{
    // Recomputed at most once per window, on arrivals only, so no event keeps the simulation
    // alive.
    const Time now = Simulator::Now();
    if (m_fairShareUpdated >= Seconds(0) && now - m_fairShareUpdated < m_fairShareWindow)
    {
        return;
    }
    m_fairShareUpdated = now;
    uint64_t line = 0;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        line += m_ports[p].up ? LineRateBps(p) : 0;
    }
    uint64_t active = 0;
    for (const auto& [id, qp] : m_qps)
    {
        active += qp->m_lastDataRx >= Seconds(0) && now - qp->m_lastDataRx <= m_fairShareWindow;
    }
    // Only a receiver whose own last hop is congested (arrivals carry CE marks) is the
    // bottleneck of its senders; otherwise an equal split would cap senders that are limited
    // elsewhere (an all-to-all's senders share their own ports) below what it could take.
    const bool congested = !m_fairShareWhenMarked || m_markedSinceUpdate > 0;
    m_markedSinceUpdate = 0;
    m_fairShareBps = congested ? line / std::max<uint64_t>(active, 1) : line;
    for (const auto& [id, qp] : m_qps)
    {
        if (qp->m_transport == metaroce::Transport::MetaRoce)
        {
            static_cast<metaroce::MetaRoceConnection&>(*qp->m_engine).SetFairShare(m_fairShareBps);
            MarkMaybeWork(*qp);
        }
    }
}

void
MetaRoceNic::Service(MetaRoceQueuePair& qp)
{
    if (qp.m_nic == nullptr)
    {
        return; // disposed
    }
    MarkMaybeWork(qp);
    for (const metaroce::Completion& c : qp.m_engine->TakeCompletions())
    {
        qp.Deliver(c);
    }
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        // A busy port pulls by itself when it is done (Kick() would do nothing): ask the
        // engine only about idle ports.
        if (m_ports[p].up && !m_ports[p].queue->IsBusy() &&
            qp.m_engine->HasWork(static_cast<uint16_t>(p)))
        {
            m_ports[p].queue->Kick();
        }
    }
    Rearm(qp);
}

void
MetaRoceNic::Rearm(MetaRoceQueuePair& qp)
{
    const metaroce::TimeNs next = qp.m_engine->NextTimeout();
    if (next == metaroce::kNever)
    {
        return;
    }
    // Re-arm only when the new deadline is earlier: a timer that fires early finds nothing to
    // do and re-arms itself, which costs less than cancelling on every packet.
    if (qp.m_timer.IsRunning() && qp.m_timerAt <= next)
    {
        return;
    }
    qp.m_timer.Cancel();
    qp.m_timerAt = next;
    const metaroce::TimeNs now = EngineNow();
    qp.m_timer = Simulator::Schedule(NanoSeconds(next > now ? next - now : 0),
                                     &MetaRoceNic::OnTimer,
                                     this,
                                     Ptr<MetaRoceQueuePair>(&qp));
}

void
MetaRoceNic::OnTimer(Ptr<MetaRoceQueuePair> qp)
{
    qp->m_timerAt = metaroce::kNever;
    qp->m_engine->OnTimeout(EngineNow());
    Service(*qp);
}

} // namespace ns3
