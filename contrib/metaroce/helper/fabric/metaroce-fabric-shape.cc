#include "metaroce-fabric-shape.h"

#include "ns3/abort.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

const char*
MetaRoceFabricTierName(MetaRoceFabricTier tier)
{
    switch (tier)
    {
    case MetaRoceFabricTier::LEAF:
        return "leaf";
    case MetaRoceFabricTier::SPINE:
        return "spine";
    case MetaRoceFabricTier::CORE:
        return "core";
    case MetaRoceFabricTier::SERVER:
        return "server";
    }
    return "unknown";
}

void
MetaRoceFabricShape::Validate() const
{
    const std::string problem = Problem();
    NS_ABORT_MSG_IF(!problem.empty(), "MetaRoceFabricHelper: " << problem);
}

std::string
MetaRoceFabricShape::Problem() const
{
    std::ostringstream os;
    if (hosts < 2)
    {
        os << "need at least 2 hosts, got " << hosts;
    }
    else if (planes < 1 || planes > 64)
    {
        os << "planes must be in [1, 64], got " << planes;
    }
    else if (hostsPerLeaf < 1 || hostsPerLeaf > 254)
    {
        os << "HostsPerLeaf must be in [1, 254], got " << hostsPerLeaf;
    }
    else if (topology != MetaRoceTopology::RAIL && railGpus != 0)
    {
        os << "RailGpus (" << railGpus << ") needs the RAIL topology";
    }
    else if (topology == MetaRoceTopology::RAIL && (railGpus < 1 || hosts % railGpus != 0))
    {
        os << "a RAIL fabric needs RailGpus >= 1 dividing the hosts, got " << railGpus << " for "
           << hosts << " hosts";
    }
    else if (Leaves() > 255)
    {
        os << hosts << " hosts at " << hostsPerLeaf << " per leaf need " << Leaves()
           << " leaves per plane; at most 255 (the third address octet)";
    }
    else if (topology == MetaRoceTopology::RAIL)
    {
        RailProblem(os);
    }
    else if (topology == MetaRoceTopology::LEAF_SPINE)
    {
        LeafSpineProblem(os);
    }
    else
    {
        FatTreeProblem(os);
    }
    return os.str();
}

void
MetaRoceFabricShape::LeafSpineProblem(std::ostream& os) const
{
    if (leavesPerPod != 0)
    {
        os << "LeavesPerPod (" << leavesPerPod << ") needs the FAT_TREE topology";
    }
    else if (cores != 0)
    {
        os << "Cores (" << cores << ") needs the FAT_TREE topology";
    }
    else if (Leaves() > 1 && spines == 0)
    {
        os << Leaves() << " leaves per plane cannot reach each other without spines "
           << "(SetSpines >= 1)";
    }
    else if (spines > 255)
    {
        os << "at most 255 spines per plane, got " << spines;
    }
}

void
MetaRoceFabricShape::FatTreeProblem(std::ostream& os) const
{
    if (leavesPerPod == 0)
    {
        os << "a FAT_TREE needs LeavesPerPod >= 1 (SetLeavesPerPod)";
    }
    else if (spines == 0)
    {
        os << "a FAT_TREE needs at least one spine per pod (SetSpines >= 1), got 0";
    }
    else if (spines > 255)
    {
        os << "at most 255 spines per pod, got " << spines;
    }
    else if (Pods() > 1 && cores == 0)
    {
        os << Pods() << " pods (" << Leaves() << " leaves, " << leavesPerPod
           << " per pod) cannot reach each other without cores (SetCores >= SetSpines = " << spines
           << ")";
    }
    else if (cores % spines != 0)
    {
        os << "Cores (" << cores << ") must be a multiple of spines per pod (" << spines
           << "): spine j of each pod links to core group j of Cores / spines cores";
    }
}

