#include "metaroce-horizon-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceHorizonScheduler");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceHorizonScheduler);

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
    (ev.key.m_ts < m_horizon ? m_near : m_far).push(ev);
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
    return m_near.empty() ? m_far.top() : m_near.top();
}

Scheduler::Event
MetaRoceHorizonScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (m_near.empty())
    {
        Refill();
    }
    const Event next = m_near.top();
    m_near.pop();
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

bool
MetaRoceHorizonScheduler::RemoveFrom(Heap& heap, const Event& ev)
{
    // Rare (ns-3 cancels events in place; only Simulator::Remove comes here): rebuilt without it.
    std::vector<Event> kept;
    kept.reserve(heap.size());
    bool found = false;
    for (const Event& e : heap)
    {
        if (!found && e.key.m_uid == ev.key.m_uid)
        {
            NS_ASSERT(e.impl == ev.impl);
            found = true;
            continue;
        }
        kept.push_back(e);
    }
    if (found)
    {
        heap.clear();
        for (const Event& e : kept)
        {
            heap.push(e);
        }
    }
    return found;
}

void
MetaRoceHorizonScheduler::Refill()
{
    // At least one step, whatever the time resolution makes of the window.
    const auto window = std::max<uint64_t>(1, static_cast<uint64_t>(m_window.GetTimeStep()));
    const uint64_t earliest = m_far.top().key.m_ts;
    m_horizon = earliest > UINT64_MAX - window ? UINT64_MAX : earliest + window;
    // The earliest always moves (at the end of time the horizon cannot pass it); later events
    // inserted at its timestamp have larger uids, so they may wait in the far heap.
    bool first = true;
    while (!m_far.empty() && (first || m_far.top().key.m_ts < m_horizon))
    {
        first = false;
        // In order, so each stays where it is pushed: one comparison with its parent.
        m_near.push(m_far.top());
        m_far.pop();
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
