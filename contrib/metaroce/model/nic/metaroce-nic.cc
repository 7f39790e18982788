#include "metaroce-nic.h"

#include "metaroce-framing.h"

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/engine-driver.h"
#include "ns3/event-id.h"
#include "ns3/log.h"
#include "ns3/metaroce-connection.h"
#include "ns3/metaroce-now.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/rocev2-queue-pair.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceNic");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceNic);

namespace
{

metaroce::TimeNs
EngineNow()
{
    return static_cast<metaroce::TimeNs>(MetaRoceNow().GetNanoSeconds());
}

/// The NIC re-arms only to an earlier deadline and after every pull (its device pulls outside
/// Service()), and offers a port only to a queue pair with work for it.
constexpr metaroce::DriverOptions kNicDriving{metaroce::RearmPolicy::WhenEarlier,
                                              true,
                                              true,
                                              10'000};

} // namespace

class MetaRoceNic::QueuePairHost : public metaroce::DriverHost, public MetaRocePortScheduler::Sender
{
  public:
    /// Hosts `qp`, whose engine is `engine` (not yet handed to `qp`).
    QueuePairHost(MetaRoceNic& nic,
                  Ptr<MetaRoceQueuePair> qp,
                  metaroce::TransportEngine& engine,
                  bool realPayload)
        : m_nic(nic)
        , m_qp(qp)
        , m_engine(engine)
        , m_realPayload(realPayload)
        , m_driver(engine, static_cast<uint16_t>(nic.m_ports.size()), *this, kNicDriving)
    {
    }

    ~QueuePairHost() override
    {
        m_timer.Cancel();
    }

    /// Joins `port`'s round-robin in the NIC's port scheduler.
    void AddToPort(uint32_t port)
    {
        m_slots.push_back(m_nic.m_scheduler.Add(port, this));
    }

    /// Marks this queue pair on each of its ports with the work its engine reports, and clears
    /// the marks of the others: call after any call into its engine.
    void MarkWork()
    {
        const uint64_t woken = m_nic.m_scheduler.MarkWork(
            *this,
            m_slots,
            m_engine.WorkOnPorts(static_cast<uint16_t>(m_nic.m_ports.size())));
        // A port whose frame ends without pulling (no sender had work when it started) pulls
        // after all now that one has (MetaRocePortQueue::Wake): as if every frame's end pulled.
        for (uint64_t ports = woken; ports != 0; ports &= ports - 1)
        {
            m_nic.m_ports[__builtin_ctzll(ports)].queue->Wake();
        }
    }

    /// After any event of the queue pair: deliver completions, start idle ports, re-arm.
    void Service()
    {
        if (m_disposed)
        {
            return;
        }
        MarkWork();
        m_driver.Service(EngineNow());
    }

    void ScheduleTimer(metaroce::TimeNs at) override
    {
        m_timer.Cancel();
        if (at == metaroce::kNever)
        {
            return;
        }
        // An event of the node: after its arrivals of that instant (metaroce-arrivals.h).
        m_timer = m_nic.m_arrivals->Schedule(&m_timer,
                                             NanoSeconds(at - EngineNow()),
                                             &QueuePairHost::OnTimer,
                                             this);
    }

    bool PortIdle(uint16_t port) const override
    {
        // A busy port pulls by itself when it is done (Kick() would do nothing).
        return m_nic.m_ports[port].up && !m_nic.m_ports[port].busy;
    }

    void StartPort(uint16_t port) override
    {
        m_nic.m_ports[port].queue->Kick();
    }

    void Deliver(const metaroce::Completion& c) override
    {
        m_qp->Deliver(c);
    }

    bool HasWork(uint32_t port) const override
    {
        return m_engine.HasWork(static_cast<uint16_t>(port));
    }

    bool HasControlWork(uint32_t port) const override
    {
        return m_engine.HasControlWork(static_cast<uint16_t>(port));
    }

    bool HasRecoveryWork(uint32_t port) const override
    {
        return m_engine.HasRecoveryWork(static_cast<uint16_t>(port));
    }

    bool ContinuesBurst(uint32_t port) const override
    {
        return m_engine.ContinuesBurst(static_cast<uint16_t>(port));
    }

