/*
 * MetaRoceFabricHelper: builds a multi-plane fabric of MetaRoCE hosts, a two-tier leaf-spine, a
 * three-tier fat-tree or a rail-optimized fabric per plane, selected with SetTopology() behind
 * one API.
 *
 * Every host has one NIC with one port per plane; planes are disjoint networks (design
 * "Fabric helper"), each with its own switches, so a host reaches every other host on every
 * plane and only the NIC chooses the plane. Switches spread traffic over their uplinks by ECMP
 * over the 5-tuple (the UDP source port is the entropy), each switch with its own ECMP seed.
 *
 * Shapes (metaroce-fabric-shape.h has the full wiring and numbering):
 *  - LEAF_SPINE (default): host h hangs off leaf h / HostsPerLeaf; every leaf links to every one
 *    of the plane's Spines. With a single leaf per plane no spine is needed (Spines = 0): a star.
 *  - FAT_TREE: leaves in pods of LeavesPerPod, Spines per pod (aggregation, linked to every leaf
 *    of the pod), Cores per plane in Spines groups; spine j of each pod links to core group j.
 *    SetFatTree(k) sets the classic k-ary shape.
 *  - RAIL: servers of RailGpus hosts (GPUs); host g of every server on rail g's leaf, rails
 *    joined by Spines; groups of HostsPerLeaf servers share a set of rail leaves. Each server
 *    has a server switch (its NVLink domain, tier SERVER): a GPU's port is its intra-server
 *    link (SetServerLink), and the server switch's uplink on rail g is GPU g's NIC wire (the
 *    host link settings, SetHostLink). Traffic between the GPUs of a server stays in it; traffic
 *    to GPU g of another server crosses the intra-server link and leaves on the NIC of rail g,
 *    as NCCL's PXN sends it, so it stays on rail g (spines only between groups). Server
 *    switches are lossless (PFC, as NVLink's credit flow control) and do not mark ECN; the
 *    queue of a rail uplink there is the NIC's own send queue. The transport sees the
 *    intra-server link as its port, so its line rate is the intra-server rate.
 *
 * Addresses (both): host h on plane p is 10.p.l.(i+1), l = h / HostsPerLeaf, i = h %
 * HostsPerLeaf. Forwarding tables: metaroce-fabric-builder.h.
 *
 * Per tier: link rate and delay (SetHostLink: host-leaf, SetFabricLink: leaf-spine,
 * SetCoreLink: spine-core, SetServerLink: intra-server) and switch attributes
 * (SetSwitchAttribute with a tier; without one it applies to the leaves, spines and cores, the
 * network's tiers, not to server switches; the last call for an attribute wins).
 * GetOversubscription() reports down/up bandwidth per tier.
 *
 * Failures (any link, any switch, a whole plane) are scheduled at a time and optionally
 * restored: a failed link drops everything in both directions (a blackhole receive error model on
 * both ends) and both ends are told their port went down, as a real link failure would be
 * detected. A failed switch fails all its links. Overlapping failures of the same link are not
 * counted: the first restore brings the link back.
 *
 *   MetaRoceFabricHelper fabric;
 *   fabric.SetTopology(MetaRoceTopology::FAT_TREE);
 *   fabric.SetHosts(16); fabric.SetPlanes(4); fabric.SetFatTree(4);
 *   fabric.Build();
 *   fabric.FailSwitch(0, MetaRoceFabricTier::CORE, 1, MicroSeconds(20));
 *   auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(0), fabric.GetNic(9),
 *                                        metaroce::Transport::MetaRoce);
 */
#ifndef METAROCE_FABRIC_HELPER_H
#define METAROCE_FABRIC_HELPER_H

#include "metaroce-fabric-builder.h"
#include "metaroce-fabric-shape.h"
#include "metaroce-link-helper.h"

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"

#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Builds multi-plane leaf-spine and fat-tree fabrics of MetaRoCE NICs and switches.
 */
class MetaRoceFabricHelper
{
  public:
    /// A link's two ends (lower tier first).
    using LinkEnds = std::pair<Ptr<NetDevice>, Ptr<NetDevice>>;

    MetaRoceFabricHelper();

