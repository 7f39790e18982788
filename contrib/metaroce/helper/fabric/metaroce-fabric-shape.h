/*
 * The shape of a MetaRoCE fabric: how many hosts, planes and switches of each tier, who links to
 * whom, and the addresses. Pure arithmetic, no ns-3 objects: MetaRoceFabricHelper validates a
 * shape and MetaRoceFabricBuilder wires one plane of it.
 *
 * Both topologies are built per plane (planes are disjoint copies) from the same three tiers:
 *
 *   LEAF_SPINE  hosts - leaves - spines. Host h hangs off leaf h / HostsPerLeaf; every leaf
 *               links to every spine of the plane. One leaf and no spine is a star.
 *   FAT_TREE    hosts - leaves - spines (aggregation) - cores. Leaves are grouped in pods of
 *               LeavesPerPod (leaf l is in pod l / LeavesPerPod); each pod has its own
 *               SpinesPerPod spines, every leaf of a pod links to every spine of its pod. Cores
 *               are split into SpinesPerPod groups of Cores / SpinesPerPod; spine j of every pod
 *               links to every core of group j (the striping of the classic k-ary fat-tree, where
 *               k-ary means k/2 hosts per leaf, k/2 leaves and k/2 spines per pod, k pods and
 *               (k/2)^2 cores). Every core therefore has exactly one link into every pod.
 *
 *   RAIL        hosts (GPUs) - server switches - rail leaves - spines: a rail-optimized fabric.
 *               Hosts form servers of RailGpus consecutive hosts (host h is GPU h % RailGpus of
 *               server h / RailGpus). Each server has a server switch standing for its NVLink
 *               domain (NVSwitch): every GPU's port goes to it over the intra-server link, and
 *               it has one uplink per rail, GPU g's NIC wire, to rail g's leaf. Servers form
 *               groups of HostsPerLeaf servers (a scalable unit): leaf u x RailGpus + g is rail
 *               g's leaf of group u, with one port per server of the group. Every leaf links to
 *               every spine (Spines per plane), so spines join the groups and the rails; with a
 *               single group no spine is needed (Spines = 0: a rail-only fabric). The leaf
 *               tier's HostsPerLeaf is hence servers per rail leaf.
 *
 * A leaf-spine is a fat-tree with a single pod and no cores, and that is how it is built; a rail
 * fabric is a leaf-spine (leaves and spines, one pod) with server switches below its leaves.
 * Indices: leaves 0..Leaves()-1 per plane; spines are numbered across pods, spine j of pod q is
 * q x SpinesPerPod + j; cores 0..Cores()-1. The last leaf and the last pod may be partial.
 *
 * Addresses: host h on plane p is 10.p.l.(i+1), with l = LeafOf(h) its leaf and i its port on
 * the leaf (h / HostsPerLeaf and h % HostsPerLeaf; in a RAIL fabric the leaf of its rail and its
 * server's index in the group); leaf l owns 10.p.l.0/24, plane p owns 10.p.0.0/16. Hence at
 * most 255 leaves per plane, 254 hosts (servers) per leaf and 64 planes.
 */
#ifndef METAROCE_FABRIC_SHAPE_H
#define METAROCE_FABRIC_SHAPE_H

#include "ns3/ipv4-address.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/// The fabric topologies MetaRoceFabricHelper builds (see metaroce-fabric-shape.h).
enum class MetaRoceTopology : uint8_t
{
    LEAF_SPINE, ///< two tiers: leaves and spines
    FAT_TREE,   ///< three tiers: leaves, per-pod spines (aggregation) and cores
    RAIL,       ///< rail-optimized: server switches (NVLink), rail leaves and spines
};

/// The switch tiers, bottom up. In a fat-tree SPINE is the per-pod aggregation tier.
enum class MetaRoceFabricTier : uint8_t
{
    LEAF = 0,
    SPINE = 1,
    CORE = 2,
    SERVER = 3, ///< RAIL: the switch inside a server (its NVLink domain), below the leaves
};

/// Number of tiers (the size of per-tier arrays).
constexpr uint32_t kMetaRoceFabricTiers = 4;

/// "leaf", "spine", "core" or "server".
const char* MetaRoceFabricTierName(MetaRoceFabricTier tier);

/**
 * \ingroup metaroce
 * \brief The numbers that define a fabric, and everything derived from them.
 */
struct MetaRoceFabricShape
{
    MetaRoceTopology topology{MetaRoceTopology::LEAF_SPINE};
    uint32_t hosts{16};
    uint32_t planes{1};
    uint32_t hostsPerLeaf{8};
    uint32_t spines{2};       ///< per plane (LEAF_SPINE) or per pod (FAT_TREE)
    uint32_t leavesPerPod{0}; ///< FAT_TREE only (0 = unset)
    uint32_t cores{0};        ///< FAT_TREE only, per plane
    uint32_t railGpus{0};     ///< RAIL only: GPUs (hosts) per server = rails (0 = unset)

    /**
     * Aborts with a message naming the parameter and the numbers when the shape cannot be
     * built or cannot connect every host to every other (e.g. several pods and no core).
     */
    void Validate() const;

    /**
     * What Validate() would abort with (without the "MetaRoceFabricHelper: " prefix), or an
     * empty string for a valid shape: lets a caller that must not abort (the experiment's
     * option check) refuse the shape with an exception instead.
     */
    std::string Problem() const;

    uint32_t Leaves() const; ///< per plane
    uint32_t Pods() const;   ///< 1 for a leaf-spine
    uint32_t LeavesPerPod() const;
    uint32_t SpinesPerPod() const;
    uint32_t Spines() const;        ///< per plane, all pods
    uint32_t CoresPerSpine() const; ///< a spine's core uplinks (0 without cores)
    uint32_t Switches() const;      ///< per plane, all tiers
    uint32_t Links() const;         ///< per plane: host, leaf-spine and spine-core links

    uint32_t LeafOf(uint32_t host) const;
    /// RAIL: servers (per plane, one server switch each); 0 for the other topologies.
    uint32_t Servers() const;
    /// RAIL: the server of host h (h / RailGpus).
    uint32_t ServerOf(uint32_t host) const;
    /// RAIL: the rail of host h (h % RailGpus), which is also its GPU index in the server.
    uint32_t RailOf(uint32_t host) const;
    /// The host's port on its leaf (its server's index in the group in a RAIL fabric).
    uint32_t LeafPortOf(uint32_t host) const;
    uint32_t PodOf(uint32_t leaf) const;
    /// Leaves in pod `pod` (the last one may be partial).
    uint32_t LeavesIn(uint32_t pod) const;
    /// The core group a spine belongs to (its index within its pod).
    uint32_t GroupOf(uint32_t spine) const;

    Ipv4Address HostAddress(uint32_t host, uint32_t plane) const;
    /// 10.p.l.0, the /24 of a leaf.
    static Ipv4Address LeafPrefix(uint32_t plane, uint32_t leaf);

  private:
    /// Problem() for the topology's own rules.
    void LeafSpineProblem(std::ostream& os) const;
    void FatTreeProblem(std::ostream& os) const;
    void RailProblem(std::ostream& os) const;
};

} // namespace ns3

#endif // METAROCE_FABRIC_SHAPE_H
