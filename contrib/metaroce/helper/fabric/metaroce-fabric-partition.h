/*
 * MetaRoceFabricPartition: which rank (ns-3 system id) simulates each node of a fabric, for a
 * distributed run on ns-3's MPI (doc: the module docs, "Distributed runs").
 *
 * A NIC and all its ports live on one rank, so a host is the unit; the leaves of every plane
 * follow their hosts (host-leaf links, the busiest, stay inside a rank) and spines and cores
 * are spread round robin. Links between two ranks become remote channels; the smallest delay of
 * such a link is the lookahead that bounds how far the ranks may run apart.
 *
 *   BY_LEAF   leaves in contiguous blocks of ceil(leaves / ranks), each with its hosts
 *   BY_HOST   an explicit rank per host; a leaf goes with its first host
 *
 * A partition is pure arithmetic on the shape: it is the same on every rank, as it must be (every
 * rank builds the whole fabric and runs the events of its own nodes).
 */
#ifndef METAROCE_FABRIC_PARTITION_H
#define METAROCE_FABRIC_PARTITION_H

#include "metaroce-fabric-shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Assigns the nodes of a fabric to ranks (see the file comment).
 */
class MetaRoceFabricPartition
{
  public:
    /// One rank: every node on system id 0 (a sequential run).
    MetaRoceFabricPartition() = default;

    /// `ranks` ranks, leaves in contiguous blocks with their hosts.
    static MetaRoceFabricPartition ByLeaf(uint32_t ranks);
    /// An explicit rank for every host (hostRanks[h] < ranks).
    static MetaRoceFabricPartition ByHost(uint32_t ranks, std::vector<uint32_t> hostRanks);

    uint32_t GetNRanks() const;

    /// Throws std::invalid_argument naming the problem if the partition does not fit shape:
    /// no rank, more ranks than leaves (BY_LEAF), a host map of the wrong size or naming a rank
    /// that does not exist.
    void Validate(const MetaRoceFabricShape& shape) const;

    /// The rank of host h (its node and NIC).
    uint32_t HostRank(const MetaRoceFabricShape& shape, uint32_t host) const;
    /// The rank of switch `index` of `tier` (the same on every plane).
    uint32_t SwitchRank(const MetaRoceFabricShape& shape,
                        MetaRoceFabricTier tier,
                        uint32_t index) const;

    /// "1 rank", "2 ranks by leaf", "4 ranks by host".
    std::string Describe() const;

  private:
    enum class Scheme
    {
        BY_LEAF,
        BY_HOST
    };

    uint32_t LeafRank(const MetaRoceFabricShape& shape, uint32_t leaf) const;

    Scheme m_scheme{Scheme::BY_LEAF};
    uint32_t m_ranks{1};
    std::vector<uint32_t> m_hostRanks;
};

} // namespace ns3

#endif /* METAROCE_FABRIC_PARTITION_H */