    void SetTopology(MetaRoceTopology topology);
    void SetHosts(uint32_t hosts);
    void SetPlanes(uint32_t planes);
    void SetHostsPerLeaf(uint32_t hostsPerLeaf);
    /// Spines per plane (LEAF_SPINE; 0 only for a single leaf) or per pod (FAT_TREE).
    void SetSpines(uint32_t spines);
    /// FAT_TREE: leaves per pod.
    void SetLeavesPerPod(uint32_t leavesPerPod);
    /// FAT_TREE: core switches per plane, a multiple of the spines per pod.
    void SetCores(uint32_t cores);
    /// FAT_TREE: the k-ary shape (k even): k/2 hosts per leaf, k/2 leaves and spines per pod,
    /// (k/2)^2 cores; the number of hosts (and so of pods) is still SetHosts'.
    void SetFatTree(uint32_t k);
    /// RAIL: hosts (GPUs) per server, which is also the number of rails.
    void SetRailGpus(uint32_t gpus);
    /// Host-leaf links (in a RAIL fabric: each GPU's NIC wire, server switch to rail leaf).
    void SetHostLink(DataRate rate, Time delay);
    /// RAIL: the intra-server (NVLink-like) links, GPU to server switch; default 900 Gb/s and
    /// 100 ns.
    void SetServerLink(DataRate rate, Time delay);
    /// Leaf-spine links.
    void SetFabricLink(DataRate rate, Time delay);
    /// Spine-core links (FAT_TREE).
    void SetCoreLink(DataRate rate, Time delay);
    /// Base of the per-switch ECMP seeds (each switch gets a distinct one derived from it).
    void SetEcmpSeed(uint32_t seed);
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /// Sets a MetaRoceSwitch attribute on the leaves, spines and cores (not server switches).
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /// Sets a MetaRoceSwitch attribute on one tier's switches only.
    void SetSwitchAttribute(MetaRoceFabricTier tier,
                            const std::string& name,
                            const AttributeValue& value);

    /**
     * The device of every link, by TypeId name: "ns3::MetaRoceNetDevice" (the default, the
     * module's fast link) or "ns3::PointToPointNetDevice" (ns-3's own, built by
     * PointToPointHelper); see MetaRoceLinkHelper. Both give the same results. Any other name
     * is a fatal error.
     */
    void SetDeviceType(const std::string& typeName);
    const std::string& GetDeviceType() const;

    /**
     * The ranks (ns-3 system ids) of the nodes, for a distributed run (default: one rank). Links
     * between ranks need a positive delay: Build() throws std::invalid_argument otherwise, or if
     * the partition does not fit the shape.
     */
    void SetPartition(const MetaRoceFabricPartition& partition);
    const MetaRoceFabricPartition& GetPartition() const;

    /// Builds the fabric; aborts with a message naming the problem for impossible shapes.
    void Build();

    /// The smallest delay of a link between two ranks (the lookahead); Time::Max() if none.
    Time GetLookahead() const;

    /// The shape (counts, numbering, addresses); complete once the setters are done.
    const MetaRoceFabricShape& GetShape() const;
    uint32_t GetNHosts() const;
    uint32_t GetNPlanes() const;
    uint32_t GetNLeaves() const; ///< per plane
    uint32_t GetNSpines() const; ///< per plane (all pods)
    uint32_t GetNPods() const;
    uint32_t GetNCores() const;   ///< per plane
    uint32_t GetNServers() const; ///< RAIL: per plane (0 otherwise)

    Ptr<Node> GetHost(uint32_t host) const;
    Ptr<MetaRoceNic> GetNic(uint32_t host) const;
    /// Every host node / NIC, in host order.
    NodeContainer GetHosts() const;
    std::vector<Ptr<MetaRoceNic>> GetNics() const;
    Ptr<MetaRoceSwitch> GetSwitch(uint32_t plane, MetaRoceFabricTier tier, uint32_t index) const;
    Ptr<MetaRoceSwitch> GetLeaf(uint32_t plane, uint32_t leaf) const;
    Ptr<MetaRoceSwitch> GetSpine(uint32_t plane, uint32_t spine) const;
    Ptr<MetaRoceSwitch> GetCore(uint32_t plane, uint32_t core) const;
    /// RAIL: the server switch of server `server` (hosts server x RailGpus on).
    Ptr<MetaRoceSwitch> GetServer(uint32_t plane, uint32_t server) const;
    Ipv4Address GetHostAddress(uint32_t host, uint32_t plane) const;
    /// Every switch of the fabric (all planes; per plane leaves, spines, cores).
    std::vector<Ptr<MetaRoceSwitch>> GetSwitches() const;
    /// The switches of one plane and tier.
    std::vector<Ptr<MetaRoceSwitch>> GetSwitches(uint32_t plane, MetaRoceFabricTier tier) const;
    /// The switch nodes of one plane (all tiers).
    NodeContainer GetSwitchNodes(uint32_t plane) const;
    /// Every point-to-point device of the fabric (for pcap or error models).
    NetDeviceContainer GetDevices() const;
    /// Every device of one plane, both ends of each link in turn.
    NetDeviceContainer GetDevices(uint32_t plane) const;
    /// Every link of one plane: host links, then (RAIL) NIC wires, leaf-spine, spine-core links.
    std::vector<MetaRoceFabricLink> GetLinks(uint32_t plane) const;
    /// Host link's (host end, leaf end) devices on `plane`; in a RAIL fabric the intra-server
    /// link's (host end, server switch end).
    LinkEnds GetHostLink(uint32_t host, uint32_t plane) const;
    /// RAIL: the host's NIC wire, (server switch end, rail leaf end).
    LinkEnds GetRailLink(uint32_t host, uint32_t plane) const;
    /// Leaf-to-spine link's (leaf end, spine end); the spine must be in the leaf's pod.
    LinkEnds GetFabricLink(uint32_t plane, uint32_t leaf, uint32_t spine) const;
    /// Spine-to-core link's (spine end, core end); the core must be in the spine's group.
    LinkEnds GetCoreLink(uint32_t plane, uint32_t spine, uint32_t core) const;

