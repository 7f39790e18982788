/*
 * MetaRoceFabricBuilder wires one plane of a fabric shape (metaroce-fabric-shape.h): it creates
 * the plane's switches tier by tier, the point-to-point links between hosts and leaves, leaves
 * and spines, spines and cores, and fills every forwarding table. MetaRoceFabricHelper calls it
 * once per plane and keeps the result; the helper's failure and lookup code works on the
 * MetaRoceFabricPlane it returns, whatever the topology.
 *
 * Forwarding tables of plane p (hash-based ECMP wherever a group has several ports):
 *   leaf l       10.p.l.(i+1)/32 -> its host i;
 *                10.p.m/24 -> every spine of its pod, for every other leaf m
 *   spine of q   10.p.l/24 -> leaf l, for each leaf l of pod q;
 *                10.p.m/24 -> every core of its group, for every leaf m of another pod
 *   core         10.p.l/24 -> the one spine of pod(l) in the core's group, for every leaf l
 * and in a RAIL fabric (leaves are rail leaves, hosts hang off server switches):
 *   server s     its own GPUs' /32 -> their intra-server links;
 *                every other host (s', g) of its group: /32 -> its rail-g uplink;
 *                10.p.m/24 of every leaf m of another group -> its uplink on m's rail
 *   rail leaf    10.p.l.(i+1)/32 -> server i of its group (the host of its rail there);
 *                10.p.m/24 -> every spine, for every other leaf m
 *   spine        10.p.l/24 -> leaf l
 * so a packet to GPU g of another server first crosses the intra-server link to the server
 * switch, which hands it to the NIC wire of rail g (PXN-like forwarding: NCCL's PXN moves data
 * over NVLink to the GPU on the destination's rail and sends it from that GPU's NIC), and
 * travels on rail g only: rail leaf, spines only between groups, rail leaf, server switch.
 * Traffic between GPUs of one server never leaves the server switch.
 * No prefix covers another one, on purpose: routes go up only for destinations that are not
 * below, and down only towards the destination, so they are loop-free, and a withdrawn route
 * never falls back to a shorter one (a /16 "up" route would bounce a packet for a host whose
 * link failed between its leaf and a spine forever, as the switch keeps the TTL). There is no
 * routing protocol: when a link fails, only the switches at its two ends withdraw the port
 * (metaroce-switch-fib.h) and drop what they can no longer forward, so traffic that a remote
 * switch still sends towards the failure is lost there - exactly the partial failure
 * MetaRoCE's path management must survive. A failed switch fails all its links, so its
 * neighbours all stop using it.
 *
 * Build order (and so node ids, port numbers and ECMP seeds) is fixed: per plane, leaves, then
 * spines, then cores, then server switches; then host links in host order, leaf-spine links by leaf
 * then spine, spine-core links by spine then core. Switch ports: hosts (leaves) or leaves (spines)
 * first, then uplinks. The switch created n-th gets EcmpSeed (base + n) x 2654435761 (mod 2^32), so
 * no two switches hash alike (no polarisation between tiers).
 */
#ifndef METAROCE_FABRIC_BUILDER_H
#define METAROCE_FABRIC_BUILDER_H

#include "metaroce-fabric-partition.h"
#include "metaroce-fabric-shape.h"

#include "ns3/data-rate.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-switch.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <array>
#include <string>
#include <vector>

