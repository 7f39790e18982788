#include "metaroce-horizon-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

#include <algorithm>
#include <functional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceHorizonScheduler");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceHorizonScheduler);

namespace
{

/// Takes `ev` out of the min-heap `heap`; false when it is not there.
bool
RemoveFrom(std::vector<Scheduler::Event>& heap, const Scheduler::Event& ev)
{
    const auto it = std::find_if(heap.begin(), heap.end(), [&ev](const Scheduler::Event& e) {
        return e.key.m_uid == ev.key.m_uid;
    });
    if (it == heap.end())
    {
        return false;
    }
    NS_ASSERT(it->impl == ev.impl);
    *it = heap.back();
    heap.pop_back();
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
    return true;
}

} // namespace

TypeId
MetaRoceHorizonScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceHorizonScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceHorizonScheduler>()
            .AddAttribute("Window",
                          "How far past the earliest later event the horizon moves when the "
                          "near heap runs empty: events due before it share the small heap. "
                          "Any positive value gives the same event order; it only moves work "
                          "between the two heaps",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&MetaRoceHorizonScheduler::m_window),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

MetaRoceHorizonScheduler::MetaRoceHorizonScheduler() = default;
MetaRoceHorizonScheduler::~MetaRoceHorizonScheduler() = default;

void
MetaRoceHorizonScheduler::Insert(const Event& ev)
{
    std::vector<Event>& heap = ev.key.m_ts < m_horizon ? m_near : m_far;
    heap.push_back(ev);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
}

bool
MetaRoceHorizonScheduler::IsEmpty() const
{
    return m_near.empty() && m_far.empty();
}

Scheduler::Event
MetaRoceHorizonScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    // Every near event is due before every far one.
    return m_near.empty() ? m_far.front() : m_near.front();
}

Scheduler::Event
MetaRoceHorizonScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (m_near.empty())
    {
        Refill();
    }
    std::pop_heap(m_near.begin(), m_near.end(), std::greater<>());
    const Event next = m_near.back();
    m_near.pop_back();
    return next;
}

void
MetaRoceHorizonScheduler::Remove(const Event& ev)
{
    // Its heap by the horizon, the other as a fallback (Refill's earliest event may sit at it).
    const bool near = ev.key.m_ts < m_horizon;
    const bool removed =
        RemoveFrom(near ? m_near : m_far, ev) || RemoveFrom(near ? m_far : m_near, ev);
    NS_ABORT_MSG_UNLESS(removed, "MetaRoceHorizonScheduler: no event with uid " << ev.key.m_uid);
}

void
MetaRoceHorizonScheduler::Refill()
{
    // At least one step, whatever the time resolution makes of the window.
    const auto window = std::max<uint64_t>(1, static_cast<uint64_t>(m_window.GetTimeStep()));
    const uint64_t earliest = m_far.front().key.m_ts;
    m_horizon = earliest > UINT64_MAX - window ? UINT64_MAX : earliest + window;
    // The earliest always moves (at the end of time the horizon cannot pass it); later events
    // inserted at its timestamp have larger uids, so they may wait in the far heap.
    bool first = true;
    while (!m_far.empty() && (first || m_far.front().key.m_ts < m_horizon))
    {
        first = false;
        std::pop_heap(m_far.begin(), m_far.end(), std::greater<>());
        m_near.push_back(m_far.back());
        m_far.pop_back();
        // The far heap gives them up in order: appended, they already form a heap.
    }
    NS_LOG_LOGIC("horizon " << m_horizon << ": " << m_near.size() << " near, " << m_far.size()
                            << " far");
}

std::size_t
MetaRoceHorizonScheduler::NearCount() const
{
    return m_near.size();
}

std::size_t
MetaRoceHorizonScheduler::FarCount() const
{
    return m_far.size();
}

} // namespace ns3
