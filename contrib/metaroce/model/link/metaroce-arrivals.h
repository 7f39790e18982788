/*
 * A node's arrivals: packets on their way in, delivered before anything else the node does in
 * the same nanosecond.
 *
 * ns-3 runs the events of one timestamp in the order they were scheduled. For a packet arriving
 * at a node, that order is set by when its sender started transmitting, so whether a switch pulls
 * its next packet, or a NIC's timer fires, before or after a packet that arrives in the same
 * nanosecond depends on other nodes' history - and in a distributed run (ns-3's MPI) on when
 * the message from the other rank was read. Results then change with the scheduler's tie order
 * and differ between a sequential and a distributed run of the same seed.
 *
 * MetaRoceChannel stages every packet here when its transmission starts (a packet from another
 * rank, when its message is read, which is always before it arrives). Every event of the node -
 * the arrival wake-up itself, a frame's end on the module's device (MetaRoceNetDevice schedules
 * it here) or a port's on ns-3's (MetaRocePortQueue), a NIC or PFC timer, an application, a
 * failure - is scheduled or run through this object (Schedule(), Run(), RunCall()), which first
 * calls DeliverDue(): every packet due by now goes to its device's Receive()
 * in (arrival time, receiving interface) order. So at every instant a node sees its arrivals
 * first, in a fixed order, whatever the scheduler or the rank layout: the order the
 * metaroce-determinism suite checks.
 *
 * ns-3's own PointToPointNetDevice (BindPort) cannot stage a packet early: its channel schedules
 * its Receive() for the arrival instant, where other events of the node may come first. So the
 * sending port announces each packet's arrival instant (Expect()), the device's receive callback
 * (or its PhyRxDrop, for a packet its error model lost) stages the packet when it comes, and the
 * arrivals of an instant are delivered when its last announced packet has come. A node event
 * that runs while packets of its instant are still announced, or while an earlier event of its
 * instant waits, waits too: it is scheduled again for the same instant, which puts it after
 * every arrival (all were scheduled before the instant began), in its own order. An event that
 * ran before any packet of its instant came would, on the module's device, have delivered them
 * itself, and arrivals cancel it no more; one that ran after some came stays cancellable through
 * its EventId, as it is there. Events thus run in the order they run on the module's device.
 */
#ifndef METAROCE_ARRIVALS_H
#define METAROCE_ARRIVALS_H

#include "ns3/engine-types.h"
#include "ns3/event-id.h"
#include "ns3/metaroce-now.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

class Node;
class NetDevice;
class MetaRoceNetDevice;
class MetaRoceFrameSink;

/**
 * \ingroup metaroce
 * \brief The packets staged for a node, delivered in (time, interface) order (aggregated to the
 * node).
 */
