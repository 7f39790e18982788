/*
 * The network device of metaroce fabrics: a point-to-point IPv4 device with the behaviour,
 * attributes and trace sources of ns-3's PointToPointNetDevice, minus the per-hop work a fabric
 * of thousands of links cannot afford.
 *
 * What a user relies on is kept, under the stock names: the DataRate, InterframeGap,
 * ReceiveErrorModel, TxQueue, Mtu and Address attributes; the MacTx, MacTxDrop, MacPromiscRx,
 * MacRx, PhyTxBegin, PhyTxEnd, PhyTxDrop, PhyRxEnd, PhyRxDrop, Sniffer and PromiscSniffer trace
 * sources; link up once attached (a failed link is an error model that drops everything, as
 * MetaRoceFabricFailure installs); pcap (DLT_PPP, as PointToPointHelper writes); ns-3's MPI (an
 * MpiReceiver aggregated by MetaRoceRemoteChannel). A packet serialises for exactly the time the
 * stock device takes, frame header included, so results are those of the stock device.
 *
 * What is left out, and why (issue 14's profile: these were a third of every packet-hop):
 *  - The 2-byte PPP header is not carried: the wire's packet is the IPv4 packet, and the frame
 *    is counted in the transmission time. Trace sinks still get the frame (a PPP-framed copy is
 *    made for them, only while someone listens; as on the stock device, MacTxDrop gets the bare
 *    packet when the link is down), and so do error models, except ns-3's own RateErrorModel in
 *    packet units, which judges a packet without reading it. So a sink that adds a tag to what
 *    it gets does not tag the packet on the wire (UIDs are kept), and a TxQueue limited in bytes
 *    counts packets 2 bytes shorter than on the stock device.
 *  - Transmission times are cached per frame size (the two latest, then 16 entries), not
 *    computed per packet (DataRate's 128-bit division was 7% of a hop).
 *  - A frame whose queue says nothing follows it (DeferCompletion, a NIC's or switch's port
 *    queue with nothing queued) ends without an event; a frame sent during it still starts
 *    the instant it is over, and a PhyTxEnd sink still gets its end on time (the device then
 *    schedules the event). In a fabric's all-to-all this spares a fifth of the events.
 *  - The channel hands the receiver the sender's packet, not a copy: Send() takes the packet
 *    over (change it no more), receivers get a Ptr<const Packet> and copy before they change
 *    anything (the switch copies every packet it forwards).
 *  - The remote address passed to receive callbacks is converted only when it changes.
 *  - Only IPv4 is carried (0x0800; every metaroce packet, PFC frames included, is IPv4): Send()
 *    with another protocol fires MacTxDrop and returns false.
 *  - No NetDeviceQueueInterface is aggregated (the module's NIC and switch pull; an ns-3 IP
 *    stack on these devices gets no traffic-control flow control).
 * Scripts that name the stock types in configuration paths ($ns3::PointToPointNetDevice) need
 * $ns3::MetaRoceNetDevice and $ns3::MetaRoceChannel instead.
 */
#ifndef METAROCE_NET_DEVICE_H
#define METAROCE_NET_DEVICE_H

#include "metaroce-flagged-trace.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class MetaRoceArrivals;
class MetaRoceChannel;

/**
 * \ingroup metaroce
 * \brief What a device hands its intact arrivals to when it is a NIC's or a switch's port:
 * called directly rather than through the receive Callback, which reaches its target through
 * two more heap objects (two cache misses per packet-hop in a large fabric).
 */
class MetaRoceFrameSink
{
  public:
    virtual ~MetaRoceFrameSink() = default;
    /**
     * An IPv4 packet has arrived intact through the sink's port `port`. The sink may forward
     * the packet object itself: trace sinks may hold it too, so whoever changes a packet's
     * bytes or tags copies it first (a switch marking CE, a remote channel adding its tag).
     */
    virtual void ReceiveFrame(uint32_t port, Ptr<Packet> packet) = 0;
};

/**
 * \ingroup metaroce
 * \brief A point-to-point IPv4 device for MetaRoceChannel (see the file comment).
 */
class alignas(64) MetaRoceNetDevice : public NetDevice
{
  public:
    /// Bytes of the PPP header the stock device puts on every frame (counted, not carried).
    static constexpr uint32_t kFrameHeaderBytes = 2;
    /// The one protocol carried.
    static constexpr uint16_t kIpv4 = 0x0800;

    static TypeId GetTypeId();
    MetaRoceNetDevice();
    ~MetaRoceNetDevice() override;

    /// Connects the device to one end of `channel`; the link is up from then on.
    bool Attach(Ptr<MetaRoceChannel> channel);

