/*
 * An event scheduler for fabrics with many connections: a small heap of the events due soon and
 * a second heap of those due later.
 *
 * Every queue pair keeps one timer event, most of them a retransmission timeout hundreds of
 * microseconds ahead, so a 256-host all-to-all holds some 65,000 events of which a few thousand
 * are due within the next microseconds. In one binary heap (ns3::PriorityQueueScheduler) every
 * event taken out sifts a replacement down all of its 17 levels, the lower ones far beyond the
 * caches: a tenth of that run's instructions and of its cache misses (doc/benchmarks.md).
 *
 * Here an event due before the horizon goes into the near heap, any other into the far heap.
 * Events leave the near heap; when it is empty, the horizon moves to the far heap's earliest
 * event plus the Window attribute, and the far events due before it move over. Every near event
 * is due before every far one, so events leave in exactly the order of (timestamp, uid) that
 * every ns-3 scheduler keeps: results are identical to any other scheduler's, bit for bit. A far
 * event is sifted through the large heap twice (in and out) instead of the whole heap being
 * sifted for every event. Both heaps are 4-ary (Boost.Heap's d_ary_heap): half the levels of a
 * binary heap, and a node's four children share a cache line or two, where a binary heap's
 * sift visits a new line at every level (doc/benchmarks.md).
 */
#ifndef METAROCE_HORIZON_SCHEDULER_H
#define METAROCE_HORIZON_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <boost/heap/d_ary_heap.hpp>
#include <cstdint>
#include <functional>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Events in (timestamp, uid) order from a near heap (due before a moving horizon) and a
 * far heap.
 */
class MetaRoceHorizonScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    MetaRoceHorizonScheduler();
    ~MetaRoceHorizonScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// Events in the near and the far heap (for tests).
    std::size_t NearCount() const;
    std::size_t FarCount() const;

  private:
    /// A min-heap of events by (timestamp, uid).
    using Heap =
        boost::heap::d_ary_heap<Event, boost::heap::arity<4>, boost::heap::compare<std::greater<>>>;

    /// Takes `ev` out of `heap`; false when it is not there.
    static bool RemoveFrom(Heap& heap, const Event& ev);

    /// Moves the horizon past the far heap's earliest event and its far events before it
    /// into the (empty) near heap.
    void Refill();

    Time m_window;         //!< Window attribute
    uint64_t m_horizon{0}; //!< in time steps: near events are due before it, far ones not
    Heap m_near;           //!< events due before the horizon
    Heap m_far;            //!< the others
};

} // namespace ns3

#endif /* METAROCE_HORIZON_SCHEDULER_H */
