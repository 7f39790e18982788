#include "metaroce-arrivals.h"

#include "metaroce-net-device.h"

#include "ns3/abort.h"
#include "ns3/address.h"
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

void
MetaRoceArrivals::PrefetchDelivery(int ahead) const
{
    switch (ahead)
    {
    case 5:
        __builtin_prefetch(&m_wires);
        __builtin_prefetch(&m_delivering);
        return;
    case 4:
        __builtin_prefetch(m_due.data());
        return;
    default:
        break;
    }
    if (m_due.empty())
    {
        return;
    }
    const Wire& wire = m_wires[m_due.front().ifIndex];
    if (ahead == 3)
    {
        __builtin_prefetch(&wire);
        return;
    }
    if (wire.device != nullptr)
    {
        wire.device->PrefetchReceive(ahead == 1);
    }
    if (!wire.packets.empty())
    {
        const Staged& front = wire.packets.front();
        if (ahead == 2)
        {
            __builtin_prefetch(&front);
        }
        else
        {
            __builtin_prefetch(PeekPointer(front.packet));
        }
    }
}

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
    Enqueue(ifIndex, at.GetTimeStep(), std::move(packet));
    // One wake-up per time step: arrivals on several ports in one nanosecond share it.
    if (at.GetTimeStep() != m_wakeAt)
    {
        m_wakeAt = at.GetTimeStep();
        Simulator::ScheduleWithContext(m_nodeId,
                                       TimeStep(at.GetTimeStep() - now),
                                       &MetaRoceArrivals::Wake,
                                       this);
    }
}

void
MetaRoceArrivals::Enqueue(uint32_t ifIndex, int64_t at, Ptr<Packet> packet)
{
    Wire& wire = m_wires[ifIndex];
    ++m_nStaged;
    if (wire.packets.empty())
    {
        wire.packets.push_back({at, std::move(packet)});
        m_due.push_back({at, ifIndex});
        std::push_heap(m_due.begin(), m_due.end(), Later);
    }
    else if (at >= wire.packets.back().at)
    {
        wire.packets.push_back({at, std::move(packet)});
    }
    else
    {
        // Only when a link's delay was shortened mid-run: keep the wire in time order (after
        // packets due at the same time), and its place among the wires.
        const auto later =
            std::upper_bound(wire.packets.begin(),
                             wire.packets.end(),
                             at,
                             [](int64_t t, const Staged& staged) { return t < staged.at; });
        const auto offset = later - wire.packets.begin();
        wire.packets.insert(wire.packets.begin() + offset, {at, std::move(packet)});
        for (Due& due : m_due)
        {
            due.at = due.ifIndex == ifIndex ? wire.packets.front().at : due.at;
        }
        std::make_heap(m_due.begin(), m_due.end(), Later);
    }
}

void
MetaRoceArrivals::BindPort(Ptr<NetDevice> device, MetaRoceFrameSink* sink, uint32_t port)
{
    NS_ABORT_MSG_IF(device == nullptr || device->GetNode() == nullptr ||
                        device->GetNode()->GetId() != m_nodeId,
                    "MetaRoceArrivals::BindPort: a device of another node");
    if (Ptr<MetaRoceNetDevice> fast = DynamicCast<MetaRoceNetDevice>(device))
    {
        fast->SetFrameSink(sink, port);
        return;
    }
    const uint32_t ifIndex = device->GetIfIndex();
    if (ifIndex >= m_wires.size())
    {
        m_wires.resize(ifIndex + 1);
    }
    const bool hooked = m_wires[ifIndex].sink != nullptr;
    m_wires[ifIndex].sink = sink;
    m_wires[ifIndex].port = port;
    device->SetReceiveCallback(MakeCallback(&MetaRoceArrivals::ReceiveFromDevice, this));
    if (!hooked)
    {
        // A packet the device's error model loses has come all the same.
        device->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(&MetaRoceArrivals::LostOnDevice, this).Bind(ifIndex));
    }
}

void
MetaRoceArrivals::ReleasePort(Ptr<NetDevice> device, const MetaRoceFrameSink* sink)
{
    if (Ptr<MetaRoceNetDevice> fast = DynamicCast<MetaRoceNetDevice>(device))
    {
        fast->ReleaseFrameSink(sink);
        return;
    }
    const uint32_t ifIndex = device->GetIfIndex();
    if (ifIndex < m_wires.size() && m_wires[ifIndex].sink == sink)
    {
        m_wires[ifIndex].sink = nullptr;
        device->SetReceiveCallback(
            MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>());
    }
}

