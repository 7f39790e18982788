/*
 * The transmit queue of a metaroce port: a pull queue.
 *
 * A MetaRoceNetDevice, like ns-3's point-to-point device, serialises packets at its DataRate and
 * asks its queue for the next packet the moment the previous one has left (TransmitComplete ->
 * Queue::Dequeue). This
 * queue answers that call by asking its owner - a NIC or a switch port - for the packet that
 * should go next, *now*. So the owner keeps its packets in its own structures (engines, per
 * priority egress queues, PFC state) and decides at the last moment, exactly as a hardware
 * scheduler does; the device stays an ordinary device, so DataRate, the channel, error models
 * and pcap all apply; and no event is spent per packet beyond the device's own.
 *
 * When the device is idle and the owner gets new work, the owner calls Kick(): the next packet
 * is pulled and handed to the device through its ordinary Send().
 *
 * On any other device that sends from its transmit queue (ns-3's PointToPointNetDevice, as
 * PointToPointHelper builds it) every packet goes through the device's Send(), which adds the
 * device's own link header: a transmit completion (a Dequeue() with no packet handed over)
 * pulls the next packet and gives it to Send() from inside the Dequeue() (the device is idle
 * again by then), after the node's arrivals of that instant - later in the instant if some are
 * still to come (metaroce-arrivals.h). The packets leave at the same instants, in the same
 * order, as on the module's device.
 *
 * On the module's device, a frame pulled while the owner has nothing more queued (MayHaveWork) ends
 * without an event (MetaRoceNetDevice::DeferCompletion): the port counts as idle, and the owner's
 * next Kick() either starts a packet at once, if the frame is over, or asks the device for the
 * event at the frame's end, which pulls as any completion does. Packets leave at the same instants
 * as with an event at every frame's end (the DeferIdleCompletions attribute, true by default; false
 * gives every frame's end an event).
 */
#ifndef METAROCE_PORT_QUEUE_H
#define METAROCE_PORT_QUEUE_H

#include "metaroce-port-link.h"

#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/packet.h"
#include "ns3/queue.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief What a port queue pulls from: a NIC, a switch. Called directly rather than through an
 * ns3::Callback, which reaches its target through two more heap objects (two cache misses per
 * packet-hop in a large fabric).
 */
class MetaRocePortOwner
{
  public:
    virtual ~MetaRocePortOwner() = default;
    /// The next packet for port `port` to transmit now, or null when none may go.
    virtual Ptr<Packet> PullPort(uint32_t port) = 0;

    /// Port `port`'s device has started (busy) or ended (not busy) a run of back-to-back
    /// transmissions: what MetaRocePortQueue::IsBusy() answers from now on, told to an owner
    /// that asks often (reading every port's queue costs a cache line each).
    virtual void PortBusyChanged(uint32_t port, bool busy)
    {
    }

    /// False only when port `port` certainly has nothing queued to send: until the owner Kick()s
    /// it again, a pull would return null. Its device then schedules no event at the end of the
    /// frame it has just been given (MetaRoceNetDevice::DeferCompletion). By default true.
    virtual bool MayHaveWork(uint32_t /* port */) const
    {
        return true;
    }
};

/**
 * \ingroup metaroce
 * \brief A Queue<Packet> that holds nothing of its own and pulls from its owner on Dequeue().
 */
class MetaRocePortQueue : public Queue<Packet>
{
  public:
    static TypeId GetTypeId();
    MetaRocePortQueue();
    ~MetaRocePortQueue() override;

    /// Pulls from owner's port `port` from now on (null: from nobody; the owner outlives the
    /// queue or detaches it first).
    void SetOwner(MetaRocePortOwner* owner, uint32_t port);
    /// Pulls from nobody if the owner is still `owner` (an owner leaving does not detach a
    /// queue since given to another).
    void ReleaseOwner(const MetaRocePortOwner* owner);

    /**
     * Binds the queue to its device and installs it as the device's transmit queue: through
     * SetQueue() on a MetaRoceNetDevice or a PointToPointNetDevice, else through the device's
     * "TxQueue" attribute (a device without one is a fatal error).
     */
    void Attach(Ptr<NetDevice> device);

    /// If the device is idle, pulls one packet and starts its transmission; if it is still
    /// sending a frame whose end nobody waited for, has that end pull the next one.
    void Kick();
    /// The first half of Kick(): if the device is sending a frame whose end nobody waited for,
    /// has that end pull. Returns true when the device will pull at a frame's end (IsBusy).
    /// Safe inside another port's pull (it pulls nothing now).
    bool Wake();

    /// True while the device is serialising a packet this queue gave it and will pull when it is
    /// done (false during a frame that ends without pulling: MayHaveWork).
    bool IsBusy() const;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

  protected:
    void DoDispose() override;

  private:
    // Everything a packet-hop reads, in one aligned cache line after Queue<Packet>'s own
    // members (which a hop does not read).
    alignas(64) MetaRocePortOwner* m_owner{nullptr};
    Ptr<MetaRoceNetDevice> m_fast; ///< the device, when it is the module's (else null)
    Ptr<NetDevice> m_device;
    Ptr<MetaRoceArrivals> m_arrivals; ///< the device's node's: this port's events go through it
    Ptr<Packet> m_handed; ///< a packet given to the device's Send(), returned by the next Dequeue
    uint32_t m_port{0};
    bool m_busy{false};                ///< the device will pull when its frame is over (IsBusy)
    bool m_deferIdleCompletions{true}; ///< DeferIdleCompletions attribute

    /// Sets m_busy, telling the owner when it changes.
    void SetBusy(bool busy);
    /// Hands p to the device's Send().
    void Send(Ptr<Packet> p);
    /// ns-3's device starts `frame` (given through Send()): announces its arrival, and notes
    /// whether anything waits for its end; returns when the device is free again.
    Time FrameStarts(const Ptr<Packet>& frame);
    /// ns-3's device has ended a frame (its completion's Dequeue()): if something waits for
    /// it, PullAtFrameEnd() as an event of the node (after its arrivals of this instant).
    void FrameEnds();
    /// The next packet at a frame's end, through Send().
    void PullAtFrameEnd();

    MetaRocePortLink m_link;     ///< ns-3's device: frame times, the peer to announce arrivals to
    Time m_frameEnd;             ///< ns-3's device: the end of a frame nobody waits for, if later
    bool m_endPending{false};    ///< ns-3's device: PullAtFrameEnd() is due
    bool m_handedStarted{false}; ///< ns-3's device: FrameStarts() is done for m_handed
};

} // namespace ns3

#endif // METAROCE_PORT_QUEUE_H
