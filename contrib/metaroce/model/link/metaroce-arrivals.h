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
 * the arrival wake-up itself, a port's transmit completion (MetaRocePortQueue::Dequeue), a NIC or
 * PFC timer, an application, a failure - first calls DeliverDue(), which hands every packet due
 * by now to its device's Receive() in (arrival time, receiving interface) order. So at every
 * instant a node sees its arrivals first, in a fixed order, whatever the scheduler or the rank
 * layout: the order the metaroce-determinism suite checks.
 */
#ifndef METAROCE_ARRIVALS_H
#define METAROCE_ARRIVALS_H

#include "ns3/engine-types.h"
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
class MetaRoceNetDevice;

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

    /// Delivers every staged packet due by now. Every event of the node calls this first.
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

    /**
     * Calls observer at the start of the node's first event at or after `at`, before that event
     * delivers or changes anything, then again at the first event at or after the time it
     * returns (Time::Max(): never again). What it reads is the node's state at the start of that
     * instant, whatever the order of the events in it, and nothing is scheduled for it: the
     * fabric monitor's throughput samples.
     */
    void AddObserver(Time at, std::function<Time()> observer);

    /// The time step of the node's latest event (its latest DeliverDue() call), or -1.
    int64_t GetLastEventStep() const
    {
        return m_lastEvent;
    }

    /// Packets staged and not yet delivered (on a wire towards this node).
    std::size_t GetNStaged() const;

    /**
     * For MetaRoceRadixScheduler's context prefetcher: fetches into the cache what the next
     * delivery of node `context` reads, one step of the chain per call, the deepest step for
     * the nearest event (`ahead` 1): the wire's packet, its slot in the wire, the wire, the
     * due list, this object. Each step reads what the step before it fetched; nothing changes.
     */
    static void Prefetch(uint32_t context, int ahead);

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
        Ptr<MetaRoceNetDevice> device;
        metaroce::Ring<Staged> packets;
    };

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
    int64_t m_wakeAt{-1};    ///< time of the latest wake-up scheduled (one per time step)
    int64_t m_lastEvent{-1}; ///< time of the latest DeliverDue()
    /// Inside Deliver(): a receive callback that reaches DeliverDue() again (a PFC RESUME
    /// expiring a pause) must not deliver the next arrival in the middle of this one.
    bool m_delivering{false};
};

} // namespace ns3

#endif /* METAROCE_ARRIVALS_H */
