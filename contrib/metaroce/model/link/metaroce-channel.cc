#include "metaroce-channel.h"

#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceChannel);

TypeId
MetaRoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceChannel")
                            .SetParent<PointToPointChannel>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceChannel>();
    return tid;
}

MetaRoceChannel::MetaRoceChannel() = default;
MetaRoceChannel::~MetaRoceChannel() = default;

bool
MetaRoceChannel::TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime)
{
    const uint32_t wire = WireFrom(src);
    CountSent(wire, p->GetSize());
    Ptr<PointToPointNetDevice> dst = GetDestination(wire);
    if (m_arrivals[wire] == nullptr)
    {
        m_arrivals[wire] = MetaRoceArrivals::Of(dst->GetNode());
    }
    // A copy, as the stock channel makes: the sender keeps its packet until its transmission
    // completes (PhyTxEnd), the receiver strips headers from its own.
    m_arrivals[wire]->Stage(ArrivalTime(txTime), dst, p->Copy());
    return true;
}

Time
MetaRoceChannel::ArrivalTime(Time txTime) const
{
    return Simulator::Now() + std::max(txTime, TimeStep(1)) + GetDelay();
}

void
MetaRoceChannel::DoDispose()
{
    m_arrivals = {};
    PointToPointChannel::DoDispose();
}

} // namespace ns3
