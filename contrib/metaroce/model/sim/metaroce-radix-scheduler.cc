#include "metaroce-radix-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <functional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceRadixScheduler");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceRadixScheduler);

TypeId
MetaRoceRadixScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceRadixScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceRadixScheduler>();
    return tid;
}

MetaRoceRadixScheduler::MetaRoceRadixScheduler() = default;
MetaRoceRadixScheduler::~MetaRoceRadixScheduler() = default;

void
MetaRoceRadixScheduler::Insert(const Event& ev)
{
    NS_ABORT_MSG_IF(ev.key.m_ts < m_last,
                    "MetaRoceRadixScheduler: an event at time step "
                        << ev.key.m_ts << ", before the last one taken out (" << m_last << ")");
    const std::size_t b = BucketOf(ev.key.m_ts);
    if (b > 0)
    {
        Append(b, ev);
    }
    else if (m_now.size() == m_next || m_now.back() < ev)
    {
        // A new event has the largest uid yet: at the end, in order.
        m_now.push_back(ev);
    }
    else
    {
        // Only when the uids have wrapped around (2^32 events): in order all the same.
        m_now.insert(std::upper_bound(m_now.begin() + m_next, m_now.end(), ev), ev);
    }
    ++m_size;
}

void
MetaRoceRadixScheduler::Append(std::size_t b, const Event& ev)
{
    m_buckets[b].push_back(ev);
    m_occupied |= uint64_t(1) << (b - 1);
}

bool
MetaRoceRadixScheduler::IsEmpty() const
{
    return m_size == 0;
}

Scheduler::Event
MetaRoceRadixScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    if (m_next < m_now.size())
    {
        return m_now[m_next];
    }
    // The lowest bucket's earliest event, found without moving anything: events before it may
    // still come (a distributed simulator peeks, then receives events from other ranks).
    const std::vector<Event>& lowest = m_buckets[__builtin_ctzll(m_occupied) + 1];
    return *std::min_element(lowest.begin(), lowest.end());
}

Scheduler::Event
MetaRoceRadixScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (m_next == m_now.size())
    {
        Redistribute();
    }
    --m_size;
    const Event& out = m_now[m_next++];
    PrefetchAhead();
    return out;
}

MetaRoceRadixScheduler::ContextPrefetcher MetaRoceRadixScheduler::s_prefetcher = nullptr;

void
MetaRoceRadixScheduler::SetContextPrefetcher(ContextPrefetcher prefetcher)
{
    s_prefetcher = prefetcher;
}

MetaRoceRadixScheduler::ContextPrefetcher
MetaRoceRadixScheduler::GetContextPrefetcher()
{
    return s_prefetcher;
}

void
MetaRoceRadixScheduler::PrefetchAhead() const
{
    // The next events of this timestamp are known: their objects, allocated when they were
    // scheduled and cold in a large fabric, are fetched while this one runs, and what their
    // nodes will read first, a step deeper the nearer the event (hints: nothing changes).
    const std::size_t known = m_now.size() - m_next;
    if (known == 0)
    {
        return;
    }
    __builtin_prefetch(m_now[m_next].impl);
    if (s_prefetcher == nullptr)
    {
        return;
    }
    for (std::size_t ahead = std::min<std::size_t>(known, kPrefetchDepth); ahead >= 1; --ahead)
    {
        s_prefetcher(m_now[m_next + ahead - 1].key.m_context, static_cast<int>(ahead));
    }
}

void
MetaRoceRadixScheduler::Redistribute()
{
    m_now.clear();
    m_next = 0;
    const std::size_t b = static_cast<std::size_t>(__builtin_ctzll(m_occupied)) + 1;
    std::vector<Event>& from = m_buckets[b];
    uint64_t earliest = from.front().key.m_ts;
    for (const Event& e : from)
    {
        earliest = std::min(earliest, e.key.m_ts);
    }
    m_last = earliest;
    // Every event of bucket b shares m_last's bits above b - 1, so each lands below b.
    for (const Event& e : from)
    {
        const std::size_t to = BucketOf(e.key.m_ts);
        if (to == 0)
        {
            m_now.push_back(e);
        }
        else
        {
            Append(to, e);
        }
    }
    from.clear();
    m_occupied &= ~(uint64_t(1) << (b - 1));
    std::sort(m_now.begin(), m_now.end());
}

void
MetaRoceRadixScheduler::Remove(const Event& ev)
{
    // Rare (ns-3 cancels events in place; only Simulator::Remove comes here).
    NS_ABORT_MSG_IF(ev.key.m_ts < m_last,
                    "MetaRoceRadixScheduler: no event with uid " << ev.key.m_uid);
    const std::size_t b = BucketOf(ev.key.m_ts);
    std::vector<Event>& bucket = b == 0 ? m_now : m_buckets[b];
    const auto first = b == 0 ? bucket.begin() + m_next : bucket.begin();
    const auto it = std::find_if(first, bucket.end(), [&ev](const Event& e) {
        return e.key.m_uid == ev.key.m_uid;
    });
    NS_ABORT_MSG_IF(it == bucket.end(),
                    "MetaRoceRadixScheduler: no event with uid " << ev.key.m_uid);
    NS_ASSERT(it->impl == ev.impl);
    if (b == 0)
    {
        m_now.erase(it); // keeps the order
    }
    else
    {
        *it = bucket.back();
        bucket.pop_back();
        if (bucket.empty())
        {
            m_occupied &= ~(uint64_t(1) << (b - 1));
        }
    }
    --m_size;
}

} // namespace ns3
