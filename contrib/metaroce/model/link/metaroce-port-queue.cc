#include "metaroce-port-queue.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/mac48-address.h"
#include "ns3/metaroce-now.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRocePortQueue);

TypeId
MetaRocePortQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRocePortQueue")
            .SetParent<Queue<Packet>>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRocePortQueue>()
            .AddAttribute("DeferIdleCompletions",
                          "A frame handed over while the owner has nothing more "
                          "queued ends without an event (the device's end is "
                          "scheduled only when work comes). False: every "
                          "frame's end is an event that pulls (the same "
                          "instants; simultaneous events of a node may run in "
                          "another order).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRocePortQueue::m_deferIdleCompletions),
                          MakeBooleanChecker());
    return tid;
}

// No NS_LOG_* in members: Queue<Packet> declares a private g_log that name lookup would find.
MetaRocePortQueue::MetaRocePortQueue() = default;

MetaRocePortQueue::~MetaRocePortQueue() = default;

void
MetaRocePortQueue::DoDispose()
{
    m_owner = nullptr;
    m_device = nullptr;
    m_fast = nullptr;
    m_link.Clear();
    m_arrivals = nullptr;
    m_handed = nullptr;
    Queue<Packet>::DoDispose();
}

void
MetaRocePortQueue::SetOwner(MetaRocePortOwner* owner, uint32_t port)
{
    m_owner = owner;
    m_port = port;
}

void
MetaRocePortQueue::ReleaseOwner(const MetaRocePortOwner* owner)
{
    if (m_owner == owner)
    {
        m_owner = nullptr;
    }
}

void
MetaRocePortQueue::Attach(Ptr<NetDevice> device)
{
    NS_ABORT_MSG_IF(device == nullptr || device->GetNode() == nullptr,
                    "MetaRocePortQueue::Attach: a device on a node is needed");
    m_device = device;
    m_fast = DynamicCast<MetaRoceNetDevice>(device);
    m_arrivals = MetaRoceArrivals::Of(device->GetNode());
    if (m_fast != nullptr)
    {
        m_fast->SetQueue(this);
    }
    else if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(device))
    {
        p2p->SetQueue(this);
        m_link.Bind(device);
    }
    else
    {
        NS_ABORT_MSG_UNLESS(device->SetAttributeFailSafe("TxQueue", PointerValue(this)),
                            "MetaRocePortQueue::Attach: " << device->GetInstanceTypeId().GetName()
                                                          << " has no TxQueue to pull from");
        m_link.Bind(device);
    }
}

bool
MetaRocePortQueue::IsBusy() const
{
    return m_busy;
}

void
MetaRocePortQueue::Kick()
{
    if (Wake())
    {
        return; // the end of the frame on the wire pulls
    }
    if (m_device == nullptr || m_owner == nullptr)
    {
        return;
    }
    if (m_handed != nullptr)
    {
        return; // ns-3's device, busy to the end of this instant: it takes the packet given
    }
    Ptr<Packet> p = m_owner->PullPort(m_port);
    if (p != nullptr)
    {
        Send(p);
    }
}

bool
MetaRocePortQueue::Wake()
{
    if (m_busy || m_owner == nullptr)
    {
        return m_busy;
    }
    if (m_fast != nullptr ? m_fast->PullAtFrameEnd() : m_frameEnd > MetaRoceNow())
    {
        // A frame that ends without pulling (MayHaveWork was false) now pulls at its end.
        if (m_fast == nullptr)
        {
            m_endPending = true; // the device's own completion then leaves it to this event
            m_arrivals->Schedule(nullptr,
                                 m_frameEnd - MetaRoceNow(),
                                 &MetaRocePortQueue::PullAtFrameEnd,
                                 this);
            m_frameEnd = Time(0);
        }
        SetBusy(true);
    }
    return m_busy;
}

bool
MetaRocePortQueue::Enqueue(Ptr<Packet> item)
{
    NS_ASSERT_MSG(m_handed == nullptr, "MetaRocePortQueue holds one packet at a time");
    m_handed = item;
    if (m_fast == nullptr)
    {
        // ns-3's device: through Queue's own list too, for its Enqueue and Dequeue traces (the
        // ASCII trace's '+' and '-' lines) and counters.
        DoEnqueue(GetContainer().end(), item);
    }
    return true;
}