    Ptr<Packet> Pull(uint32_t port, metaroce::PullKind kind) override
    {
        // The driver re-arms after the pull (kNicDriving). No Service() here: this runs inside
        // the device's Dequeue, where kicking a port would re-enter it.
        std::optional<metaroce::OutPacket> out =
            m_driver.Pull(static_cast<uint16_t>(port), EngineNow(), kind);
        MarkWork();
        if (!out)
        {
            return nullptr;
        }
        return MetaRoceFraming::Frame(*out,
                                      m_nic.m_ports[out->port].address,
                                      m_peerAddresses[out->port]);
    }

    MetaRoceQueuePair& QueuePair() const
    {
        return *m_qp;
    }

    /// The queue pair's engine, read here, where the NIC is anyway, not via the queue pair.
    metaroce::TransportEngine& Engine() const
    {
        return m_engine;
    }

    /// Copy whole packets to the engine (the NIC's RealPayload when the queue pair was made).
    bool RealPayload() const
    {
        return m_realPayload;
    }

    /// Appends the peer's address on the next plane (Connect()).
    void AddPeerAddress(Ipv4Address address)
    {
        m_peerAddresses.push_back(address);
    }

    /// True if the engine's timer is armed for time step `step` or earlier.
    bool TimerDueBy(int64_t step) const
    {
        return MetaRoceIsPending(m_timer) && static_cast<int64_t>(m_timer.GetTs()) <= step;
    }

    /// The queue pair was disposed (QueuePairDisposed()): Service() does nothing from now on.
    void OnDisposed()
    {
        m_disposed = true;
    }

    /// Where this queue pair is scheduled (ReleaseQueuePair() takes it out).
    const std::vector<MetaRocePortScheduler::Slot>& Slots() const
    {
        return m_slots;
    }

  private:
    void OnTimer()
    {
        // Packets arriving now came first (Schedule()); the engine fires only what is due.
        m_driver.OnTimer(EngineNow());
        Service();
    }

