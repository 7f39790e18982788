#include "metaroce-helper.h"

#include "ns3/abort.h"
#include "ns3/ipv4-address.h"

#include <sstream>

namespace ns3
{

MetaRoceHelper::MetaRoceHelper()
{
    m_nicFactory.SetTypeId("ns3::MetaRoceNic");
}

void
MetaRoceHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
MetaRoceHelper::SetDeviceType(const std::string& typeName)
{
    m_p2p.SetDeviceType(typeName);
}

void
MetaRoceHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_p2p.SetDeviceAttribute(name, value);
}

void
MetaRoceHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_p2p.SetChannelAttribute(name, value);
}

Ptr<MetaRoceNic>
MetaRoceHelper::Install(Ptr<Node> node) const
{
    NS_ABORT_MSG_IF(node->GetObject<MetaRoceNic>() != nullptr,
                    "MetaRoceHelper::Install: node " << node->GetId() << " already has a NIC");
    Ptr<MetaRoceNic> nic = m_nicFactory.Create<MetaRoceNic>();
    node->AggregateObject(nic);
    return nic;
}

NetDeviceContainer
MetaRoceHelper::ConnectBackToBack(Ptr<MetaRoceNic> a, Ptr<MetaRoceNic> b, uint32_t planes)
{
    NS_ABORT_MSG_IF(planes == 0 || planes > 254, "ConnectBackToBack: planes must be in [1, 254]");
    Ptr<Node> na = a->GetObject<Node>();
    Ptr<Node> nb = b->GetObject<Node>();
    NS_ABORT_MSG_IF(na == nullptr || nb == nullptr,
                    "ConnectBackToBack: install the NICs on nodes first");
    NetDeviceContainer all;
    for (uint32_t p = 0; p < planes; ++p)
    {
        NetDeviceContainer link = m_p2p.Install(na, nb);
        std::ostringstream base;
        base << "10." << p + 1 << ".0.";
        a->AddPort(link.Get(0), Ipv4Address((base.str() + "1").c_str()));
        b->AddPort(link.Get(1), Ipv4Address((base.str() + "2").c_str()));
        all.Add(link);
    }
    return all;
}

std::pair<Ptr<MetaRoceQueuePair>, Ptr<MetaRoceQueuePair>>
MetaRoceHelper::Connect(Ptr<MetaRoceNic> a,
                        Ptr<MetaRoceNic> b,
                        metaroce::Transport transport,
                        uint32_t plane) const
{
    return MetaRoceNic::Connect(a, b, transport, plane);
}

Ptr<MetaRoceSocketFactory>
MetaRoceHelper::InstallSocketFactory(Ptr<Node> node, metaroce::Transport transport) const
{
    NS_ABORT_MSG_IF(node->GetObject<MetaRoceNic>() == nullptr,
                    "MetaRoceHelper::InstallSocketFactory: node " << node->GetId()
                                                                  << " has no NIC (Install first)");
    NS_ABORT_MSG_IF(node->GetObject<MetaRoceSocketFactory>() != nullptr,
                    "MetaRoceHelper::InstallSocketFactory: node " << node->GetId()
                                                                  << " already has one");
    Ptr<MetaRoceSocketFactory> factory = CreateObject<MetaRoceSocketFactory>();
    factory->SetTransport(transport);
    node->AggregateObject(factory);
    return factory;
}

} // namespace ns3
