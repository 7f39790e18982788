#include "metaroce-channel.h"

#include "ns3/abort.h"
#include "ns3/metaroce-now.h"
#include "ns3/node.h"

#include <algorithm>
#include <utility>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceChannel);

TypeId
MetaRoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay through the channel",
                                          TimeValue(Seconds(0)),
                                          MakeTimeAccessor(&MetaRoceChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

MetaRoceChannel::MetaRoceChannel() = default;
MetaRoceChannel::~MetaRoceChannel() = default;

void
MetaRoceChannel::Attach(Ptr<MetaRoceNetDevice> device)
{
    NS_ABORT_MSG_IF(device == nullptr, "MetaRoceChannel::Attach: null device");
    NS_ABORT_MSG_IF(m_nEnds == 2, "MetaRoceChannel::Attach: a point-to-point channel has two ends");
    NS_ABORT_MSG_IF(m_nEnds == 1 && m_ends[0] == device,
                    "MetaRoceChannel::Attach: the same device at both ends");
    m_ends[m_nEnds++] = device;
}

std::size_t
MetaRoceChannel::GetNDevices() const
{
    return m_nEnds;
}

Ptr<NetDevice>
MetaRoceChannel::GetDevice(std::size_t i) const
{
    return GetEnd(i);
}

Ptr<MetaRoceNetDevice>
MetaRoceChannel::GetEnd(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_nEnds, "MetaRoceChannel: no end " << i);
    return m_ends[i];
}

Time
MetaRoceChannel::GetDelay() const
{
    return m_delay;
}

bool
MetaRoceChannel::TransmitStart(Ptr<Packet> p, const Ptr<MetaRoceNetDevice>& src, Time txTime)
{
    const uint32_t wire = StartOnWire(p, src);
    const Ptr<MetaRoceNetDevice>& dst = Destination(wire);
    if (m_arrivals[wire] == nullptr)
    {
        m_arrivals[wire] = MetaRoceArrivals::Of(dst->GetNode());
        m_dstIfIndex[wire] = dst->GetIfIndex();
    }
    m_arrivals[wire]->Stage(ArrivalTime(txTime), dst, m_dstIfIndex[wire], std::move(p));
    return true;
}

uint32_t
MetaRoceChannel::StartOnWire(const Ptr<Packet>& p, const Ptr<MetaRoceNetDevice>& src)
{
    NS_ABORT_MSG_IF(m_nEnds != 2, "MetaRoceChannel: a transmission before both ends attached");
    const uint32_t wire = WireFrom(src);
    ++m_sent[wire].packets;
    m_sent[wire].bytes += p->GetSize() + MetaRoceNetDevice::kFrameHeaderBytes;
    return wire;
}

Time
MetaRoceChannel::ArrivalTime(Time txTime) const
{
    return MetaRoceNow() + std::max(txTime, TimeStep(1)) + m_delay;
}

void
MetaRoceChannel::DoDispose()
{
    m_ends = {};
    m_nEnds = 0;
    m_arrivals = {};
    Channel::DoDispose();
}

} // namespace ns3
