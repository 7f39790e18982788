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

/// The NIC re-arms only to an earlier deadline and after every pull (its device pulls outside
/// Service()), and offers a port only to a queue pair with work for it.
constexpr metaroce::DriverOptions kNicDriving{metaroce::RearmPolicy::WhenEarlier,
                                              true,
                                              true,
                                              10'000};

} // namespace

class MetaRoceNic::QueuePairHost : public metaroce::DriverHost
{
  public:
    QueuePairHost(MetaRoceNic& nic, MetaRoceQueuePair& qp)
        : m_nic(nic)
        , m_qp(qp)
    {
    }

    ~QueuePairHost() override
    {
        m_timer.Cancel();
    }

    void ScheduleTimer(metaroce::TimeNs at) override
    {
        m_timer.Cancel();
        if (at == metaroce::kNever)
        {
            return;
        }
        m_timer = Simulator::Schedule(NanoSeconds(at - EngineNow()),
                                      &MetaRoceNic::OnTimer,
                                      &m_nic,
                                      Ptr<MetaRoceQueuePair>(&m_qp));
    }

    bool PortIdle(uint16_t port) const override
    {
        // A busy port pulls by itself when it is done (Kick() would do nothing).
        return m_nic.m_ports[port].up && !m_nic.m_ports[port].queue->IsBusy();
    }

    void StartPort(uint16_t port) override
    {
        m_nic.m_ports[port].queue->Kick();
    }

    void Deliver(const metaroce::Completion& c) override
    {
        m_qp.Deliver(c);
    }

  private:
    MetaRoceNic& m_nic;
    MetaRoceQueuePair& m_qp;
    EventId m_timer;
};

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
    m_congestionOps = nullptr;
    m_pathSelection = nullptr;
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
                                                               &m_memory,
                                                               GetCongestionOps()->Create(),
                                                               GetPathSelection()->Create());
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
    qp->m_driverHost = std::make_unique<QueuePairHost>(*this, *qp);
    qp->m_driver = std::make_unique<metaroce::EngineDriver>(*qp->m_engine,
                                                            static_cast<uint16_t>(m_ports.size()),
                                                            *qp->m_driverHost,
                                                            kNicDriving);
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
    NS_ABORT_MSG_IF(a->m_metaRoce.mtu != b->m_metaRoce.mtu,
                    "MetaRoceNic::Connect: NICs disagree on Mtu (" << a->m_metaRoce.mtu << " vs "
                                                                   << b->m_metaRoce.mtu << ")");
    NS_ABORT_MSG_IF(a->m_metaRoce.pathsPerPort != b->m_metaRoce.pathsPerPort,
                    "MetaRoceNic::Connect: NICs disagree on PathsPerPort");
    NS_ABORT_MSG_IF(a->m_metaRoce.streams != b->m_metaRoce.streams,
                    "MetaRoceNic::Connect: NICs disagree on Streams");
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
        // The driver re-arms after the pull (kNicDriving). No Service() here: this runs inside
        // the device's Dequeue, where kicking a port would re-enter it.
        std::optional<metaroce::OutPacket> out =
            qp.m_driver->Pull(static_cast<uint16_t>(index), now, controlOnly);
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
    else if (result.carriedData)
    {
        // Its sender is active (spec 6.5), however short the packet.
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
    qp.m_driver->Service(EngineNow());
}

void
MetaRoceNic::OnTimer(Ptr<MetaRoceQueuePair> qp)
{
    qp->m_driver->OnTimer(EngineNow());
    Service(*qp);
}

} // namespace ns3
