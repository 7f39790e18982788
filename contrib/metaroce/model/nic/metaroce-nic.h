/*
 * An RDMA NIC on a host node, with one port per plane (spec 1.3; design "The ns-3 side").
 *
 * Each port is a point-to-point device: ns-3's PointToPointNetDevice on a PointToPointChannel
 * (as PointToPointHelper builds them), or the module's MetaRoceNetDevice on a MetaRoceChannel
 * (the same, leaner and faster: model/link/metaroce-net-device.h), so DataRate, Delay,
 * ReceiveErrorModel (RateErrorModel, BurstErrorModel, ReceiveListErrorModel), pcap and the device's
 * trace sources apply unchanged. The NIC replaces only the device's transmit queue, with a
 * MetaRocePortQueue that pulls: whenever a port is free the NIC asks its queue pairs, in
 * round-robin, for the next packet for that port. Engines keep their packets until a port can
 * take them, so a NIC never drops its own packets, and each port has exactly one pending
 * transmit event (the device's).
 *
 * Packets are IPv4 | UDP | transport header (MetaRoCE on UDP 4792, RoCEv2 BTH on UDP 4791) |
 * payload; hosts run no ns-3 Internet stack - the NIC is the RDMA offload. IPv4 carries ECT(0)
 * so switches can mark CE; CE on arrival is passed to the engine.
 *
 * The NIC owns the connection engines (through MetaRoceQueuePair) and hosts their
 * EngineDrivers (engine-driver.h): it runs their timers with the simulator (one event per
 * queue pair, re-armed only to an earlier deadline: a timer firing early is harmless). Its
 * parts, one file each:
 *   MetaRocePortScheduler  which queue pair's packet goes next on a free port (round-robin);
 *   MetaRoceFraming        IPv4/UDP framing on transmit, unwrapping on arrival;
 *   MetaRoceNicPfc         PFC: a PAUSE for the DATA class from its switch holds data back in
 *                          the engines (nothing is dropped) while control packets still go;
 *   MetaRoceFairShare      the receiver's fair share - its inbound line rate divided among the
 *                          queue pairs that received data in the last FairShareWindow - which
 *                          MetaRoCE advertises in every ACK (spec 8.3).
 */
#ifndef METAROCE_NIC_H
#define METAROCE_NIC_H

#include "metaroce-fair-share.h"
#include "metaroce-framing.h"
#include "metaroce-nic-pfc.h"
#include "metaroce-port-scheduler.h"
#include "metaroce-queue-pair.h"

#include "ns3/engine-memory.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-address.h"
#include "ns3/loss-evidence.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-config.h"
#include "ns3/metaroce-congestion-ops.h"
#include "ns3/metaroce-dcqcn.h"
#include "ns3/metaroce-flow-selection.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-port-queue.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/receiver-hints.h"
#include "ns3/rocev2-config.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief An RDMA NIC with one port per plane, running MetaRoCE connections and RoCEv2 QPs.
 */
class MetaRoceNic : public Object, public MetaRocePortOwner, public MetaRoceFrameSink
{
  public:
    static TypeId GetTypeId();
    MetaRoceNic();
    ~MetaRoceNic() override;

    /**
     * Adds a port (the next plane) on `device`, with source address `address`. The device (a
     * PointToPointNetDevice, a MetaRoceNetDevice, or another device that sends from its
     * "TxQueue" and has a "DataRate") must be on a node and attached to a channel; its DataRate
     * is the port's line rate. Its transmit queue and receive callback become the NIC's.
     * Returns the port index.
     */
    uint32_t AddPort(Ptr<NetDevice> device, Ipv4Address address);

    uint32_t GetNPorts() const;
    Ptr<NetDevice> GetPort(uint32_t port) const;
    Ipv4Address GetAddress(uint32_t port) const;

    /**
     * Connects `a` and `b` with a MetaRoCE connection (over every plane) or a RoCEv2 queue pair
     * (on plane `plane` only). Both NICs need the same number of ports and must agree on the
     * connection shape (Mtu, FlowsPerPort, Streams); a disagreement is a fatal error naming the
     * attribute. Returns (end at a, end at b).
     */
    static std::pair<Ptr<MetaRoceQueuePair>, Ptr<MetaRoceQueuePair>> Connect(
        Ptr<MetaRoceNic> a,
        Ptr<MetaRoceNic> b,
        metaroce::Transport transport,
        uint32_t plane = 0);

    /**
     * What a NIC whose attributes were `attributes` ("Name", "Value" pairs over the attributes'
     * defaults, values valid for their attributes), with `ports` ports at `rateBps`, would
     * report as a fatal error at its first `transport` connection (the engine configuration's
     * rules across fields, its algorithms' parameters), or "" when it would connect. Builds no
     * NIC and draws no random stream: a driver that must not abort checks its attribute
     * strings with it before it builds anything.
     */
    static std::string GetConfigProblem(const MetaRoceAttributeSettings& attributes,
                                        uint32_t ports,
                                        uint64_t rateBps,
                                        metaroce::Transport transport);

