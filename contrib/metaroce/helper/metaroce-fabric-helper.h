/*
 * MetaRoceFabricHelper: builds a multi-plane, two-tier leaf-spine fabric of MetaRoCE hosts.
 *
 * Every host has one NIC with one port per plane; planes are disjoint networks (design
 * "Fabric helper"), each with its own leaves and spines, so a host reaches every other host on
 * every plane and only the NIC chooses the plane. Within a plane, host h hangs off leaf
 * h / HostsPerLeaf; every leaf links to every spine; leaves spread traffic to the spines by ECMP
 * over the 5-tuple (the UDP source port is the entropy), each switch with its own ECMP seed.
 * With a single leaf per plane no spine is needed (SpinesPerPlane = 0): a star per plane.
 *
 * Addresses: host h on plane p is 10.p.l.(i+1), l = h / HostsPerLeaf, i = h % HostsPerLeaf.
 * Leaves route each of their hosts by /32 and everything else of the plane (10.p/16) over their
 * uplinks; spines route 10.p.l/24 to leaf l.
 *
 * Failures (link, switch, whole plane) are scheduled at a time: a failed link drops everything
 * in both directions (a blackhole receive error model on both ends) and both ends are told
 * their port went down, as a real link failure would be detected.
 *
 *   MetaRoceFabricHelper fabric;
 *   fabric.SetHosts(16); fabric.SetPlanes(4); fabric.SetHostsPerLeaf(8); fabric.SetSpines(4);
 *   fabric.Build();
 *   auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(0), fabric.GetNic(9),
 *                                        metaroce::Transport::MetaRoce);
 */
#ifndef METAROCE_FABRIC_HELPER_H
#define METAROCE_FABRIC_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-switch.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Builds multi-plane leaf-spine fabrics of MetaRoCE NICs and switches.
 */
class MetaRoceFabricHelper
{
  public:
    MetaRoceFabricHelper();

    void SetHosts(uint32_t hosts);
    void SetPlanes(uint32_t planes);
    void SetHostsPerLeaf(uint32_t hostsPerLeaf);
    /// Spines per plane; 0 is allowed only when every host fits under one leaf.
    void SetSpines(uint32_t spinesPerPlane);
    void SetHostLink(DataRate rate, Time delay);
    void SetFabricLink(DataRate rate, Time delay);
    /// Base of the per-switch ECMP seeds (each switch gets a distinct one derived from it).
    void SetEcmpSeed(uint32_t seed);
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /// Builds the fabric; aborts with a message naming the problem for impossible shapes.
    void Build();

    uint32_t GetNHosts() const;
    uint32_t GetNPlanes() const;
    uint32_t GetNLeaves() const;
    uint32_t GetNSpines() const;
    Ptr<Node> GetHost(uint32_t host) const;
    Ptr<MetaRoceNic> GetNic(uint32_t host) const;
    Ptr<MetaRoceSwitch> GetLeaf(uint32_t plane, uint32_t leaf) const;
    Ptr<MetaRoceSwitch> GetSpine(uint32_t plane, uint32_t spine) const;
    Ipv4Address GetHostAddress(uint32_t host, uint32_t plane) const;
    /// Every switch of the fabric (all planes).
    std::vector<Ptr<MetaRoceSwitch>> GetSwitches() const;
    /// Every point-to-point device of the fabric (for pcap or error models).
    NetDeviceContainer GetDevices() const;
    /// Host links' (host end, leaf end) devices on `plane`.
    std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>> GetHostLink(
        uint32_t host,
        uint32_t plane) const;
    /// Leaf-to-spine link's (leaf end, spine end) devices.
    std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>> GetFabricLink(
        uint32_t plane,
        uint32_t leaf,
        uint32_t spine) const;
    /// Uplink bandwidth of a leaf over its host-facing bandwidth (1 = non-blocking).
    double GetOversubscription() const;

    /// Fails the host's link on `plane` at `at` (and restores it at `until`, if given).
    void FailHostLink(uint32_t host, uint32_t plane, Time at, Time until = Time::Max());
    /// Fails one leaf-spine link.
    void FailFabricLink(uint32_t plane,
                        uint32_t leaf,
                        uint32_t spine,
                        Time at,
                        Time until = Time::Max());
    /// Fails a spine: all its links.
    void FailSpine(uint32_t plane, uint32_t spine, Time at, Time until = Time::Max());
    /// Fails a whole plane: every link of it.
    void FailPlane(uint32_t plane, Time at, Time until = Time::Max());

    /// Assigns random streams to NICs and switches; returns the number used.
    int64_t AssignStreams(int64_t stream);

  private:
    /// One link and what sits at its ends.
    struct Link
    {
        Ptr<PointToPointNetDevice> a;
        Ptr<PointToPointNetDevice> b;
        Ptr<MetaRoceNic> nic;    ///< a's NIC, for host links
        Ptr<MetaRoceSwitch> swA; ///< a's switch, for fabric links
        uint32_t portA{0};
        Ptr<MetaRoceSwitch> swB;
        uint32_t portB{0};
    };

    void CheckBuilt() const;
    void ScheduleFailure(const Link& link, Time at, Time until);
    static void SetLinkState(Link link, bool up);

    uint32_t m_hosts{16};
    uint32_t m_planes{1};
    uint32_t m_hostsPerLeaf{8};
    uint32_t m_spines{2};
    DataRate m_hostRate{"100Gbps"};
    Time m_hostDelay{MicroSeconds(1)};
    DataRate m_fabricRate{"100Gbps"};
    Time m_fabricDelay{MicroSeconds(1)};
    uint32_t m_ecmpSeed{1};
    ObjectFactory m_nicFactory;
    ObjectFactory m_switchFactory;
    bool m_built{false};

    NodeContainer m_hostNodes;
    std::vector<Ptr<MetaRoceNic>> m_nics;
    std::vector<std::vector<Ptr<MetaRoceSwitch>>> m_leaves;  ///< [plane][leaf]
    std::vector<std::vector<Ptr<MetaRoceSwitch>>> m_spineSw; ///< [plane][spine]
    std::vector<std::vector<Link>> m_hostLinks;              ///< [plane][host]
    std::vector<std::vector<Link>> m_fabricLinks;            ///< [plane][leaf * spines + s]
};

} // namespace ns3

#endif // METAROCE_FABRIC_HELPER_H
