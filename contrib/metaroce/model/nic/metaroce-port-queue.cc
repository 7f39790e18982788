#include "metaroce-port-queue.h"

#include "ns3/boolean.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"

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
                          "frame's end is an event that pulls, as before "
                          "2026-12-05 (the same instants; simultaneous events "
                          "of a node may run in another order).",
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
MetaRocePortQueue::Attach(Ptr<MetaRoceNetDevice> device)
{
    m_device = device;
    m_arrivals = MetaRoceArrivals::Of(device->GetNode());
    device->SetQueue(this);
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
    Ptr<Packet> p = m_owner->PullPort(m_port);
    if (p == nullptr)
    {
        return;
    }
    // Send() enqueues (we hold the packet) and, the device being idle, dequeues it straight
    // away and starts serialising. A point-to-point device ignores the destination; one
    // Address made once for all ports (converting it per packet was 0.8% of a fabric run).
    static const Address kBroadcast = Mac48Address::GetBroadcast();
    m_device->Send(p, kBroadcast, MetaRoceNetDevice::kIpv4);
}

bool
MetaRocePortQueue::Wake()
{
    if (!m_busy && m_device != nullptr && m_owner != nullptr && m_device->PullAtFrameEnd())
    {
        // A frame that ends without pulling (MayHaveWork was false) now pulls at its end.
        SetBusy(true);
    }
    return m_busy;
}

bool
MetaRocePortQueue::Enqueue(Ptr<Packet> item)
{
    NS_ASSERT_MSG(m_handed == nullptr, "MetaRocePortQueue holds one packet at a time");
    m_handed = item;
    return true;
}

Ptr<Packet>
MetaRocePortQueue::Dequeue()
{
    Ptr<Packet> p = m_handed;
    m_handed = nullptr;
    if (p == nullptr && m_owner != nullptr)
    {
        // The device's transmit completion: packets arriving at this instant come first
        // (metaroce-arrivals.h). Kicking this port from there does nothing: it is still busy.
        m_arrivals->DeliverDue();
        p = m_owner->PullPort(m_port);
    }
    bool pulls = p != nullptr;
    if (pulls && m_deferIdleCompletions && m_owner != nullptr && m_device != nullptr &&
        !m_owner->MayHaveWork(m_port))
    {
        // Nothing follows this frame unless the owner kicks the port again.
        m_device->DeferCompletion();
        pulls = false;
    }
    SetBusy(pulls);
    return p;
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
    return p;
}

Ptr<const Packet>
MetaRocePortQueue::Peek() const
{
    return m_handed;
}

} // namespace ns3
