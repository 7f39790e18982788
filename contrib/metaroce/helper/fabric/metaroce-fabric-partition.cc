#include "metaroce-fabric-partition.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

MetaRoceFabricPartition
MetaRoceFabricPartition::ByLeaf(uint32_t ranks)
{
    MetaRoceFabricPartition p;
    p.m_scheme = Scheme::BY_LEAF;
    p.m_ranks = ranks;
    return p;
}

MetaRoceFabricPartition
MetaRoceFabricPartition::ByHost(uint32_t ranks, std::vector<uint32_t> hostRanks)
{
    MetaRoceFabricPartition p;
    p.m_scheme = Scheme::BY_HOST;
    p.m_ranks = ranks;
    p.m_hostRanks = std::move(hostRanks);
    return p;
}

uint32_t
MetaRoceFabricPartition::GetNRanks() const
{
    return m_ranks;
}

void
MetaRoceFabricPartition::Validate(const MetaRoceFabricShape& shape) const
{
    if (m_ranks == 0)
    {
        throw std::invalid_argument("partition: at least one rank");
    }
    if (m_ranks > 1 && shape.topology == MetaRoceTopology::RAIL)
    {
        throw std::invalid_argument("partition: a rail fabric runs on one rank only");
    }
    if (m_scheme == Scheme::BY_LEAF)
    {
        // Blocks of ceil(leaves / ranks): the last rank must still get a leaf.
        const uint32_t block = (shape.Leaves() + m_ranks - 1) / std::max(m_ranks, 1U);
        if (m_ranks > shape.Leaves() || (m_ranks - 1) * block >= shape.Leaves())
        {
            throw std::invalid_argument(
                "partition: " + std::to_string(m_ranks) + " ranks by leaf, but the fabric's " +
                std::to_string(shape.Leaves()) + " leaves per plane, in blocks of " +
                std::to_string(block) +
                ", leave a rank without a host (choose ranks that divide the leaves, or ByHost)");
        }
        return;
    }
    if (m_hostRanks.size() != shape.hosts)
    {
        throw std::invalid_argument("partition: " + std::to_string(m_hostRanks.size()) +
                                    " host ranks given for " + std::to_string(shape.hosts) +
                                    " hosts");
    }
    for (uint32_t h = 0; h < shape.hosts; ++h)
    {
        if (m_hostRanks[h] >= m_ranks)
        {
            throw std::invalid_argument("partition: host " + std::to_string(h) + " on rank " +
                                        std::to_string(m_hostRanks[h]) + " of " +
                                        std::to_string(m_ranks));
        }
    }
}

uint32_t
MetaRoceFabricPartition::LeafRank(const MetaRoceFabricShape& shape, uint32_t leaf) const
{
    if (m_scheme == Scheme::BY_HOST)
    {
        return m_hostRanks[leaf * shape.hostsPerLeaf];
    }
    const uint32_t block = (shape.Leaves() + m_ranks - 1) / m_ranks;
    return leaf / block;
}

uint32_t
MetaRoceFabricPartition::HostRank(const MetaRoceFabricShape& shape, uint32_t host) const
{
    if (m_ranks == 1)
    {
        return 0;
    }
    return m_scheme == Scheme::BY_HOST ? m_hostRanks[host] : LeafRank(shape, shape.LeafOf(host));
}

uint32_t
MetaRoceFabricPartition::SwitchRank(const MetaRoceFabricShape& shape,
                                    MetaRoceFabricTier tier,
                                    uint32_t index) const
{
    if (m_ranks == 1)
    {
        return 0;
    }
    return tier == MetaRoceFabricTier::LEAF ? LeafRank(shape, index) : index % m_ranks;
}

std::string
MetaRoceFabricPartition::Describe() const
{
    if (m_ranks == 1)
    {
        return "1 rank";
    }
    return std::to_string(m_ranks) + " ranks by " + (m_scheme == Scheme::BY_LEAF ? "leaf" : "host");
}

} // namespace ns3