    /// Takes a port down (the link failed) or up; every queue pair is told.
    void SetPortUp(uint32_t port, bool up);
    bool IsPortUp(uint32_t port) const;
    /// True if a queue pair's engine has a timer armed for time t or earlier, or a PFC pause
    /// of a port lapses by then.
    bool HasTimerDueBy(Time t) const;

    /// Registers memory in the NIC's protection domain (see metaroce::MemoryRegistry).
    void RegisterMemory(uint32_t key, uint64_t addr, uint64_t length, uint8_t* data);

    /// The queue pairs of this NIC (not those released).
    std::vector<Ptr<MetaRoceQueuePair>> GetQueuePairs() const;

    /**
     * Releases `qp`, a queue pair of this NIC: it leaves the port scheduler, its engine and
     * timer are freed and it is disposed; packets that still arrive for it are dropped as
     * UnknownDestination. Its counters are kept in GetReleasedCounters(). For connections whose
     * work is done (a flow per queue pair); not from within one of its own callbacks.
     */
    void ReleaseQueuePair(Ptr<MetaRoceQueuePair> qp);
    /// The counters of every queue pair released so far, summed.
    const metaroce::Counters& GetReleasedCounters() const;

    /// Called by MetaRoceQueuePair::DoDispose: the NIC serves that queue pair no more (a flag
    /// in its host, so that no event reads the queue pair to find out).
    void QueuePairDisposed(uint32_t localId);

    /// Current fair share advertised to each sender (bits/s).
    uint64_t GetFairShare() const;

    /// Assigns random streams (entropy draws); returns the number used.
    int64_t AssignStreams(int64_t stream);

    /// The congestion control of new MetaRoCE connections: made from the "CongestionControl"
    /// attribute on first use, or given by SetCongestionOps (as TcpSocketBase's
    /// SetCongestionControlAlgorithm). Connections made before a change keep theirs.
    Ptr<MetaRoceCongestionOps> GetCongestionOps();
    void SetCongestionOps(Ptr<MetaRoceCongestionOps> ops);
    /// The flow selection of new MetaRoCE connections ("FlowSelection"), likewise.
    Ptr<MetaRoceFlowSelection> GetFlowSelection();
    void SetFlowSelection(Ptr<MetaRoceFlowSelection> selection);
    /// The rate control of new RoCEv2 queue pairs ("RoceRateControl"), likewise.
    Ptr<MetaRoceDcqcn> GetRoceRateControl();
    void SetRoceRateControl(Ptr<MetaRoceDcqcn> dcqcn);

  protected:
    void DoDispose() override;

  private:
    /// The NIC's side of one queue pair: the host of its EngineDriver (timer event, ports), its
    /// sender in the port scheduler, its peer's addresses (metaroce-nic.cc).
    class QueuePairHost;

    struct Port
    {
        Ptr<NetDevice> device;
        Ptr<MetaRocePortQueue> queue;
        Ipv4Address address;
        bool up{true};
        bool busy{false}; ///< queue->IsBusy(), kept here by PortBusyChanged()
        /// With NicInjectionControl: no DATA before this (the last packet at the injection
        /// rate), and the event that kicks the port then if it went idle waiting (spec 9.7).
        Time dataReleaseAt;
        EventId injectionWake;
    };

    /// Whether port `index` may pull DATA now under the injection rate (spec 9.7); if not and
    /// `arm`, makes sure the port is kicked when it may.
    bool InjectionAllows(uint32_t index, bool arm);
    /// A packet pulled while DATA may go: the next DATA waits for its time at the injection rate.
    void OnInjected(uint32_t index, const Ptr<Packet>& packet);
    /// The injection wake-up of port `index`.
    void InjectionWake(uint32_t index);
    /// Whether a port's injection wake-up is due by time step `step` (HasTimerDueBy).
    bool InjectionWakeDueBy(int64_t step) const;

