/*
 * The metaroce switch: an output-queued, shared-buffer IPv4 switch for RoCE fabrics.
 *
 * Ports. Each port is a point-to-point device - ns-3's own PointToPointNetDevice as
 * PointToPointHelper builds it, or the module's faster MetaRoceNetDevice - whose transmit queue
 * is a MetaRocePortQueue: the device pulls the next packet from the switch when it is free, so the
 * switch decides at the last moment what goes (PFC frames, then CONTROL, then DATA, skipping
 * paused classes) and the device keeps its DataRate, channel, error models and pcap. Hosts do
 * not run the ns-3 Internet stack and neither does the switch: it parses the IPv4/UDP bytes
 * itself and forwards by its own table.
 *
 * Forwarding (MetaRoceFib). Longest-prefix match on the destination, an ECMP group per
 * prefix, a member chosen by a hash of the 5-tuple and the per-switch "EcmpSeed". Ports marked
 * down with SetPortUp() leave their groups. TTL is not decremented: that would cost a header
 * rewrite per packet, and fabric routes are computed loop-free by the fabric helper.
 *
 * Classes. Two egress queues per port in strict priority, CONTROL before DATA; the class rule
 * (DSCP CS6/CS7, or optionally an L4 payload of at most "ControlMaxPayload" bytes) is
 * MetaRoceClassify() in metaroce-switch-pfc.h, shared with the NIC.
 *
 * Buffer. One shared pool of "BufferSize" bytes for all egress queues (sizes are IPv4 bytes).
 * In lossy mode (PFC off) the "BufferAdmission" object (metaroce-buffer-admission.h, chosen like
 * a QueueDisc) decides whether queue (port, class) may take a packet, else it is dropped as
 * "port-limit"; the default, MetaRoceDynamicThresholdAdmission, is Choudhury-Hahne dynamic
 * thresholds as shared-buffer ASICs use: the queue must hold fewer than
 * Alpha x (BufferSize - bytes in use) bytes. Whatever the mode, a packet that does not fit in
 * the free space is dropped as "buffer-full". Drops are tail drops.
 *
 * ECN. At enqueue into a DATA queue holding q bytes, the "EcnMarker" object
 * (metaroce-ecn-marker.h) decides whether the packet is marked; the default,
 * MetaRoceRedEcnMarker, is RED on the instantaneous queue (the DCQCN recommendation). With
 * "EcnAtDequeue" the packet is offered when it leaves instead, with q the bytes it leaves behind
 * (as HPCC's ns-3 simulator marks): the mark then reports the queue as it is, one queueing
 * delay sooner. Only ECT(0)/ECT(1) packets are offered and marked: the IPv4 header is rewritten
 * with CE. CONTROL is never marked. The marker draws from the switch's random variable
 * (AssignStreams).
 *
 * Former attributes. DtAlpha, EcnKmin, EcnKmax and EcnPmax still exist and forward to the
 * Alpha, Kmin, Kmax and Pmax attributes of the admission and marking objects: reading gives the
 * object's value; setting a value other than the default sets the object's (which must have
 * that attribute), while the default leaves the object's own value, so
 * "EcnMarker=ns3::MetaRoceRedEcnMarker[Kmin=5000]" is not undone by the EcnKmin default.
 *
 * PFC (lossless mode, "PfcEnabled"). Every buffered packet is also counted against its ingress
 * port and class. When that count exceeds "PfcXoff" the switch sends PAUSE for the class on the
 * ingress port (and refreshes it every half pause time); when it falls to "PfcXon" or below it
 * sends RESUME. A PAUSE received on a port stops that class there until RESUME or expiry. In
 * lossless mode the dynamic threshold is not applied (an egress queue may hold what its
 * ingresses allow); the buffer must cover, per ingress port and class, Xoff plus the headroom
 * of bytes still arriving after the PAUSE (about 2 x link delay x rate + 2 MTU): if it does
 * not, "buffer-full" drops still happen and tell you so. Frame format: metaroce-switch-pfc.h.
 *
 * Trimming ("TrimEnabled"). A DATA packet that is refused by the buffer is cut to
 * its IPv4 and UDP headers plus the first "TrimSize" bytes of UDP payload (the transport
 * header) and offered to the CONTROL queue instead; the IPv4 length shrinks, the UDP length
 * keeps the original size, so the receiver sees both what was sent and that it was trimmed.
 * Only if the CONTROL queue refuses it too is it dropped.
 *
 * Link failure. SetPortUp(port, false) models the link being cut at the switch side: the port
 * leaves all ECMP groups, its queued packets are dropped as "port-down", packets arriving on it
 * are dropped as "port-down", and its PFC state is cleared. A packet already being serialised
 * finishes. The far end (host NIC or switch) must be told separately.
 *
 * Accounting. Per-port counters (MetaRoceSwitchPortCounters); received packets are counted at
 * the ingress, forwarded at the egress, and drops at the egress port if routing chose one, else
 * at the ingress. PFC frames are counted apart and not as received/forwarded. The switch
 * asserts packet conservation, received = forwarded + dropped + queued, after every change.
 */