    /// Sets the rate at which frames are serialised.
    void SetDataRate(DataRate rate);
    /// The rate at which frames are serialised.
    DataRate GetDataRate() const;
    /// Sets the idle time after each frame.
    void SetInterframeGap(Time gap);
    /// Sets the transmit queue (a NIC or switch port installs its MetaRocePortQueue).
    void SetQueue(Ptr<Queue<Packet>> queue);
    /**
     * The frame about to start (from the queue's Dequeue(), which calls this) needs no event at
     * its end: nothing waits to follow it. The device then keeps only the time its wire is free
     * again; PullAtFrameEnd() makes the event after all, and Send() does so itself when a
     * frame comes while the wire is busy. A PhyTxEnd sink gets its event regardless. A port
     * queue asks this when its owner has nothing more queued (MetaRocePortOwner::MayHaveWork):
     * a fabric's ports are often idle between frames, and a transmit completion that finds
     * nothing to send was an event, a pull and a cache line of the owner per frame
     * (doc/performance.md, "The fast path").
     */
    void DeferCompletion();
    /// If a frame is on the wire, makes sure its end is an event that asks the queue for the
    /// next one (scheduling it for a deferred frame) and returns true; false when the wire is
    /// free (a deferred frame that is over leaves the device idle).
    bool PullAtFrameEnd();
    /// The transmit queue.
    Ptr<Queue<Packet>> GetQueue() const;
    /// Sets the model that decides which arriving frames are lost (null: none).
    void SetReceiveErrorModel(Ptr<ErrorModel> em);
    /// The receive error model (null: none).
    Ptr<ErrorModel> GetReceiveErrorModel() const;

    /// A packet arriving from the channel (its transmission has ended at the far end).
    void Receive(Ptr<Packet> packet);

    /// Fetches into the cache what Receive() reads first (MetaRoceArrivals::PrefetchDelivery),
    /// a step per call: `sink` false this device's receive fields, true the frame sink they name.
    void PrefetchReceive(bool sink) const
    {
        if (!sink)
        {
            __builtin_prefetch(&m_receiveErrorModel);
            __builtin_prefetch(&m_sink);
        }
        else if (m_sink != nullptr)
        {
            __builtin_prefetch(m_sink);
        }
    }

    /// Hands intact arrivals to sink's port `port` instead of the receive callback, until
    /// SetReceiveCallback() is called again (null: back to the receive callback). The sink
    /// outlives the device or detaches first. Traces and the promiscuous callback are unchanged.
    /// The node's deliveries are then fetched ahead in large fabrics (MetaRoceLinkPrefetcher).
    void SetFrameSink(MetaRoceFrameSink* sink, uint32_t port);
    /// Back to the receive callback if the frame sink is still `sink` (an owner leaving does
    /// not detach a device since given to another).
    void ReleaseFrameSink(const MetaRoceFrameSink* sink);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;

    bool IsBroadcast() const override
    {
        return true;
    }

    Address GetBroadcast() const override;

    bool IsMulticast() const override
    {
        return true;
    }

    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;

    bool IsPointToPoint() const override
    {
        return true;
    }

    bool IsBridge() const override
    {
        return false;
    }

    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;

    bool NeedsArp() const override
    {
        return false;
    }

    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;

    bool SupportsSendFrom() const override
    {
        return false;
    }

  protected:
    void DoDispose() override;

  private:
    using PacketTrace = MetaRoceFlaggedTrace<Ptr<const Packet>>;

    /// The trace sources' bits in m_listened.
    enum TraceBit : uint32_t
    {
        kMacTx = 1U << 0,
        kMacTxDrop = 1U << 1,
        kMacPromiscRx = 1U << 2,
        kMacRx = 1U << 3,
        kPhyTxBegin = 1U << 4,
        kPhyTxEnd = 1U << 5,
        kPhyTxDrop = 1U << 6,
        kPhyRxEnd = 1U << 7,
        kPhyRxDrop = 1U << 8,
        kSniffer = 1U << 9,
        kPromiscSniffer = 1U << 10,
        /// Not a trace source: set while a promiscuous receive callback is installed, so that
        /// a receive reads no more than this word to know there is none.
        kPromiscCallback = 1U << 11,
    };

    /// GetTypeId's trace sources.
    static TypeId AddTraceSources(TypeId tid);