bool
MetaRoceArrivals::ReceiveFromDevice(Ptr<NetDevice> device,
                                    Ptr<const Packet> packet,
                                    uint16_t /* protocol */,
                                    const Address& /* from */)
{
    const uint32_t ifIndex = device->GetIfIndex();
    if (ifIndex >= m_wires.size() || m_wires[ifIndex].sink == nullptr)
    {
        return false; // released
    }
    // The device hands over its own copy of the frame (PointToPointChannel copies what it
    // carries); whoever changes a packet copies it first, as with the module's device.
    Enqueue(ifIndex, MetaRoceNow().GetTimeStep(), ConstCast<Packet>(packet));
    Arrived(ifIndex);
    return true;
}

void
MetaRoceArrivals::LostOnDevice(uint32_t ifIndex, Ptr<const Packet> /* packet */)
{
    if (ifIndex < m_wires.size() && m_wires[ifIndex].sink != nullptr)
    {
        Arrived(ifIndex);
    }
}

void
MetaRoceArrivals::Arrived(uint32_t ifIndex)
{
    const int64_t now = MetaRoceNow().GetTimeStep();
    m_arrivedStep = now;
    m_lastEvent = now;
    ForgetLate(now);
    auto& expected = m_wires[ifIndex].expected;
    if (!expected.empty() && expected.front() == now)
    {
        expected.pop_front();
        --m_nExpected;
    }
    // The instant's last announced packet has come: deliver them all, in order, before the
    // node's other events of this instant (those that ran already wait for this).
    if (!HasExpectedBy(now))
    {
        DeliverDue();
    }
}

void
MetaRoceArrivals::RunCall(std::function<void()> call)
{
    if (MustWait())
    {
        ++m_nWaiting;
        Simulator::ScheduleNow(&MetaRoceArrivals::RunCallAfterWait, this, std::move(call));
        return;
    }
    DeliverDue();
    call();
}

void
MetaRoceArrivals::RunCallAfterWait(std::function<void()> call)
{
    --m_nWaiting;
    ForgetLate(MetaRoceNow().GetTimeStep() + 1);
    DeliverDue();
    call();
}

void
MetaRoceArrivals::Expect(uint32_t ifIndex, Time at)
{
    if (ifIndex < m_wires.size() && m_wires[ifIndex].sink != nullptr)
    {
        m_wires[ifIndex].expected.push_back(at.GetTimeStep());
        ++m_nExpected;
    }
}

bool
MetaRoceArrivals::MustWaitSlow()
{
    const int64_t now = MetaRoceNow().GetTimeStep();
    ForgetLate(now);
    return m_nWaiting != 0 || HasExpectedBy(now);
}

void
MetaRoceArrivals::ForgetLate(int64_t step)
{
    for (std::size_t i = 0; m_nExpected != 0 && i < m_wires.size(); ++i)
    {
        auto& expected = m_wires[i].expected;
        while (!expected.empty() && expected.front() < step)
        {
            expected.pop_front();
            --m_nExpected;
        }
    }
}

bool
MetaRoceArrivals::HasExpectedBy(int64_t step) const
{
    for (std::size_t i = 0; m_nExpected != 0 && i < m_wires.size(); ++i)
    {
        if (!m_wires[i].expected.empty() && m_wires[i].expected.front() <= step)
        {
            return true;
        }
    }
    return false;
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
        // elsewhere but never here now. A BindPort() device has done all that already.
        if (wire.device != nullptr)
        {
            wire.device->Receive(std::move(packet));
        }
        else if (wire.sink != nullptr)
        {
            wire.sink->ReceiveFrame(wire.port, std::move(packet));
        }
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
    return m_nStaged + m_nExpected;
}

void
MetaRoceArrivals::DoDispose()
{
    m_wires.clear();
    m_due.clear();
    m_nStaged = 0;
    m_nExpected = 0;
    m_nWaiting = 0;
    m_observers.clear();
    Object::DoDispose();
}

} // namespace ns3
