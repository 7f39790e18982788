#include "metaroce-link-helper.h"

#include "ns3/mac48-address.h"
#include "ns3/metaroce-channel.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/queue.h"

#ifdef NS3_MPI
#    include "ns3/metaroce-remote-channel.h"
#    include "ns3/mpi-interface.h"
#endif

namespace ns3
{

MetaRoceLinkHelper::MetaRoceLinkHelper()
{
    m_deviceFactory.SetTypeId("ns3::MetaRoceNetDevice");
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
        Ptr<MetaRoceNetDevice> device = m_deviceFactory.Create<MetaRoceNetDevice>();
        device->SetAddress(Mac48Address::Allocate());
        node->AddDevice(device);
        device->SetQueue(m_queueFactory.Create<Queue<Packet>>());
        ends.Add(device);
    }
    DynamicCast<MetaRoceNetDevice>(ends.Get(0))->Attach(channel);
    DynamicCast<MetaRoceNetDevice>(ends.Get(1))->Attach(channel);
#ifdef NS3_MPI
    if (remote)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<MetaRoceNetDevice> end = DynamicCast<MetaRoceNetDevice>(ends.Get(i));
            if (end->GetNode()->GetSystemId() == MpiInterface::GetSystemId())
            {
                DynamicCast<MetaRoceRemoteChannel>(channel)->Listen(end);
            }
        }
    }
#endif
    return ends;
}

void
MetaRoceLinkHelper::EnablePcapInternal(std::string prefix,
                                       Ptr<NetDevice> nd,
                                       bool promiscuous,
                                       bool explicitFilename)
{
    Ptr<MetaRoceNetDevice> device = DynamicCast<MetaRoceNetDevice>(nd);
    if (device == nullptr)
    {
        return; // another kind of device: its own helper captures it
    }
    PcapHelper pcap;
    const std::string filename =
        explicitFilename ? prefix : pcap.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file = pcap.CreateFile(filename, std::ios::out, PcapHelper::DLT_PPP);
    pcap.HookDefaultSink<MetaRoceNetDevice>(device, "PromiscSniffer", file);
}

} // namespace ns3
