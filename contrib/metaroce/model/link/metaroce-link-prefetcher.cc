#include "metaroce-link-prefetcher.h"

#include "metaroce-arrivals.h"

#include "ns3/metaroce-radix-scheduler.h"
#include "ns3/node.h"

#include <vector>

namespace ns3
{

namespace
{

/// The watched nodes' arrivals by node id (null: not watched). The scheduler's hook is a plain
/// function that gets a node id, so this is where it finds them.
std::vector<Ptr<MetaRoceArrivals>> g_watched;
/// How many entries of g_watched are set.
std::size_t g_nWatched = 0;

/// Installs or removes the scheduler's hook after a change of g_nWatched.
void
UpdateHook()
{
    MetaRoceRadixScheduler::SetContextPrefetcher(g_nWatched > MetaRoceLinkPrefetcher::kFromNodes
                                                     ? &MetaRoceLinkPrefetcher::Prefetch
                                                     : nullptr);
}

} // namespace

void
MetaRoceLinkPrefetcher::Watch(Ptr<Node> node)
{
    const uint32_t id = node->GetId();
    if (g_watched.size() <= id)
    {
        g_watched.resize(id + 1);
    }
    if (g_watched[id] == nullptr)
    {
        ++g_nWatched;
        UpdateHook();
    }
    g_watched[id] = MetaRoceArrivals::Of(node);
}

void
MetaRoceLinkPrefetcher::Forget(uint32_t nodeId)
{
    if (nodeId < g_watched.size() && g_watched[nodeId] != nullptr)
    {
        g_watched[nodeId] = nullptr;
        --g_nWatched;
        UpdateHook();
    }
}

std::size_t
MetaRoceLinkPrefetcher::GetNWatched()
{
    return g_nWatched;
}

void
MetaRoceLinkPrefetcher::Prefetch(uint32_t context, int ahead)
{
    if (context < g_watched.size())
    {
        if (const MetaRoceArrivals* arrivals = PeekPointer(g_watched[context]))
        {
            arrivals->PrefetchDelivery(ahead);
        }
    }
}

} // namespace ns3