namespace ns3
{

/// One link of a fabric and what sits at its ends; `a` is the lower-tier end.
struct MetaRoceFabricLink
{
    Ptr<NetDevice> a;        ///< host NIC port (host links) or the lower switch's port
    Ptr<NetDevice> b;        ///< the upper switch's port
    Ptr<MetaRoceNic> nic;    ///< a's NIC, for host links
    uint32_t nicPort{0};     ///< a's NIC port (= the plane), for host links
    Ptr<MetaRoceSwitch> swA; ///< a's switch, for switch-to-switch links
    uint32_t portA{0};
    Ptr<MetaRoceSwitch> swB; ///< b's switch
    uint32_t portB{0};
};

/// The switches and links of one plane.
struct MetaRoceFabricPlane
{
    /// Switches by tier (index MetaRoceFabricTier), each numbered as in the shape.
    std::array<std::vector<Ptr<MetaRoceSwitch>>, kMetaRoceFabricTiers> switches;
    std::vector<MetaRoceFabricLink> hostLinks;  ///< [host]
    std::vector<MetaRoceFabricLink> leafLinks;  ///< [leaf x SpinesPerPod + spine's index in pod]
    std::vector<MetaRoceFabricLink> spineLinks; ///< [spine x CoresPerSpine + core's index in group]
    /// RAIL: the NIC wire of each host, from its server switch to its rail leaf ([host]); the
    /// host links are then the intra-server links, host to server switch.
    std::vector<MetaRoceFabricLink> railLinks;
};

/// Rate and propagation delay of the links of one tier.
struct MetaRoceFabricLinkSpec
{
    DataRate rate;
    Time delay;
};

/**
 * \ingroup metaroce
 * \brief Builds the planes of a fabric shape (see the file comment).
 */
class MetaRoceFabricBuilder
{
  public:
    /**
     * \param shape a validated shape
     * \param links link settings by tier of the link's upper end: LEAF = host links (in a
     *        RAIL fabric the NIC wires, server switch to rail leaf), SPINE = leaf-spine links,
     *        CORE = spine-core links, SERVER = the intra-server links (RAIL)
     * \param switches switch factories by tier (EcmpSeed is set per switch)
     * \param partition the rank (system id) of every switch node
     * \param deviceType the links' device (MetaRoceLinkHelper::GetDeviceTypes())
     */
    MetaRoceFabricBuilder(const MetaRoceFabricShape& shape,
                          const std::array<MetaRoceFabricLinkSpec, kMetaRoceFabricTiers>& links,
                          const std::array<ObjectFactory, kMetaRoceFabricTiers>& switches,
                          const MetaRoceFabricPartition& partition,
                          const std::string& deviceType);

    /**
     * Builds plane `plane` onto the hosts' NICs (each gets its next port, so build planes in
     * order). `seed` is the ECMP seed counter, advanced once per switch created.
     */
    MetaRoceFabricPlane Build(uint32_t plane,
                              const std::vector<Ptr<MetaRoceNic>>& nics,
                              uint32_t& seed) const;

  private:
    Ptr<MetaRoceSwitch> MakeSwitch(MetaRoceFabricTier tier, uint32_t index, uint32_t& seed) const;
    /// The plane's leaves, spines and cores, in that order (ECMP seeds in build order).
    void MakeSwitches(MetaRoceFabricPlane& plane, uint32_t& seed) const;
    /// Host-leaf links of plane `p`: each NIC's next port, and the leaves' host routes.
    void ConnectHosts(MetaRoceFabricPlane& plane,
                      uint32_t p,
                      const std::vector<Ptr<MetaRoceNic>>& nics) const;
    /// RAIL: intra-server links, NIC wires and the server switches' and rail leaves' routes
    /// (metaroce-fabric-rail.cc).
    void ConnectServers(MetaRoceFabricPlane& plane,
                        uint32_t p,
                        const std::vector<Ptr<MetaRoceNic>>& nics) const;
    /// Leaf-spine links within each pod, with the routes up and down.
    void ConnectLeaves(MetaRoceFabricPlane& plane, uint32_t p) const;
    /// Spine-core links (fat-tree), with the routes up and down.
    void ConnectSpines(MetaRoceFabricPlane& plane, uint32_t p) const;
    /// Links two nodes with the settings of `tier`; returns (lower end, upper end).
    std::pair<Ptr<NetDevice>, Ptr<NetDevice>> Connect(MetaRoceFabricTier tier,
                                                      Ptr<Node> lower,
                                                      Ptr<Node> upper) const;
    static MetaRoceFabricLink SwitchLink(std::pair<Ptr<NetDevice>, Ptr<NetDevice>> ends,
                                         Ptr<MetaRoceSwitch> lower,
                                         Ptr<MetaRoceSwitch> upper);

    MetaRoceFabricShape m_shape;
    std::array<MetaRoceFabricLinkSpec, kMetaRoceFabricTiers> m_links;
    std::array<ObjectFactory, kMetaRoceFabricTiers> m_switches;
    MetaRoceFabricPartition m_partition;
    std::string m_deviceType;
};

} // namespace ns3

#endif // METAROCE_FABRIC_BUILDER_H