#ifndef METAROCE_SWITCH_H
#define METAROCE_SWITCH_H

#include "metaroce-switch-drop-reasons.h"
#include "metaroce-switch-fib.h"
#include "metaroce-switch-pfc.h"

#include "ns3/engine-types.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-buffer-admission.h"
#include "ns3/metaroce-ecn-marker.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-port-queue.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// Counters of one switch port.
struct MetaRoceSwitchPortCounters
{
    uint64_t rxPackets{0}; ///< received on this port for forwarding (PFC frames excluded)
    uint64_t rxBytes{0};
    uint64_t txPackets{0}; ///< forwarded out of this port (PFC frames excluded)
    uint64_t txBytes{0};
    uint64_t maxQueueBytes{0}; ///< high-water mark of this port's egress queues together
    std::array<uint64_t, size_t(MetaRoceDropReason::COUNT)> drops{}; ///< by reason
    uint64_t ecnMarked{0};      ///< packets marked CE on enqueue to this port
    uint64_t trimmed{0};        ///< packets trimmed on enqueue to this port
    uint64_t pauseSent{0};      ///< PAUSE frames sent on this port (refreshes included)
    uint64_t resumeSent{0};     ///< RESUME frames sent on this port
    uint64_t pauseReceived{0};  ///< PAUSE frames received on this port
    uint64_t resumeReceived{0}; ///< RESUME frames received on this port

    /// All drops, whatever the reason.
    uint64_t Dropped() const;
};

/**
 * \ingroup metaroce
 * \brief Shared-buffer output-queued switch with ECMP, ECN, PFC and trimming.
 *
 * See the file comment for the design. Typical use:
 * \code
 *   Ptr<MetaRoceSwitch> sw = CreateObject<MetaRoceSwitch>();
 *   node->AggregateObject(sw);
 *   uint32_t p0 = sw->AddPort(device0);
 *   sw->AddRoute(Ipv4Address("10.0.0.0"), Ipv4Mask("/24"), p0);
 * \endcode
 */
class MetaRoceSwitch : public Object, public MetaRocePortOwner, public MetaRoceFrameSink
{
  public:
    /// The name of a drop reason (its kSwitchDropReasons row's).
    static const char* DropReasonName(MetaRoceDropReason reason);

