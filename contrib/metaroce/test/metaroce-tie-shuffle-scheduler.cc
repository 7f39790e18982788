#include "metaroce-tie-shuffle-scheduler.h"

#include "ns3/event-impl.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceTieShuffleScheduler);

namespace
{

/// splitmix64's finaliser: a cheap, well-mixed permutation of 64-bit words.
uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

TypeId
MetaRoceTieShuffleScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceTieShuffleScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceTieShuffleScheduler>()
            .AddAttribute("Seed",
                          "Chooses the order in which the nodes' events of one timestamp run "
                          "(each seed gives another order; within a node, uid order)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&MetaRoceTieShuffleScheduler::m_seed),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

MetaRoceTieShuffleScheduler::MetaRoceTieShuffleScheduler() = default;
MetaRoceTieShuffleScheduler::~MetaRoceTieShuffleScheduler() = default;

bool
MetaRoceTieShuffleScheduler::Later(const Entry& a, const Entry& b)
{
    if (a.ev.key.m_ts != b.ev.key.m_ts)
    {
        return a.ev.key.m_ts > b.ev.key.m_ts;
    }
    if (a.tie != b.tie)
    {
        return a.tie > b.tie;
    }
    return a.ev.key.m_uid > b.ev.key.m_uid;
}

void
MetaRoceTieShuffleScheduler::Insert(const Event& ev)
{
    const uint64_t tie = Mix(m_seed ^ Mix(ev.key.m_ts ^ (uint64_t{ev.key.m_context} << 40)));
    m_heap.push_back({ev, tie});
    std::push_heap(m_heap.begin(), m_heap.end(), Later);
}

bool
MetaRoceTieShuffleScheduler::IsEmpty() const
{
    return m_heap.empty();
}

Scheduler::Event
MetaRoceTieShuffleScheduler::PeekNext() const
{
    return m_heap.front().ev;
}

Scheduler::Event
MetaRoceTieShuffleScheduler::RemoveNext()
{
    std::pop_heap(m_heap.begin(), m_heap.end(), Later);
    Event ev = m_heap.back().ev;
    m_heap.pop_back();
    return ev;
}

void
MetaRoceTieShuffleScheduler::Remove(const Event& ev)
{
    auto it = std::find_if(m_heap.begin(), m_heap.end(), [&ev](const Entry& e) {
        return e.ev.key.m_uid == ev.key.m_uid;
    });
    if (it != m_heap.end())
    {
        m_heap.erase(it);
        std::make_heap(m_heap.begin(), m_heap.end(), Later);
    }
}

} // namespace ns3
