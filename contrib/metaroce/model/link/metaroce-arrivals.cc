#include "metaroce-arrivals.h"

#include "metaroce-net-device.h"

#include "ns3/abort.h"
#include "ns3/node.h"

#include <algorithm>
#include <utility>

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

void
MetaRoceArrivals::Stage(Time at,
                        const Ptr<MetaRoceNetDevice>& device,
                        uint32_t ifIndex,
                        Ptr<Packet> packet)
{
    const int64_t now = MetaRoceNow().GetTimeStep();
    NS_ABORT_MSG_UNLESS(at.GetTimeStep() > now,
                        "MetaRoceArrivals: a packet for node " << m_nodeId << " staged at " << at
                                                               << ", not after now");
    if (ifIndex >= m_wires.size())
    {
        m_wires.resize(ifIndex + 1);
    }
    Wire& wire = m_wires[ifIndex];
    if (wire.device != device)
    {
        // Checked once per wire: the caller keeps the index so that staging does not read the
        // receiving device.
        NS_ABORT_MSG_IF(device->GetIfIndex() != ifIndex,
                        "MetaRoceArrivals: a packet staged for interface "
                            << ifIndex << " of node " << m_nodeId << " whose device is interface "
                            << device->GetIfIndex());
        wire.device = device;
    }
    ++m_nStaged;
    if (wire.packets.empty())
    {
        wire.packets.push_back({at.GetTimeStep(), std::move(packet)});
        m_due.push_back({at.GetTimeStep(), ifIndex});
        std::push_heap(m_due.begin(), m_due.end(), Later);
    }
    else if (at.GetTimeStep() >= wire.packets.back().at)
    {
        wire.packets.push_back({at.GetTimeStep(), std::move(packet)});
    }
    else
    {
        // Only when a link's delay was shortened mid-run: keep the wire in time order (after
        // packets due at the same time), and its place among the wires.
        const auto later =
            std::upper_bound(wire.packets.begin(),
                             wire.packets.end(),
                             at.GetTimeStep(),
                             [](int64_t t, const Staged& staged) { return t < staged.at; });
        const auto offset = later - wire.packets.begin();
        wire.packets.insert(wire.packets.begin() + offset, {at.GetTimeStep(), std::move(packet)});
        for (Due& due : m_due)
        {
            due.at = due.ifIndex == ifIndex ? wire.packets.front().at : due.at;
        }
        std::make_heap(m_due.begin(), m_due.end(), Later);
    }
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
MetaRoceArrivals::Deliver(int64_t now)
{
    m_delivering = true;
    while (!m_due.empty() && m_due.front().at <= now)
    {
        const uint32_t ifIndex = m_due.front().ifIndex;
        Wire& wire = m_wires[ifIndex];
        Ptr<Packet> packet = std::move(wire.packets.front().packet);
        wire.packets.pop_front();
        --m_nStaged;
        if (wire.packets.empty())
        {
            std::pop_heap(m_due.begin(), m_due.end(), Later);
            m_due.pop_back();
        }
        else
        {
            PostponeFront(wire.packets.front().at);
        }
        // Receive() applies the device's error model, fires its traces (pcap) and hands the
        // packet to its owner (frame sink or receive callback), which may stage more packets
        // elsewhere but never here now.
        wire.device->Receive(std::move(packet));
    }
    m_delivering = false;
}

void
MetaRoceArrivals::PostponeFront(int64_t at)
{
    // The wire's next packet takes its place: one sift down from the root, where a pop and a
    // push would sift twice. (Time, interface) orders the wires totally, so any heap gives
    // them in the same order.
    const Due moved{at, m_due.front().ifIndex};
    const std::size_t n = m_due.size();
    std::size_t i = 0;
    for (std::size_t child = 1; child < n; child = 2 * i + 1)
    {
        if (child + 1 < n && Later(m_due[child], m_due[child + 1]))
        {
            ++child;
        }
        if (!Later(moved, m_due[child]))
        {
            break;
        }
        m_due[i] = m_due[child];
        i = child;
    }
    m_due[i] = moved;
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
    return m_nStaged;
}

void
MetaRoceArrivals::DoDispose()
{
    m_wires.clear();
    m_due.clear();
    m_nStaged = 0;
    m_observers.clear();
    Object::DoDispose();
}

} // namespace ns3
