/*
 * MetaRoceHelper: puts MetaRoCE NICs on nodes, wires them and connects queue pairs.
 *
 *   MetaRoceHelper rdma;
 *   rdma.SetNicAttribute("Mtu", UintegerValue(4096));
 *   rdma.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
 *   Ptr<MetaRoceNic> a = rdma.Install(nodes.Get(0));
 *   Ptr<MetaRoceNic> b = rdma.Install(nodes.Get(1));
 *   rdma.ConnectBackToBack(a, b, 2);               // two planes, two links
 *   auto [qa, qb] = rdma.Connect(a, b, metaroce::Transport::MetaRoce);
 *   qa->PostWrite(0, 1 << 20);
 *
 * Fabrics with switches are built by the fabric helper; this helper also serves them with
 * AddPort() on a device that is already attached to a switch.
 */
#ifndef METAROCE_HELPER_H
#define METAROCE_HELPER_H

#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-socket-factory.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Installs MetaRoCE NICs and connects queue pairs.
 */
class MetaRoceHelper
{
  public:
    MetaRoceHelper();

    /// Sets an attribute of every NIC installed from now on.
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /// The device of the links made from now on: "ns3::MetaRoceNetDevice" (the default) or
    /// "ns3::PointToPointNetDevice" (MetaRoceLinkHelper::SetDeviceType).
    void SetDeviceType(const std::string& typeName);
    /// Sets an attribute of every device created from now on (e.g. DataRate).
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of every channel created from now on (e.g. Delay).
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);

    /// Creates a NIC and aggregates it to `node` (one NIC per node).
    Ptr<MetaRoceNic> Install(Ptr<Node> node) const;

    /**
     * Links NIC `a` to NIC `b` directly, one link per plane, and adds the ports: plane p uses
     * 10.(p+1).0.1 on `a` and 10.(p+1).0.2 on `b`. Returns the devices (a's, b's per plane).
     */
    NetDeviceContainer ConnectBackToBack(Ptr<MetaRoceNic> a, Ptr<MetaRoceNic> b, uint32_t planes);

    /// Connects a queue pair between two NICs (see MetaRoceNic::Connect).
    std::pair<Ptr<MetaRoceQueuePair>, Ptr<MetaRoceQueuePair>> Connect(Ptr<MetaRoceNic> a,
                                                                      Ptr<MetaRoceNic> b,
                                                                      metaroce::Transport transport,
                                                                      uint32_t plane = 0) const;

    /**
     * Aggregates a MetaRoceSocketFactory to `node` (which needs a NIC: Install first), so that
     * applications reach MetaRoCE through Socket::CreateSocket with the TypeId
     * "ns3::MetaRoceSocketFactory". Its sockets use `transport` (the factory's "Transport"
     * attribute). One factory per node.
     */
    Ptr<MetaRoceSocketFactory> InstallSocketFactory(
        Ptr<Node> node,
        metaroce::Transport transport = metaroce::Transport::MetaRoce) const;

  private:
    ObjectFactory m_nicFactory;
    MetaRoceLinkHelper m_p2p;
};

} // namespace ns3

#endif // METAROCE_HELPER_H
