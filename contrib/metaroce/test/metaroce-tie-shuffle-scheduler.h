/*
 * A scheduler that breaks ties between nodes differently from ns-3's own.
 *
 * Every ns-3 scheduler runs events of the same timestamp in the order they were scheduled (the
 * event uid). A distributed run (ns-3's MPI) cannot keep that order: a packet from another rank
 * is scheduled when its message arrives, not when its sender transmitted it, so its uid - and
 * so its place among the receiving node's other events of that nanosecond - differs from the
 * sequential run's. Results are the same in both only if no node's behaviour depends on how its
 * events interleave with other nodes' events of the same nanosecond.
 *
 * This scheduler checks exactly that in one process: events of one timestamp run grouped by
 * node (context) in a pseudo-random order of nodes drawn from the Seed attribute, and within a
 * node in uid order (as on any rank). A model whose results change with Seed has an ordering
 * dependency that a distributed run would expose; the metaroce-determinism test suite runs
 * experiments under several seeds and requires byte-identical results.
 *
 * A test tool, not part of the module's library: it is compiled into the module's tests (the
 * test runner, ns-3's test library in-tree) and into the golden runs' program
 * (test/golden/CMakeLists.txt), which select it by name (--scheduler).
 */
#ifndef METAROCE_TIE_SHUFFLE_SCHEDULER_H
#define METAROCE_TIE_SHUFFLE_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Orders events by (timestamp, seeded hash of (node, timestamp), uid).
 */
class MetaRoceTieShuffleScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    MetaRoceTieShuffleScheduler();
    ~MetaRoceTieShuffleScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// A heap entry: the event and its precomputed tie-breaking rank.
    struct Entry
    {
        Event ev;
        uint64_t tie;
    };

    /// True when a runs after b (the heap is a max-heap of "earliest").
    static bool Later(const Entry& a, const Entry& b);

    uint64_t m_seed{1}; //!< Seed attribute
    std::vector<Entry> m_heap;
};

} // namespace ns3

#endif /* METAROCE_TIE_SHUFFLE_SCHEDULER_H */
