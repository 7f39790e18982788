/*
 * The fast link's prefetcher: what MetaRoceRadixScheduler calls, as it takes an event out, for
 * each of the next events of the same timestamp, so that the deliveries those events make are
 * fetched into the cache while this one runs (doc/performance.md, "The fast path").
 *
 * Only nodes with a MetaRoceNetDevice handing its arrivals to a NIC's or a switch's port take
 * part: the device enters its node when it gets its frame sink (Watch()) and leaves it when it
 * is disposed (Forget()). The scheduler knows an event's node only by its context (the node
 * id), so the nodes' arrivals are kept here by id, and the scheduler's hook is installed only
 * while more than kFromNodes nodes take part: a smaller fabric's state stays in the caches,
 * where fetching ahead only costs instructions. What is fetched is the arrivals' business
 * (MetaRoceArrivals::PrefetchDelivery) and the device's (MetaRoceNetDevice::PrefetchReceive);
 * nothing here reads either's fields. A prefetch is a hint: results do not depend on it.
 */
#ifndef METAROCE_LINK_PREFETCHER_H
#define METAROCE_LINK_PREFETCHER_H

#include "ns3/ptr.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

class Node;

/**
 * \ingroup metaroce
 * \brief The scheduler's context prefetcher for the nodes of the fast link (see the file
 * comment).
 */
class MetaRoceLinkPrefetcher
{
  public:
    /// The hook is installed only while more nodes than this take part (3.4% more
    /// instructions at 16 hosts, doc/performance.md, "The fast path").
    static constexpr std::size_t kFromNodes = 128;

    /// `node`'s deliveries are fetched ahead from now on (again: no change).
    static void Watch(Ptr<Node> node);
    /// Node `nodeId`'s deliveries are fetched ahead no more (not watched: no change).
    static void Forget(uint32_t nodeId);
    /// The nodes watched.
    static std::size_t GetNWatched();

    /**
     * The scheduler's ContextPrefetcher: a step of the delivery chain of node `context`, the
     * event `ahead` (1 to MetaRoceRadixScheduler::kPrefetchDepth) after the one just taken out.
     * Any context, watched or not, is fine.
     */
    static void Prefetch(uint32_t context, int ahead);
};

} // namespace ns3

#endif /* METAROCE_LINK_PREFETCHER_H */
