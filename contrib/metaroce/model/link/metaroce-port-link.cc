#include "metaroce-port-link.h"

#include "ns3/channel.h"
#include "ns3/metaroce-now.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

void
MetaRocePortLink::Bind(Ptr<NetDevice> device)
{
    Clear();
    DataRateValue rate;
    TimeValue gap;
    TimeValue delay;
    Ptr<Channel> channel = device->GetChannel();
    if (channel == nullptr || !device->GetAttributeFailSafe("DataRate", rate) ||
        !channel->GetAttributeFailSafe("Delay", delay))
    {
        return;
    }
    m_known = true;
    m_rate = rate.Get();
    m_gap = device->GetAttributeFailSafe("InterframeGap", gap) ? gap.Get() : Time(0);
    m_delay = delay.Get();
    for (std::size_t i = 0; i < channel->GetNDevices(); ++i)
    {
        Ptr<NetDevice> end = channel->GetDevice(i);
        if (end != device && end->GetNode() != nullptr &&
            end->GetNode()->GetSystemId() == Simulator::GetSystemId())
        {
            m_peer = MetaRoceArrivals::Of(end->GetNode());
            m_peerIfIndex = end->GetIfIndex();
        }
    }
}

void
MetaRocePortLink::Clear()
{
    m_known = false;
    m_peer = nullptr;
}

Time
MetaRocePortLink::FrameStarts(uint32_t bytes) const
{
    const Time now = MetaRoceNow();
    if (!m_known)
    {
        return now;
    }
    const Time tx = m_rate.CalculateBytesTxTime(bytes);
    if (m_peer != nullptr)
    {
        m_peer->Expect(m_peerIfIndex, now + tx + m_delay);
    }
    return now + tx + m_gap;
}

} // namespace ns3