    /// The attributes and trace sources that are not engine tunables.
    static TypeId AddHandWrittenAttributes(TypeId tid);
    /// "CongestionControl", "FlowSelection", "RoceRateControl" (metaroce-nic-algorithms.cc).
    static TypeId AddAlgorithmAttributes(TypeId tid);
    void SetCongestionControlFactory(const ObjectFactory& factory);
    ObjectFactory GetCongestionControlFactory() const;
    void SetFlowSelectionFactory(const ObjectFactory& factory);
    ObjectFactory GetFlowSelectionFactory() const;
    void SetRoceRateControlFactory(const ObjectFactory& factory);
    ObjectFactory GetRoceRateControlFactory() const;
    /// The configuration all of this NIC's MetaRoCE connections refer to (its attributes and
    /// ports, no identity), made anew only when those changed since the last connection.
    std::shared_ptr<const metaroce::MetaRoceConfig> SharedMetaRoceConfig();
    metaroce::RoceV2Config RoceV2ConfigFor(uint32_t local, uint32_t remote, uint32_t plane);
    Ptr<MetaRoceQueuePair> CreateQueuePair(metaroce::Transport transport,
                                           uint32_t localId,
                                           uint32_t remoteId,
                                           uint32_t plane);
    /// The port scheduler's next packet for `port`, for its device (MetaRocePortOwner).
    Ptr<Packet> PullPort(uint32_t port) override;
    /// Keeps Port::busy (MetaRocePortOwner).
    void PortBusyChanged(uint32_t port, bool busy) override;
    bool MayHaveWork(uint32_t port) const override;
    /// A packet arrived on port `index` (MetaRoceFrameSink): PFC frames, then IPv4/UDP
    /// datagrams for the queue pairs.
    void ReceiveFrame(uint32_t index, Ptr<Packet> packet) override;
    /// Hands `arrival` (`packet` unwrapped), which came in on port `index`, to `host`'s engine.
    void HandToEngine(QueuePairHost& host,
                      uint32_t index,
                      const MetaRoceFraming::Arrival& arrival,
                      Ptr<const Packet> packet);
    /// Recomputes the fair share when due and hands it to every MetaRoCE engine (spec 8.3).
    /// Recomputes the rate hint when due, and the admission credit also when `senderJoined`,
    /// and hands them to the MetaRoCE engines (spec 8.3, 8.5).
    void UpdateFairShare(bool senderJoined);
    /// Each active sender's share of the admission budget at inbound rate `lineBps` (bytes).
    uint64_t AdmissionCredit(uint64_t lineBps) const;
    uint64_t LineRateBps(uint32_t port) const;
    /// The ControlFirst attribute, kept by the scheduler alone.
    void SetControlFirst(bool on);
    bool GetControlFirst() const;
    /// The RecoveryFirst attribute, kept by the scheduler alone.
    void SetRecoveryFirst(bool on);
    bool GetRecoveryFirst() const;

    std::vector<Port> m_ports;
    MetaRocePortScheduler m_scheduler;
    MetaRoceNicPfc m_pfc;
    Ptr<MetaRoceArrivals> m_arrivals; ///< the node's, delivered first by every NIC event
    std::map<uint32_t, std::unique_ptr<QueuePairHost>> m_hosts; ///< by local id
    /// The same by local id in an array (ids are dense, from m_nextId): every arriving frame
    /// looks its queue pair up, and a tree walk costs a cache miss a level (doc/performance.md).
    std::vector<QueuePairHost*> m_hostById;
    uint32_t m_nextId{2};          ///< RoCEv2 reserves QP numbers 0 and 1
    metaroce::Counters m_released; ///< ReleaseQueuePair()'s queue pairs' counters, summed
    metaroce::MemoryRegistry m_memory;
    Ptr<UniformRandomVariable> m_rng;
    MetaRoceFairShare m_fairShare;
    /// The fair share and admission target every MetaRoCE connection of the NIC advertises.
    metaroce::ReceiverHints m_receiverHints;
    metaroce::LossEvidence m_lossEvidence; ///< its connections' last proven loss (spec 4.6)

    // Attributes. The engine tunables are the configuration tables' rows
    // (metaroce-config-attributes.h): MetaRoceConfigFields() unprefixed, RoceV2ConfigFields()
    // as "Roce*"; the algorithms' parameters are their objects' attributes (CongestionControl,
    // FlowSelection, RoceRateControl: metaroce-nic-algorithms.cc). Each queue pair gets a
    // copy, completed with what the NIC decides (ids, seed, ports, line rate, MTU for RoCEv2).
    metaroce::MetaRoceConfig m_metaRoce;
    /// SharedMetaRoceConfig()'s latest: one copy for every connection made since
    std::shared_ptr<const metaroce::MetaRoceConfig> m_sharedMetaRoce;
    metaroce::RoceV2Config m_roceV2;
    bool m_realPayload;
    /// Corrupts arriving packets for the engines' bit-error checks (spec 4.1); null: none
    Ptr<ErrorModel> m_corruptionModel;
    /// True when m_corruptionModel hits `packet`; then flips a bit of `byte` if given (real
    /// payloads: the check sees the flag, and the bytes are wrong too).
    bool Corrupts(Ptr<const Packet> packet, uint8_t* byte) const;
    Time m_fairShareWindow;
    bool m_fairShareWhenMarked;
    Time m_admissionRtt; ///< receiver admission's budget, in time at the line rate; 0: off

    // The pluggable algorithms: the attribute's factory and the NIC's one object made from it.
    AlgorithmSlot<MetaRoceCongestionOps> m_congestionControl{"MetaRoceNic::CongestionControl"};
    AlgorithmSlot<MetaRoceFlowSelection> m_flowSelection{"MetaRoceNic::FlowSelection"};
    AlgorithmSlot<MetaRoceDcqcn> m_roceRateControl{"MetaRoceNic::RoceRateControl"};

    TracedCallback<Ptr<const Packet>, uint32_t> m_txTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_rxTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, std::string> m_dropTrace;
};

} // namespace ns3

#endif // METAROCE_NIC_H