    /**
     * Down/up bandwidth of a switch of `tier` (1 = non-blocking): LEAF hosts over spine
     * uplinks, SPINE leaves over core uplinks (1 without cores), CORE 1 (no uplinks).
     */
    double GetOversubscription(MetaRoceFabricTier tier) const;
    /// Oversubscription of the whole fabric: the product over the tiers.
    double GetOversubscription() const;

    /// Fails the host's link on `plane` at `at` (and restores it at `until`, if given).
    void FailHostLink(uint32_t host, uint32_t plane, Time at, Time until = Time::Max());
    /// Fails one leaf-spine link.
    void FailFabricLink(uint32_t plane,
                        uint32_t leaf,
                        uint32_t spine,
                        Time at,
                        Time until = Time::Max());
    /// Fails one spine-core link.
    void FailCoreLink(uint32_t plane,
                      uint32_t spine,
                      uint32_t core,
                      Time at,
                      Time until = Time::Max());
    /// Fails a switch of any tier: all its links (a leaf's host links included).
    void FailSwitch(uint32_t plane,
                    MetaRoceFabricTier tier,
                    uint32_t index,
                    Time at,
                    Time until = Time::Max());
    /// Fails a spine: FailSwitch(plane, SPINE, spine, ...).
    void FailSpine(uint32_t plane, uint32_t spine, Time at, Time until = Time::Max());
    /// Fails a whole plane: every link of it.
    void FailPlane(uint32_t plane, Time at, Time until = Time::Max());

    /// True when a failure or restore scheduled by the Fail* methods takes effect at time t.
    bool HasFailureEventAt(Time t) const;

    /// Assigns random streams to NICs and switches; returns the number used.
    int64_t AssignStreams(int64_t stream);

    /**
     * Captures fabric ports into one pcap file per device (metaroce-fabric-pcap.cc), as
     * PointToPointHelper::EnablePcap does for stock devices: link type DLT_PPP (a 2-byte PPP
     * protocol field, then IPv4 | UDP | MetaRoCE or RoCEv2 header | payload, so Wireshark decodes
     * UDP 4791 and 4792), every frame the device sends (when serialisation starts) or receives
     * intact (a frame the receive error model drops is in the sender's file only), from the
     * device's PromiscSniffer trace. Unlike that helper, timestamps are in nanoseconds: at 100 Gb/s
     * a 4 KiB packet takes 330 ns, so microseconds would merge consecutive packets.
     *
     * Files: every host's NIC port on every plane, `<prefix>-host<h>-plane<p>.pcap`; with
     * `switchPorts`, every switch port too, `<prefix>-<tier><i>-plane<p>-port<k>.pcap` (tier
     * leaf, spine or core; i the switch's index in its tier and plane, k its port). Call after
     * Build(). Nothing is hooked and nothing costs anything when this is not called. Aborts
     * when a file cannot be created.
     */
    void EnablePcap(const std::string& prefix, bool switchPorts = false) const;

  private:
    void CheckBuilt() const;
    void CheckPlane(uint32_t plane) const;
    const MetaRoceFabricLink& LeafLink(uint32_t plane, uint32_t leaf, uint32_t spine) const;
    const MetaRoceFabricLink& SpineLink(uint32_t plane, uint32_t spine, uint32_t core) const;
    /// Schedules the failure of `link` (MetaRoceFabricFailure::Schedule) and notes its instants.
    void ScheduleFailure(const MetaRoceFabricLink& link, Time at, Time until);

    MetaRoceFabricShape m_shape;
    std::array<MetaRoceFabricLinkSpec, kMetaRoceFabricTiers> m_links;
    uint32_t m_ecmpSeed{1};
    ObjectFactory m_nicFactory;
    std::array<ObjectFactory, kMetaRoceFabricTiers> m_switchFactories;
    bool m_built{false};
    MetaRoceFabricPartition m_partition;
    std::string m_deviceType{"ns3::MetaRoceNetDevice"};
    std::set<int64_t> m_failureSteps; ///< time steps at which a failure or restore happens

    NodeContainer m_hostNodes;
    std::vector<Ptr<MetaRoceNic>> m_nics;
    std::vector<MetaRoceFabricPlane> m_planes; ///< [plane]
};

} // namespace ns3

#endif // METAROCE_FABRIC_HELPER_H