    /// Enqueue/Dequeue/Trim: the packet (IPv4 onwards), the egress port, the class.
    typedef void (*PacketTracedCallback)(Ptr<const Packet> packet, uint32_t port, uint32_t cls);
    /// Drop: the packet, the port it is counted at, the reason (a kSwitchDropReasons name).
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint32_t port, const char* why);
    /// EcnMark: the marked packet, the egress port, the DATA queue bytes that caused it.
    typedef void (*EcnTracedCallback)(Ptr<const Packet> packet, uint32_t port, uint64_t qBytes);
    /// PfcPause/PfcReceived: the port, the class, PAUSE (true) or RESUME (false).
    typedef void (*PfcTracedCallback)(uint32_t port, uint32_t cls, bool pause);

    static TypeId GetTypeId();
    MetaRoceSwitch();
    ~MetaRoceSwitch() override;

    /**
     * Makes `device` (a PointToPointNetDevice, a MetaRoceNetDevice, or another device that sends
     * from its "TxQueue") a port of this switch: installs a MetaRocePortQueue on it (replacing
     * its queue) and the switch as the receiver of its arrivals (MetaRoceArrivals::BindPort,
     * replacing its receive callback). Returns the port index (0, 1, ...).
     */
    uint32_t AddPort(Ptr<NetDevice> device);

    /// Adds `port` to the ECMP group of dst/mask (see MetaRoceFib::AddRoute).
    void AddRoute(Ipv4Address dst, Ipv4Mask mask, uint32_t port);

    /// The live ECMP ports a packet to `dst` would be hashed over (see MetaRoceFib::GetNextHops).
    std::vector<uint32_t> GetNextHops(Ipv4Address dst) const;

    /// Marks a port's link up or down (see "Link failure" in the file comment).
    void SetPortUp(uint32_t port, bool up);
    bool IsPortUp(uint32_t port) const;

    /**
     * Acts on a PFC frame received on `port`: PAUSE stops `frame.cls` there until RESUME or
     * until the quanta expire at the port's DataRate; RESUME restarts it at once.
     */
    void HandlePfcFrame(uint32_t port, const MetaRocePfcFrame& frame);

    /// True while the neighbour on `port` has paused class `cls`.
    bool IsPaused(uint32_t port, uint32_t cls) const;

    uint32_t GetNPorts() const;
    Ptr<NetDevice> GetPortDevice(uint32_t port) const;
    const MetaRoceSwitchPortCounters& GetPortCounters(uint32_t port) const;
    /// Drops over all ports for one reason.
    uint64_t GetDropCount(MetaRoceDropReason reason) const;
    /// Drops over all ports for one reason, by its kSwitchDropReasons name (0 for an unknown).
    uint64_t GetDropCount(const std::string& reason) const;
    /// Bytes queued for (port, cls), and in the whole shared buffer.
    uint64_t GetQueueBytes(uint32_t port, uint32_t cls) const;
    uint64_t GetBufferUsed() const;
    /// True if a PFC timer of a port (a PAUSE refresh, or a received PAUSE lapsing) is due at
    /// time t or earlier.
    bool HasTimerDueBy(Time t) const;
    /// Totals over all ports; conservation is received = forwarded + dropped + queued.
    uint64_t GetReceived() const;
    uint64_t GetForwarded() const;
    uint64_t GetDropped() const;
    uint64_t GetQueuedPackets() const;

    /**
     * Assigns a fixed random stream to the ECN marking variable; returns the number of
     * streams used (1).
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * What a switch whose attributes were `attributes` ("Name", "Value" pairs over the
     * attributes' defaults, values valid for their attributes) would abort with when it
     * starts (the admission and marking objects' parameters, the PFC thresholds), or "" when it
     * would run. Builds no switch and draws no random stream: a driver that must not abort
     * checks its attribute strings with it before it builds anything.
     */
    static std::string GetConfigProblem(const MetaRoceAttributeSettings& attributes);

    /// The ECN marking object ("EcnMarker").
    Ptr<MetaRoceEcnMarker> GetEcnMarker() const;
    /// The buffer admission object ("BufferAdmission").
    Ptr<MetaRoceBufferAdmission> GetBufferAdmission() const;

  protected:
    void DoInitialize() override;
    void DoDispose() override;

  private:
    /// A buffered packet and what is needed to release it.
    struct Item
    {
        Ptr<Packet> packet;
        uint32_t ingress;
        uint32_t size : 31;
        uint32_t markAtDequeue : 1; ///< EcnAtDequeue: an ECN-capable DATA packet, offered then
    };

    /// Everything the switch keeps per port: what a packet reads on its way in and out first,
    /// in the first aligned cache lines (doc/performance.md, "The fast path").
    struct alignas(64) Port
    {
        bool up{true};
        bool inPull{false}; ///< inside this port's pull: do not Kick() it again
        // PFC as the sender on this port (the neighbour pauses us)
        std::array<bool, kMetaRoceNumClasses> paused{};
        // PFC as the receiver of traffic on this port (we pause the neighbour)
        std::array<bool, kMetaRoceNumClasses> pausing{};
        std::array<uint64_t, kMetaRoceNumClasses> ingressBytes{};
        std::array<uint64_t, kMetaRoceNumClasses> egressBytes{};
        Ptr<MetaRocePortQueue> queue;
        metaroce::Ring<Ptr<Packet>> pfcOut; ///< PFC frames waiting to go out, before all classes
        /// One contiguous ring per class: a deque's block and map cost a cache miss or two
        /// on every packet (doc/performance.md).
        std::array<metaroce::Ring<Item>, kMetaRoceNumClasses> egress;
        MetaRoceSwitchPortCounters counters; ///< its per-packet fields first
        Ptr<NetDevice> device;
        std::array<EventId, kMetaRoceNumClasses> refresh;
        std::array<EventId, kMetaRoceNumClasses> pauseExpiry;
    };

    /// A packet arrived on `port` (MetaRoceFrameSink).
    void ReceiveFrame(uint32_t port, Ptr<Packet> packet) override;
    /// The port queue's pull (MetaRocePortOwner): the next packet for `port`, or null.
    Ptr<Packet> PullPort(uint32_t port) override;
    bool MayHaveWork(uint32_t port) const override;

    /// Admission of `size` bytes into (port, cls): COUNT when admitted, else the reason.
    MetaRoceDropReason Admit(uint32_t port, uint32_t cls, uint32_t size) const;
    /// "EcnMarker" and "BufferAdmission": the object is created at once, so that the former
    /// attributes registered after these can forward to it during construction.
    void SetEcnMarkerFactory(const ObjectFactory& factory);
    ObjectFactory GetEcnMarkerFactory() const;
    void SetBufferAdmissionFactory(const ObjectFactory& factory);
    ObjectFactory GetBufferAdmissionFactory() const;
    /// Adds EcnEnabled, EcnAtDequeue and EcnMarker to `tid`.
    static TypeId AddEcnAttributes(TypeId tid);
    /// Adds DtAlpha, EcnKmin, EcnKmax and EcnPmax, forwarded to the algorithm objects, to `tid`
    /// (after EcnMarker and BufferAdmission, which create the objects).
    static TypeId AddFormerAttributes(TypeId tid);
    /// The switch's trace sources.
    static TypeId AddTraceSources(TypeId tid);
    /// A DATA packet the buffer refused, trimmed to its headers and enqueued as CONTROL when
    /// trimming is on and the trimmed packet fits; false when it was not (the caller drops it).
    bool TrimAndEnqueue(Ptr<const Packet> packet,
                        const MetaRocePacketInfo& info,
                        uint32_t ingress,
                        uint32_t egress,
                        uint32_t cls);
    /// True when `info` is a packet the marker is offered: ECN on, DATA class, ECT(0) or ECT(1).
    bool Markable(const MetaRocePacketInfo& info, uint32_t cls) const;
    /// `p`, or a copy of it marked CE when the ECN marker says so for the DATA queue of
    /// `egress` as it holds now (a Markable() packet).
    Ptr<Packet> MaybeMarkCe(Ptr<Packet> p, uint32_t egress);
    /// Rewrites the IPv4 header of `p` with ECN = CE.
    static void MarkCe(Ptr<Packet> p);
    /// Cuts `p` to IPv4 + UDP + TrimSize payload bytes (see the file comment).
    void Trim(Ptr<Packet> p, const MetaRocePacketInfo& info) const;
    void Enqueue(Ptr<Packet> p,
                 uint32_t ingress,
                 uint32_t egress,
                 uint32_t cls,
                 bool markAtDequeue = false);
    /// Counts and traces a drop of a packet that is not (or no longer) buffered.
    void Drop(Ptr<const Packet> p, uint32_t port, MetaRoceDropReason reason);
    /// Returns an item's bytes to the buffer and to its ingress account (accounting only).
    void Unbuffer(const Item& item, uint32_t egress, uint32_t cls);
    /// Sends RESUME on `ingress` if it is pausing `cls` and has fallen to PfcXon.
    void MaybeResume(uint32_t ingress, uint32_t cls);

    void SendPfc(uint32_t port, uint32_t cls, bool pause);
    void RefreshPause(uint32_t port, uint32_t cls);
    void PauseExpired(uint32_t port, uint32_t cls);
    /// The pause timer of (port, cls): expires the pause unless a frame arriving at this
    /// instant renewed it.
    void PauseTimedOut(uint32_t port, uint32_t cls);
    DataRate PortRate(uint32_t port) const;
    void KickPort(uint32_t port);

    /// Cross-attribute validation; aborts naming the attribute.
    void CheckConfig();
    /// The PFC thresholds' rule (Xon < Xoff < BufferSize when PFC is on), or "" when kept.
    static std::string PfcProblem(bool enabled, uint64_t xon, uint64_t xoff, uint64_t buffer);
    void CheckConservation() const;

    std::vector<Port> m_ports;
    MetaRoceFib m_fib;
    Ptr<UniformRandomVariable> m_rng;
    Ptr<MetaRoceArrivals> m_arrivals; ///< the node's, delivered first by every switch event
    uint64_t m_bufferUsed{0};
    uint64_t m_received{0};
    uint64_t m_forwarded{0};
    uint64_t m_dropped{0};
    uint64_t m_queued{0};
    bool m_configChecked{false};

    // Attributes
    uint64_t m_ecmpSeed;
    bool m_ecmpByDestination{false}; ///< destination-mod-k instead of the ECMP hash
    uint64_t m_bufferSize;
    ObjectFactory m_admissionFactory;
    Ptr<MetaRoceBufferAdmission> m_admission;
    uint32_t m_controlMaxPayload;
    bool m_controlPriority{true}; ///< false: every packet but a trimmed header is DATA
    bool m_ecnEnabled;
    bool m_ecnAtDequeue;
    ObjectFactory m_ecnMarkerFactory;
    Ptr<MetaRoceEcnMarker> m_ecnMarker;
    bool m_pfcEnabled;
    uint64_t m_pfcXoff;
    uint64_t m_pfcXon;
    uint16_t m_pfcQuanta;
    bool m_trimEnabled;
    uint32_t m_trimSize;

    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_enqueueTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_dequeueTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, const char*> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint64_t> m_ecnTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_trimTrace;
    TracedCallback<uint32_t, uint32_t, bool> m_pfcTxTrace;
    TracedCallback<uint32_t, uint32_t, bool> m_pfcRxTrace;
};

} // namespace ns3

#endif // METAROCE_SWITCH_H