void
MetaRoceFabricShape::RailProblem(std::ostream& os) const
{
    const uint32_t groups = Leaves() / railGpus;
    if (leavesPerPod != 0 || cores != 0)
    {
        os << "LeavesPerPod and Cores need the FAT_TREE topology, not RAIL";
    }
    else if (groups > 1 && spines == 0)
    {
        os << groups << " groups of " << hostsPerLeaf << " servers (" << Leaves()
           << " rail leaves) cannot reach each other without spines (SetSpines >= 1)";
    }
    else if (spines > 255)
    {
        os << "at most 255 spines per plane, got " << spines;
    }
}

uint32_t
MetaRoceFabricShape::Leaves() const
{
    const uint32_t perLeaf = std::max(hostsPerLeaf, 1u);
    if (topology == MetaRoceTopology::RAIL)
    {
        return railGpus == 0 ? 0 : railGpus * ((Servers() + perLeaf - 1) / perLeaf);
    }
    return (hosts + perLeaf - 1) / perLeaf;
}

uint32_t
MetaRoceFabricShape::Servers() const
{
    return topology == MetaRoceTopology::RAIL && railGpus > 0 ? hosts / railGpus : 0;
}

uint32_t
MetaRoceFabricShape::ServerOf(uint32_t host) const
{
    return host / std::max(railGpus, 1u);
}

uint32_t
MetaRoceFabricShape::RailOf(uint32_t host) const
{
    return host % std::max(railGpus, 1u);
}

uint32_t
MetaRoceFabricShape::LeafPortOf(uint32_t host) const
{
    return topology == MetaRoceTopology::RAIL ? ServerOf(host) % hostsPerLeaf : host % hostsPerLeaf;
}

uint32_t
MetaRoceFabricShape::LeavesPerPod() const
{
    return topology == MetaRoceTopology::FAT_TREE ? std::max(leavesPerPod, 1u) : Leaves();
}

uint32_t
MetaRoceFabricShape::Pods() const
{
    return (Leaves() + LeavesPerPod() - 1) / LeavesPerPod();
}

uint32_t
MetaRoceFabricShape::SpinesPerPod() const
{
    return spines;
}

uint32_t
MetaRoceFabricShape::Spines() const
{
    return Pods() * spines;
}

uint32_t
MetaRoceFabricShape::CoresPerSpine() const
{
    return topology == MetaRoceTopology::FAT_TREE && spines > 0 ? cores / spines : 0;
}

uint32_t
MetaRoceFabricShape::Switches() const
{
    return Leaves() + Spines() + (topology == MetaRoceTopology::FAT_TREE ? cores : 0) + Servers();
}

uint32_t
MetaRoceFabricShape::Links() const
{
    uint32_t leafSpine = 0;
    for (uint32_t pod = 0; pod < Pods(); ++pod)
    {
        leafSpine += LeavesIn(pod) * spines;
    }
    // A rail fabric has two links per host: the intra-server link and its NIC's rail wire.
    const uint32_t railWires = topology == MetaRoceTopology::RAIL ? hosts : 0;
    return hosts + railWires + leafSpine + Spines() * CoresPerSpine();
}

uint32_t
MetaRoceFabricShape::LeafOf(uint32_t host) const
{
    if (topology == MetaRoceTopology::RAIL)
    {
        return (ServerOf(host) / hostsPerLeaf) * railGpus + RailOf(host);
    }
    return host / hostsPerLeaf;
}

uint32_t
MetaRoceFabricShape::PodOf(uint32_t leaf) const
{
    return leaf / LeavesPerPod();
}

uint32_t
MetaRoceFabricShape::LeavesIn(uint32_t pod) const
{
    const uint32_t first = pod * LeavesPerPod();
    return first >= Leaves() ? 0 : std::min(LeavesPerPod(), Leaves() - first);
}

uint32_t
MetaRoceFabricShape::GroupOf(uint32_t spine) const
{
    return spine % spines;
}

Ipv4Address
MetaRoceFabricShape::HostAddress(uint32_t host, uint32_t plane) const
{
    return Ipv4Address(LeafPrefix(plane, LeafOf(host)).Get() | (LeafPortOf(host) + 1));
}

Ipv4Address
MetaRoceFabricShape::LeafPrefix(uint32_t plane, uint32_t leaf)
{
    return Ipv4Address((10u << 24) | (plane << 16) | (leaf << 8));
}

} // namespace ns3