    MetaRoceNic& m_nic;
    Ptr<MetaRoceQueuePair> m_qp;
    metaroce::TransportEngine& m_engine; ///< m_qp's, which outlives this host
    bool m_realPayload;
    bool m_disposed{false}; ///< OnDisposed(): here, not read from the queue pair at every event
    std::vector<Ipv4Address> m_peerAddresses;         ///< per plane
    std::vector<MetaRocePortScheduler::Slot> m_slots; ///< where this queue pair is scheduled
    metaroce::EngineDriver m_driver;                  ///< drives m_qp's engine
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
    for (auto& [id, host] : m_hosts)
    {
        if (host->QueuePair().GetTransport() == metaroce::Transport::MetaRoce)
        {
            // A queue pair the user still holds must not read this NIC's hints once it is gone.
            static_cast<metaroce::MetaRoceConnection&>(host->Engine()).ShareReceiverHints(nullptr);
        }
        host->QueuePair().Dispose();
    }
    m_scheduler.Clear();
    m_hostById.clear();
    m_hosts.clear();
    m_pfc.Clear();
    for (Port& port : m_ports)
    {
        port.injectionWake.Cancel();
        port.queue->Dispose();
        m_arrivals->ReleasePort(port.device, this);
        port.device = nullptr;
    }
    m_ports.clear();
    m_arrivals = nullptr;
    m_congestionControl.Clear();
    m_flowSelection.Clear();
    m_roceRateControl.Clear();
    Object::DoDispose();
}

int64_t
MetaRoceNic::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
MetaRoceNic::QueuePairDisposed(uint32_t localId)
{
    if (localId < m_hostById.size() && m_hostById[localId] != nullptr)
    {
        m_hostById[localId]->OnDisposed();
    }
}

bool
MetaRoceNic::HasTimerDueBy(Time t) const
{
    const int64_t step = t.GetTimeStep();
    return m_pfc.HasExpiryDueBy(t) || InjectionWakeDueBy(step) ||
           std::any_of(m_hosts.begin(), m_hosts.end(), [step](const auto& entry) {
               return entry.second->TimerDueBy(step);
           });
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

void
MetaRoceNic::ReleaseQueuePair(Ptr<MetaRoceQueuePair> qp)
{
    NS_ABORT_MSG_IF(qp == nullptr || qp->GetNic() != this,
                    "MetaRoceNic::ReleaseQueuePair: not a queue pair of this NIC");
    const auto it = m_hosts.find(qp->GetLocalId());
    for (const auto& slot : it->second->Slots())
    {
        m_scheduler.Remove(slot);
    }
    m_released += qp->GetCounters();
    if (qp->GetTransport() == metaroce::Transport::MetaRoce)
    {
        static_cast<metaroce::MetaRoceConnection&>(it->second->Engine())
            .ShareReceiverHints(nullptr);
    }
    m_hostById[qp->GetLocalId()] = nullptr; // its late packets: UnknownDestination drops
    std::unique_ptr<QueuePairHost> host = std::move(it->second);
    m_hosts.erase(it);
    qp->Dispose();
}

const metaroce::Counters&
MetaRoceNic::GetReleasedCounters() const
{
    return m_released;
}

std::vector<Ptr<MetaRoceQueuePair>>
MetaRoceNic::GetQueuePairs() const
{
    std::vector<Ptr<MetaRoceQueuePair>> out;
    for (const auto& [id, host] : m_hosts)
    {
        out.push_back(&host->QueuePair());
    }
    return out;
}

uint64_t
MetaRoceNic::GetFairShare() const
{
    return m_fairShare.GetShareBps();
}

Ptr<MetaRoceQueuePair>
MetaRoceNic::CreateQueuePair(metaroce::Transport transport,
                             uint32_t localId,
                             uint32_t remoteId,
                             uint32_t plane)
{
    std::unique_ptr<metaroce::TransportEngine> engine;
    try
    {
        if (transport == metaroce::Transport::MetaRoce)
        {
            const metaroce::ConnectionIds ids{
                localId,
                remoteId,
                static_cast<uint64_t>(m_rng->GetInteger(1, 0x7fffffff))};
            auto connection =
                std::make_unique<metaroce::MetaRoceConnection>(SharedMetaRoceConfig(),
                                                               ids,
                                                               &m_memory,
                                                               GetCongestionOps()->Create(),
                                                               GetFlowSelection()->Create());
            connection->ShareReceiverHints(&m_receiverHints);
            connection->ShareLossEvidence(m_lossEvidence);
            engine = std::move(connection);
        }
        else
        {
            engine = std::make_unique<metaroce::RoceV2QueuePair>(
                RoceV2ConfigFor(localId, remoteId, plane),
                m_memory);
        }
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR("MetaRoceNic: invalid configuration: " << e.what());
    }
    Ptr<MetaRoceQueuePair> qp = CreateObject<MetaRoceQueuePair>();
    auto host = std::make_unique<QueuePairHost>(*this, qp, *engine, m_realPayload);
    if (transport == metaroce::Transport::MetaRoce)
    {
        for (uint32_t port = 0; port < m_ports.size(); ++port)
        {
            host->AddToPort(port); // a connection sprays over every plane
        }
    }
    else
    {
        host->AddToPort(plane);
    }
    MetaRoceQueuePair::Setup setup;
    setup.nic = this;
    setup.transport = transport;
    setup.localId = localId;
    setup.remoteId = remoteId;
    setup.engine = std::move(engine);
    setup.posted = MakeCallback(&QueuePairHost::Service, host.get());
    qp->Init(std::move(setup));
    if (m_hostById.size() <= localId)
    {
        m_hostById.resize(size_t{localId} + 1, nullptr);
    }
    m_hostById[localId] = host.get();
    // Ids are dealt in increasing order (Connect), so the new entry goes at the map's end.
    m_hosts.emplace_hint(m_hosts.end(), localId, nullptr)->second = std::move(host);
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
    NS_ABORT_MSG_IF(a->m_metaRoce.flowsPerPort != b->m_metaRoce.flowsPerPort,
                    "MetaRoceNic::Connect: NICs disagree on FlowsPerPort");
    NS_ABORT_MSG_IF(a->m_metaRoce.streams != b->m_metaRoce.streams,
                    "MetaRoceNic::Connect: NICs disagree on Streams");
    // Admission credit ramps from the senders' unscheduled window, as configured (8.5, A36).
    NS_ABORT_MSG_IF(a->m_metaRoce.unscheduledBytes != b->m_metaRoce.unscheduledBytes,
                    "MetaRoceNic::Connect: NICs disagree on UnscheduledBytes ("
                        << a->m_metaRoce.unscheduledBytes << " vs "
                        << b->m_metaRoce.unscheduledBytes << ")");
    NS_ABORT_MSG_IF(a->m_metaRoce.completionOrder != b->m_metaRoce.completionOrder,
                    "MetaRoceNic::Connect: NICs disagree on CompletionOrder (spec 3.3)");
    const uint32_t idA = a->m_nextId++;
    const uint32_t idB = b->m_nextId++;
    Ptr<MetaRoceQueuePair> qa = a->CreateQueuePair(transport, idA, idB, plane);
    Ptr<MetaRoceQueuePair> qb = b->CreateQueuePair(transport, idB, idA, plane);
    for (uint32_t p = 0; p < a->m_ports.size(); ++p)
    {
        a->m_hostById[idA]->AddPeerAddress(b->m_ports[p].address);
        b->m_hostById[idB]->AddPeerAddress(a->m_ports[p].address);
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
    for (auto& [id, host] : m_hosts)
    {
        host->Engine().OnPortState(static_cast<uint16_t>(port), up, EngineNow());
        host->Service();
    }
}

bool
MetaRoceNic::IsPortUp(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic::IsPortUp: no port " << port);
    return m_ports[port].up;
}

Ptr<Packet>
MetaRoceNic::PullPort(uint32_t index)
{
    Port& port = m_ports[index];
    if (!port.up)
    {
        return nullptr;
    }
    // While DATA is paused (PFC) or waits for the injection rate, only control packets leave;
    // data waits in the engines.
    const bool paused = m_pfc.IsDataPaused(index);
    const bool held = !paused && !InjectionAllows(index, false);
    Ptr<Packet> p = m_scheduler.Pull(index, paused || held);
    if (p != nullptr)
    {
        if (!paused && !held)
        {
            OnInjected(index, p);
        }
        m_txTrace(p, index);
    }
    else if (held)
    {
        InjectionAllows(index, true);
    }
    return p;
}

void
MetaRoceNic::PortBusyChanged(uint32_t port, bool busy)
{
    m_ports[port].busy = busy;
}

bool
MetaRoceNic::MayHaveWork(uint32_t port) const
{
    // Work that appears later is marked after a call into some engine (QueuePairHost::MarkWork),
    // which wakes the port; the marks of ports from 64 on wake nothing.
    return port >= 64 || m_scheduler.MayHaveWork(port);
}

void
MetaRoceNic::ReceiveFrame(uint32_t index, Ptr<Packet> packet)
{
    m_rxTrace(packet, index);
    if (!m_ports[index].up)
    {
        m_dropTrace(packet, index, metaroce::NicDropReasonName(metaroce::NicDropReason::PortDown));
        return;
    }
    if (IsPfcProtocol(packet))
    {
        m_pfc.OnFrame(index, ParsePfcFrame(packet), DataRate(LineRateBps(index)));
        return;
    }
    MetaRoceFraming::Arrival arrival;
    if (!MetaRoceFraming::Unframe(packet, MetaRoceNetDevice::kIpv4, arrival))
    {
        m_dropTrace(packet, index, metaroce::NicDropReasonName(metaroce::NicDropReason::NotUdp));
        return;
    }
    QueuePairHost* host = arrival.destination && *arrival.destination < m_hostById.size()
                              ? m_hostById[*arrival.destination]
                              : nullptr;
    if (host == nullptr)
    {
        m_dropTrace(packet,
                    index,
                    metaroce::NicDropReasonName(metaroce::NicDropReason::UnknownDestination));
        return;
    }
    HandToEngine(*host, index, arrival, packet);
}

void
MetaRoceNic::HandToEngine(QueuePairHost& host,
                          uint32_t index,
                          const MetaRoceFraming::Arrival& arrival,
                          Ptr<const Packet> packet)
{
    const uint32_t size = arrival.transportSize;
    std::vector<uint8_t> whole;
    metaroce::RxPacket rx;
    rx.data = arrival.head;
    rx.size = arrival.headSize;
    if (host.RealPayload())
    {
        whole.resize(packet->GetSize());
        packet->CopyData(whole.data(), packet->GetSize());
        rx.data = whole.data() + arrival.transportOffset;
        rx.size = size;
    }
    rx.wireSize = size;
    rx.corrupted =
        Corrupts(packet,
                 whole.empty() ? nullptr : whole.data() + arrival.transportOffset + size / 2);
    rx.port = static_cast<uint16_t>(index);
    rx.ecnCe = arrival.ecnCe;
    rx.now = EngineNow();
    const metaroce::RxResult result = host.Engine().OnPacket(rx);
    if (!result.accepted)
    {
        m_dropTrace(packet, index, metaroce::DropReasonName(result.reason));
    }
    else if (result.carriedData)
    {
        // Its sender is active (spec 8.3), however short the packet.
        const Time now = Simulator::Now();
        const uint32_t qp = host.QueuePair().GetLocalId();
        UpdateFairShare(m_fairShare.OnDataArrival(qp, size, rx.ecnCe, now, m_fairShareWindow));
    }
    host.Service();
}

} // namespace ns3