    /// Starts serialising p; the device must be idle.
    bool TransmitStart(Ptr<Packet> p);
    /// The frame has left: the next one from the queue, if any. An event of the node
    /// (MetaRoceArrivals::Schedule): the node's arrivals of this instant have come first.
    void TransmitComplete();
    /// The time a packet of `bytes` (frame header excluded) takes on the wire.
    Time TxTime(uint32_t bytes);
    /// TxTime() past the two latest sizes: the 16-entry cache, or DataRate's division.
    Time TxTimeSlow(uint32_t bytes);
    /// Forgets every cached transmission time (the rate has changed).
    void ClearTxTimes();

    /// Fires trace (whose bit is `bit`) with p as the stock device's sinks see it: PPP-framed
    /// (a copy, made only when the trace has sinks).
    void Fire(uint32_t bit, const PacketTrace& trace, const Ptr<Packet>& p) const
    {
        if ((m_listened & bit) != 0)
        {
            trace(Framed(p));
        }
    }

    /// p as a PPP frame (a copy with the IPv4 PPP header).
    static Ptr<Packet> Framed(Ptr<const Packet> p);
    /// True if the receive error model must see the frame (it may read the packet or its size).
    bool ErrorModelReadsFrame() const;
    /// Makes m_remote the other end's address (a packet has arrived, so both ends are attached).
    void RefreshRemote();
    /// The Address attribute's setter: the other end converts it again at its next arrival.
    void SetMacAddress(Mac48Address address);
    /// The Address attribute's getter.
    Mac48Address GetMacAddress() const;

    // What every packet-hop reads comes first, in the object's first two cache lines (with
    // alignas(64) on the class): at a few hundred hosts a hop's cost is mostly cache misses
    // (doc/performance.md, "The fast path"), and the stock layout spread a hop over ten
    // lines of each device.
    Ptr<Packet> m_current; ///< the frame being serialised
    Ptr<MetaRoceChannel> m_channel;
    Ptr<Queue<Packet>> m_queue;
    Ptr<ErrorModel> m_receiveErrorModel;
    MetaRoceFrameSink* m_sink{nullptr}; ///< if set, gets arrivals instead of m_rxCallback
    /// The node's arrivals: the end of a frame is an event of the node (set with the node, which
    /// holds it)
    MetaRoceArrivals* m_arrivals{nullptr};
    uint32_t m_sinkPort{0};
    uint32_t m_listened{0}; ///< a TraceBit set while that trace source has sinks (or callback)
    uint32_t m_ifIndex{0};
    bool m_linkUp{false};
    bool m_busy{false};
    bool m_completionScheduled{false}; ///< TransmitComplete() is due at m_txEnd
    bool m_deferNext{false};           ///< DeferCompletion() for the frame about to start
    Time m_txEnd;                      ///< when the current frame and its gap are over
    /// The two latest frame sizes and their times, latest first (a port mostly alternates
    /// between two sizes: full DATA packets and ACKs); UINT32_MAX: none.
    std::array<uint32_t, 2> m_recentBytes{UINT32_MAX, UINT32_MAX};
    std::array<Time, 2> m_recentTimes;
    Time m_interframeGap;

    // Read only by receives with a receive callback (not a frame sink) or a promiscuous one.
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    bool m_remoteKnown{false}; ///< m_remote is the other end's current address

    // The rest: set-up, rarely used paths and the trace sources' sink lists.
    Ptr<Node> m_node;
    NetDevice::ReceiveCallback m_rxCallback;
    /// m_receiveErrorModel if it is exactly a RateErrorModel (its unit decides whether it reads
    /// frames).
    Ptr<RateErrorModel> m_rateErrorModel;
    Mac48Address m_address;
    Address m_remote; ///< the other end's address as the receive callbacks take it
    DataRate m_rate;
    uint16_t m_mtu{1500};
    TracedCallback<> m_linkChanges;

    /// Transmission times by frame size past the two latest: 8 sets of two (a fabric sends a
    /// handful of sizes, and a fabric has thousands of devices); cleared when the rate changes.
    struct TxTimeEntry
    {
        uint32_t bytes{UINT32_MAX};
        Time time;
    };

    std::array<TxTimeEntry, 16> m_txTimes;

    PacketTrace m_macTxTrace;
    PacketTrace m_macTxDropTrace;
    PacketTrace m_macPromiscRxTrace;
    PacketTrace m_macRxTrace;
    PacketTrace m_phyTxBeginTrace;
    PacketTrace m_phyTxEndTrace;
    PacketTrace m_phyTxDropTrace;
    PacketTrace m_phyRxEndTrace;
    PacketTrace m_phyRxDropTrace;
    PacketTrace m_snifferTrace;
    PacketTrace m_promiscSnifferTrace;
};

} // namespace ns3

#endif /* METAROCE_NET_DEVICE_H */