Ptr<Packet>
MetaRocePortQueue::Dequeue()
{
    Ptr<Packet> p = m_handed;
    m_handed = nullptr;
    if (m_fast == nullptr)
    {
        // ns-3's own device: every frame comes through Send(), framed by the device.
        if (p == nullptr)
        {
            FrameEnds();
        }
        else
        {
            DoDequeue(GetContainer().begin());
            if (!m_handedStarted)
            {
                FrameStarts(p);
            }
        }
        m_handedStarted = false;
        return p;
    }
    if (p == nullptr && m_owner != nullptr)
    {
        // The device's transmit completion, an event of the node: its arrivals of this instant
        // have come first (metaroce-arrivals.h), and kicking this port from there did nothing,
        // as it was still busy.
        p = m_owner->PullPort(m_port);
    }
    bool pulls = p != nullptr;
    if (pulls && m_deferIdleCompletions && m_owner != nullptr && !m_owner->MayHaveWork(m_port))
    {
        // Nothing follows this frame unless the owner kicks the port again.
        m_fast->DeferCompletion();
        pulls = false;
    }
    SetBusy(pulls);
    return p;
}

Time
MetaRocePortQueue::FrameStarts(const Ptr<Packet>& frame)
{
    const Time end = m_link.FrameStarts(frame->GetSize());
    bool pulls = true;
    if (m_deferIdleCompletions && m_owner != nullptr && !m_owner->MayHaveWork(m_port))
    {
        // As on the module's device: nothing waits for this frame's end unless the owner
        // kicks the port before it (Wake); the device's own completion then pulls nothing.
        m_frameEnd = end;
        pulls = false;
    }
    SetBusy(pulls);
    return end;
}

void
MetaRocePortQueue::FrameEnds()
{
    if (!m_busy || m_endPending || m_owner == nullptr)
    {
        return; // a frame nobody waited for, or one whose end is our own event (Wake)
    }
    // The next packet now, or after the node's arrivals of this instant.
    m_endPending = true;
    m_arrivals->Run(&MetaRocePortQueue::PullAtFrameEnd, this);
}

void
MetaRocePortQueue::PullAtFrameEnd()
{
    m_endPending = false;
    // Still busy while pulling, as on the module's device (the owner kicks nothing now).
    Ptr<Packet> p = m_owner != nullptr ? m_owner->PullPort(m_port) : nullptr;
    if (p == nullptr)
    {
        SetBusy(false);
        return;
    }
    Send(p);
}

void
MetaRocePortQueue::Send(Ptr<Packet> p)
{
    // Send() enqueues (we hold the packet) and, the device being idle, dequeues it straight
    // away and starts serialising. A point-to-point device ignores the destination; one
    // Address made once for all ports (converting it per packet was 0.8% of a fabric run).
    static const Address kBroadcast = Mac48Address::GetBroadcast();
    m_device->Send(p, kBroadcast, MetaRoceNetDevice::kIpv4);
    if (m_fast == nullptr && m_handed != nullptr)
    {
        // ns-3's device ends its previous frame in this instant, in an event still to come,
        // and starts this one there: it starts now, as on the module's device, and its end
        // is an event scheduled now, as the module's device schedules it (the device's own,
        // scheduled later, would pull after other ports' ends of that instant).
        const Time end = FrameStarts(m_handed);
        m_handedStarted = true;
        if (m_busy)
        {
            m_endPending = true;
            m_arrivals->Schedule(nullptr,
                                 end - MetaRoceNow(),
                                 &MetaRocePortQueue::PullAtFrameEnd,
                                 this);
        }
    }
}

void
MetaRocePortQueue::SetBusy(bool busy)
{
    if (busy != m_busy)
    {
        m_busy = busy;
        if (m_owner != nullptr)
        {
            m_owner->PortBusyChanged(m_port, busy);
        }
    }
}

Ptr<Packet>
MetaRocePortQueue::Remove()
{
    Ptr<Packet> p = m_handed;
    m_handed = nullptr;
    m_handedStarted = false;
    if (m_fast == nullptr && p != nullptr)
    {
        DoRemove(GetContainer().begin());
    }
    return p;
}

Ptr<const Packet>
MetaRocePortQueue::Peek() const
{
    return m_handed;
}

} // namespace ns3
