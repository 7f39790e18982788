#include "metaroce-link-helper.h"

#include "ns3/abort.h"
#include "ns3/mac48-address.h"
#include "ns3/metaroce-channel.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"

#ifdef NS3_MPI
#    include "ns3/metaroce-remote-channel.h"
#    include "ns3/mpi-interface.h"
#endif

namespace ns3
{

const std::vector<std::string>&
MetaRoceLinkHelper::GetDeviceTypes()
{
    static const std::vector<std::string> types{"ns3::MetaRoceNetDevice",
                                                "ns3::PointToPointNetDevice"};
    return types;
}

std::string
MetaRoceLinkHelper::GetDeviceTypeProblem(const std::string& typeName)
{
    for (const std::string& t : GetDeviceTypes())
    {
        if (t == typeName)
        {
            return "";
        }
    }
    return "device '" + typeName +
           "' is not one a link can be made of (ns3::MetaRoceNetDevice, "
           "ns3::PointToPointNetDevice)";
}

MetaRoceLinkHelper::MetaRoceLinkHelper()
    : m_deviceType(GetDeviceTypes().front())
{
}

void
MetaRoceLinkHelper::SetDeviceType(const std::string& typeName)
{
    const std::string problem = GetDeviceTypeProblem(typeName);
    NS_ABORT_MSG_IF(!problem.empty(), "MetaRoceLinkHelper: " << problem);
    m_deviceType = typeName;
}

const std::string&
MetaRoceLinkHelper::GetDeviceType() const
{
    return m_deviceType;
}

void
MetaRoceLinkHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceAttributes.emplace_back(name, value.Copy());
}

void
MetaRoceLinkHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelAttributes.emplace_back(name, value.Copy());
}

NetDeviceContainer
MetaRoceLinkHelper::Install(Ptr<Node> a, Ptr<Node> b) const
{
    return m_deviceType == "ns3::PointToPointNetDevice" ? InstallStock(a, b) : InstallFast(a, b);
}

NetDeviceContainer
MetaRoceLinkHelper::InstallStock(Ptr<Node> a, Ptr<Node> b) const
{
    // PointToPointHelper makes the devices, their MAC addresses and queues (replaced by the
    // NIC's or switch's MetaRocePortQueue when a device becomes a port), the channel, and a
    // PointToPointRemoteChannel between two ranks of a distributed run.
    PointToPointHelper p2p;
    for (const auto& [name, value] : m_deviceAttributes)
    {
        p2p.SetDeviceAttribute(name, *value);
    }
    for (const auto& [name, value] : m_channelAttributes)
    {
        p2p.SetChannelAttribute(name, *value);
    }
    return p2p.Install(a, b);
}

NetDeviceContainer
MetaRoceLinkHelper::InstallFast(Ptr<Node> a, Ptr<Node> b) const
{
    NetDeviceContainer ends;
#ifdef NS3_MPI
    // Ends on two ranks of a distributed run: the packets between them travel as MPI messages.
    const bool remote = MpiInterface::IsEnabled() && a->GetSystemId() != b->GetSystemId();
#else
    const bool remote = false;
#endif
    ObjectFactory deviceFactory("ns3::MetaRoceNetDevice");
    for (const auto& [name, value] : m_deviceAttributes)
    {
        deviceFactory.Set(name, *value);
    }
    ObjectFactory channelFactory(remote ? "ns3::MetaRoceRemoteChannel" : "ns3::MetaRoceChannel");
    for (const auto& [name, value] : m_channelAttributes)
    {
        channelFactory.Set(name, *value);
    }
    // Replaced by the NIC's or switch's MetaRocePortQueue when the device becomes a port; a
    // device left alone keeps the stock queue.
    const ObjectFactory queueFactory("ns3::DropTailQueue<Packet>");
    Ptr<MetaRoceChannel> channel = channelFactory.Create<MetaRoceChannel>();
    for (Ptr<Node> node : {a, b})
    {
        Ptr<MetaRoceNetDevice> device = deviceFactory.Create<MetaRoceNetDevice>();
        device->SetAddress(Mac48Address::Allocate());
        node->AddDevice(device);
        device->SetQueue(queueFactory.Create<Queue<Packet>>());
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
    PcapHelper pcap;
    const std::string filename = explicitFilename ? prefix : pcap.GetFilenameFromDevice(prefix, nd);
    if (Ptr<MetaRoceNetDevice> device = DynamicCast<MetaRoceNetDevice>(nd))
    {
        Ptr<PcapFileWrapper> file = pcap.CreateFile(filename, std::ios::out, PcapHelper::DLT_PPP);
        pcap.HookDefaultSink<MetaRoceNetDevice>(device, "PromiscSniffer", file);
    }
    else if (Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(nd))
    {
        Ptr<PcapFileWrapper> file = pcap.CreateFile(filename, std::ios::out, PcapHelper::DLT_PPP);
        pcap.HookDefaultSink<PointToPointNetDevice>(device, "PromiscSniffer", file);
    }
}

} // namespace ns3
