#include "metaroce-link-helper.h"

#include "ns3/mac48-address.h"
#include "ns3/metaroce-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"

#ifdef NS3_MPI
#    include "ns3/metaroce-remote-channel.h"
#    include "ns3/mpi-interface.h"
#endif

namespace ns3
{

MetaRoceLinkHelper::MetaRoceLinkHelper()
{
    m_deviceFactory.SetTypeId("ns3::PointToPointNetDevice");
    // Replaced by the NIC's or switch's MetaRocePortQueue when the device becomes a port; a
    // device left alone keeps the stock queue.
    m_queueFactory.SetTypeId("ns3::DropTailQueue<Packet>");
    m_channelFactory.SetTypeId("ns3::MetaRoceChannel");
}

void
MetaRoceLinkHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
MetaRoceLinkHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

NetDeviceContainer
MetaRoceLinkHelper::Install(Ptr<Node> a, Ptr<Node> b) const
{
    NetDeviceContainer ends;
#ifdef NS3_MPI
    // Ends on two ranks of a distributed run: the packets between them travel as MPI messages.
    const bool remote = MpiInterface::IsEnabled() && a->GetSystemId() != b->GetSystemId();
#else
    const bool remote = false;
#endif
    ObjectFactory channelFactory = m_channelFactory;
    if (remote)
    {
        channelFactory.SetTypeId("ns3::MetaRoceRemoteChannel");
    }
    Ptr<MetaRoceChannel> channel = channelFactory.Create<MetaRoceChannel>();
    for (Ptr<Node> node : {a, b})
    {
        Ptr<PointToPointNetDevice> device = m_deviceFactory.Create<PointToPointNetDevice>();
        device->SetAddress(Mac48Address::Allocate());
        node->AddDevice(device);
        device->SetQueue(m_queueFactory.Create<Queue<Packet>>());
        ends.Add(device);
    }
    DynamicCast<PointToPointNetDevice>(ends.Get(0))->Attach(channel);
    DynamicCast<PointToPointNetDevice>(ends.Get(1))->Attach(channel);
#ifdef NS3_MPI
    if (remote)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<PointToPointNetDevice> end = DynamicCast<PointToPointNetDevice>(ends.Get(i));
            if (end->GetNode()->GetSystemId() == MpiInterface::GetSystemId())
            {
                DynamicCast<MetaRoceRemoteChannel>(channel)->Listen(end);
            }
        }
    }
#endif
    return ends;
}

} // namespace ns3