class MetaRoceArrivals : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceArrivals();
    ~MetaRoceArrivals() override;

    /// The node's arrivals, aggregated to it on first use.
    static Ptr<MetaRoceArrivals> Of(Ptr<Node> node);

    /// Stages packet to be received by device (a device of this node, interface ifIndex) at
    /// time at (> now). The caller passes the index it has kept, so that staging does not
    /// read the receiving device (a cache miss per hop in large fabrics).
    void Stage(Time at, const Ptr<MetaRoceNetDevice>& device, uint32_t ifIndex, Ptr<Packet> packet);

    /**
     * Makes `device`, a device of this node, hand what arrives intact through it to `sink`'s
     * port `port`, in this object's order. A MetaRoceNetDevice gives its frames to the sink
     * directly (its channel stages them here). Any other device (ns-3's PointToPointNetDevice)
     * reports them through its receive callback, after its error model and traces, with its
     * link header removed: they are staged here then and delivered in the same instant, before
     * the node's other events of it (see the file comment). The sink outlives the binding or
     * calls ReleasePort first.
     */
    void BindPort(Ptr<NetDevice> device, MetaRoceFrameSink* sink, uint32_t port);
    /// Undoes BindPort() if `device` still hands its arrivals to `sink`.
    void ReleasePort(Ptr<NetDevice> device, const MetaRoceFrameSink* sink);

    /**
     * Schedules an event of this node after `delay` (in the current context): it calls
     * `(obj->*mem)(args...)` after the node's arrivals of its instant (see the file comment).
     * Returns its EventId; when it has to wait for arrivals it is scheduled again and, if
     * `slot` is given (where the caller keeps the EventId), the new EventId is written there.
     */
    template<typename OBJ, typename... Args>
    EventId Schedule(EventId* slot, Time delay, void (OBJ::*mem)(Args...), OBJ* obj, Args... args)
    {
        return Simulator::Schedule(delay,
                                   &MetaRoceArrivals::Fire<OBJ, Args...>,
                                   this,
                                   slot,
                                   mem,
                                   obj,
                                   args...);
    }

    /// Schedule() from outside the node's events (set-up, another node's event): in the node's
    /// context, no EventId.
    template<typename OBJ, typename... Args>
    void ScheduleFromOutside(Time delay, void (OBJ::*mem)(Args...), OBJ* obj, Args... args)
    {
        Simulator::ScheduleWithContext(m_nodeId,
                                       delay,
                                       &MetaRoceArrivals::Fire<OBJ, Args...>,
                                       this,
                                       static_cast<EventId*>(nullptr),
                                       mem,
                                       obj,
                                       args...);
    }

    /// Runs `(obj->*mem)(args...)` as an event of this node that has begun elsewhere (an
    /// Application's start): now, after the arrivals of this instant, or after them later in
    /// this instant.
    template<typename OBJ, typename... Args>
    void Run(void (OBJ::*mem)(Args...), OBJ* obj, Args... args)
    {
        Fire<OBJ, Args...>(nullptr, mem, obj, args...);
    }

    /// Run() for a call that is not a member function (rare events: failures).
    void RunCall(std::function<void()> call);

    /// True when an event of this instant must wait for the node's arrivals (only with
    /// BindPort() devices): packets of this instant announced and not yet come, or an earlier
    /// event of the instant waiting.
    bool MustWait()
    {
        return (m_nExpected != 0 || m_nWaiting != 0) && MustWaitSlow();
    }

    /**
     * A BindPort() device's peer announces that a packet it has begun to send reaches
     * interface `ifIndex` of this node at `at` (ignored unless that interface is a BindPort()
     * port).
     */
    void Expect(uint32_t ifIndex, Time at);

    /**
     * Calls observer at the start of the node's first event at or after `at`, before that event
     * delivers or changes anything, then again at the first event at or after the time it
     * returns (Time::Max(): never again). What it reads is the node's state at the start of that
     * instant, whatever the order of the events in it, and nothing is scheduled for it: the
     * fabric monitor's throughput samples.
     */
    void AddObserver(Time at, std::function<Time()> observer);

    /// The time step of the node's latest event (or delivery), or -1.
    int64_t GetLastEventStep() const
    {
        return m_lastEvent;
    }

    /// Packets staged and not yet delivered, or announced and not yet come (on a wire towards
    /// this node).
    std::size_t GetNStaged() const;

    /**
     * Fetches into the cache what the next delivery reads, one step of the chain per call, the
     * deepest step for the nearest event (`ahead` 1, up to 5): the wire's packet, its slot in
     * the wire, the wire, the due list, this object. Each step reads what the step before it
     * fetched; nothing changes. MetaRoceLinkPrefetcher calls it for the fast link's nodes.
     */
    void PrefetchDelivery(int ahead) const;

  protected:
    void DoDispose() override;

  private:
    /// A staged packet.
    struct Staged
    {
        int64_t at;
        Ptr<Packet> packet;
    };

    /// The packets on their way in through one of the node's devices, in arrival order (a link
    /// delivers in the order it sends).
    struct Wire
    {
        Ptr<MetaRoceNetDevice> device;    ///< null: a BindPort() device, its packets already in
        MetaRoceFrameSink* sink{nullptr}; ///< for a BindPort() device: where its packets go
        uint32_t port{0};                 ///< the sink's port
        metaroce::Ring<Staged> packets;
        metaroce::Ring<int64_t> expected; ///< announced arrival times (Expect()), in order
    };

    /// Delivers every staged packet due by now: what every event of the node does first
    /// (Fire(), RunCall(), Wake()), and the last announced arrival of an instant (Arrived()).
    void DeliverDue()
    {
        const int64_t now = MetaRoceNow().GetTimeStep();
        if (now >= m_observeAt)
        {
            Observe(now);
        }
        m_lastEvent = now;
        if (!m_delivering && !m_due.empty() && m_due.front().at <= now)
        {
            Deliver(now);
        }
    }

    /// The arrival wake-up (Stage()): an event of the node with nothing to do but its arrivals.
    void Wake()
    {
        Fire<MetaRoceArrivals>(nullptr, &MetaRoceArrivals::Nothing, this);
    }

    /// The wake-up's own call.
    void Nothing()
    {
    }

    /// Schedule()'s event: runs the call after the arrivals of its instant, or waits for them.
    template<typename OBJ, typename... Args>
    void Fire(EventId* slot, void (OBJ::*mem)(Args...), OBJ* obj, Args... args)
    {
        if (MustWait())
        {
            ++m_nWaiting;
            const EventId later =
                Simulator::ScheduleNow(&MetaRoceArrivals::FireAfterWait<OBJ, Args...>,
                                       this,
                                       slot,
                                       mem,
                                       obj,
                                       args...);
            if (slot != nullptr && m_arrivedStep == MetaRoceNow().GetTimeStep())
            {
                *slot = later; // arrivals came before it: they may cancel it, as W would
            }
            return;
        }
        DeliverDue();
        (obj->*mem)(args...);
    }

    /// Fire() again, after every arrival of the instant.
    template<typename OBJ, typename... Args>
    void FireAfterWait(EventId* slot, void (OBJ::*mem)(Args...), OBJ* obj, Args... args)
    {
        --m_nWaiting;
        ForgetLate(MetaRoceNow().GetTimeStep() + 1); // announced but never came: the link changed
        DeliverDue();
        (obj->*mem)(args...);
    }

    /// RunCall()'s call, after every arrival of the instant.
    void RunCallAfterWait(std::function<void()> call);
    /// MustWait() past its quick check.
    bool MustWaitSlow();
    /// Forgets announced arrivals due before time step `step` (they will not come).
    void ForgetLate(int64_t step);
    /// True if an announced packet due by time step `step` has not come.
    bool HasExpectedBy(int64_t step) const;
    /// A BindPort() device's PhyRxDrop: its error model lost a packet of interface `ifIndex`.
    void LostOnDevice(uint32_t ifIndex, Ptr<const Packet> packet);
    /// The packet announced on wire `ifIndex` for now has come (or was lost).
    void Arrived(uint32_t ifIndex);

    /// A BindPort() device's receive callback: stages the arrived packet on its wire.
    bool ReceiveFromDevice(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& from);
    /// Puts a staged packet due at time step `at` on wire `ifIndex`, in time order.
    void Enqueue(uint32_t ifIndex, int64_t at, Ptr<Packet> packet);

    /// A wire with packets staged: its first packet's arrival time and its interface index.
    struct Due
    {
        int64_t at;
        uint32_t ifIndex;
    };

    /// Moves the front wire of m_due to time `at` (later than its own), keeping the heap.
    void PostponeFront(int64_t at);

    /// True when a is delivered after b (the heap keeps the earliest at the front).
    static bool Later(const Due& a, const Due& b)
    {
        return a.at != b.at ? a.at > b.at : a.ifIndex > b.ifIndex;
    }

    /// Delivers the packets due by `now` (the current time step).
    void Deliver(int64_t now);
    /// Calls the observers due at `now` and sets m_observeAt to the next one's time.
    void Observe(int64_t now);

    /// An observer and the time step of its next call.
    struct Observer
    {
        int64_t at;
        std::function<Time()> call;
    };

    uint32_t m_nodeId{0};
    std::vector<Observer> m_observers;
    int64_t m_observeAt{INT64_MAX}; ///< the earliest observer's next call
    std::vector<Wire> m_wires;      ///< by the receiving device's interface index
    /// The wires with packets, earliest (time, interface) first: delivering in this order
    /// merges the wires' FIFOs into the (arrival time, interface) order.
    std::vector<Due> m_due;
    std::size_t m_nStaged{0};
    int64_t m_wakeAt{-1};       ///< time of the latest wake-up scheduled (one per time step)
    std::size_t m_nExpected{0}; ///< announced packets not yet come, over all wires
    std::size_t m_nWaiting{0};  ///< events of this instant waiting for its arrivals
    int64_t m_arrivedStep{-1};  ///< time step of the latest BindPort() arrival (or loss)
    int64_t m_lastEvent{-1};    ///< time of the latest DeliverDue()
    /// Inside Deliver(): a receive callback that reaches DeliverDue() again (a PFC RESUME
    /// expiring a pause) must not deliver the next arrival in the middle of this one.
    bool m_delivering{false};
};

} // namespace ns3

#endif /* METAROCE_ARRIVALS_H */
