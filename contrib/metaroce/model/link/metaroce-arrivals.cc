#include "metaroce-arrivals.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceArrivals);

TypeId
MetaRoceArrivals::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceArrivals")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceArrivals>();
    return tid;
}

MetaRoceArrivals::MetaRoceArrivals() = default;
MetaRoceArrivals::~MetaRoceArrivals() = default;

Ptr<MetaRoceArrivals>
MetaRoceArrivals::Of(Ptr<Node> node)
{
    Ptr<MetaRoceArrivals> arrivals = node->GetObject<MetaRoceArrivals>();
    if (arrivals == nullptr)
    {
        arrivals = CreateObject<MetaRoceArrivals>();
        arrivals->m_nodeId = node->GetId();
        node->AggregateObject(arrivals);
    }
    return arrivals;
}

bool
MetaRoceArrivals::Later(const Arrival& a, const Arrival& b)
{
    if (a.at != b.at)
    {
        return a.at > b.at;
    }
    if (a.ifIndex != b.ifIndex)
    {
        return a.ifIndex > b.ifIndex;
    }
    return a.sequence > b.sequence;
}

void
MetaRoceArrivals::Stage(Time at, Ptr<PointToPointNetDevice> device, Ptr<Packet> packet)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    NS_ABORT_MSG_UNLESS(at.GetTimeStep() > now,
                        "MetaRoceArrivals: a packet for node " << m_nodeId << " staged at " << at
                                                               << ", not after now");
    m_heap.push_back({at.GetTimeStep(), device->GetIfIndex(), m_sequence++, device, packet});
    std::push_heap(m_heap.begin(), m_heap.end(), Later);
    // One wake-up per time step: arrivals on several ports in one nanosecond share it.
    if (at.GetTimeStep() != m_wakeAt)
    {
        m_wakeAt = at.GetTimeStep();
        Simulator::ScheduleWithContext(m_nodeId,
                                       TimeStep(at.GetTimeStep() - now),
                                       &MetaRoceArrivals::DeliverDue,
                                       this);
    }
}

void
MetaRoceArrivals::Deliver()
{
    const int64_t now = Simulator::Now().GetTimeStep();
    m_delivering = true;
    while (!m_heap.empty() && m_heap.front().at <= now)
    {
        std::pop_heap(m_heap.begin(), m_heap.end(), Later);
        Arrival a = std::move(m_heap.back());
        m_heap.pop_back();
        // Receive() applies the device's error model, fires its traces (pcap) and calls the
        // owner's receive callback, which may stage more packets elsewhere but never here now.
        a.device->Receive(a.packet);
    }
    m_delivering = false;
}

void
MetaRoceArrivals::AddObserver(Time at, std::function<Time()> observer)
{
    NS_ABORT_MSG_IF(at < Simulator::Now(), "MetaRoceArrivals::AddObserver: a time in the past");
    m_observers.push_back({at.GetTimeStep(), std::move(observer)});
    m_observeAt = std::min(m_observeAt, m_observers.back().at);
}

void
MetaRoceArrivals::Observe(int64_t now)
{
    m_observeAt = INT64_MAX;
    for (Observer& o : m_observers)
    {
        if (o.at <= now)
        {
            o.at = o.call().GetTimeStep();
        }
        m_observeAt = std::min(m_observeAt, o.at);
    }
}

std::size_t
MetaRoceArrivals::GetNStaged() const
{
    return m_heap.size();
}

void
MetaRoceArrivals::DoDispose()
{
    m_heap.clear();
    m_observers.clear();
    Object::DoDispose();
}

} // namespace ns3
