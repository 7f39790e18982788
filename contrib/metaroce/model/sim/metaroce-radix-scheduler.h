/*
 * An event scheduler that uses what every ns-3 simulation guarantees: no event is scheduled
 * before the one being run, so the timestamps taken out never decrease. A radix heap (Ahuja,
 * Mehlhorn, Orlin and Tarjan, 1990) keeps, besides the last timestamp taken out, one bucket per
 * bit position: bucket b holds the events whose timestamp first differs from it in bit b - 1,
 * bucket 0 those at that timestamp. An insert is an XOR, a count of leading zeros and an append.
 * When bucket 0 runs empty, the lowest non-empty bucket is emptied into the lower ones around
 * its earliest timestamp, which becomes the last one; every event moves down at most once per
 * bit and the buckets are read in sequence, where a heap's sift reads one scattered cache line
 * per level for every event (doc/performance.md, "The fast path").
 *
 * Bucket 0, the events at the last timestamp, is kept in ns-3's order for one timestamp, by uid:
 * sorted once when it is filled, and an event inserted at that timestamp has the largest uid yet
 * (ns-3 numbers events as they are scheduled), so it goes at the end. Events leave in exactly
 * the order every ns-3 scheduler gives: results are bit-identical to ns3::MapScheduler's.
 */
#ifndef METAROCE_RADIX_SCHEDULER_H
#define METAROCE_RADIX_SCHEDULER_H

#include "ns3/scheduler.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Events in (timestamp, uid) order from radix buckets around the last timestamp taken
 * out; events must not be inserted before it.
 */
class MetaRoceRadixScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    MetaRoceRadixScheduler();
    ~MetaRoceRadixScheduler() override;

    /// Aborts for an event before the last one taken out (no ns-3 simulator inserts one; one
    /// before the last one peeked at is fine).
    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /**
     * Called as an event is taken out, with the context (node) of each of the next events of
     * its timestamp and how far ahead it is (1: the next one, up to kPrefetchDepth), so that
     * what those events will read can be fetched into the cache first, a step of a chain of
     * loads per event. It must change nothing.
     */
    using ContextPrefetcher = void (*)(uint32_t context, int ahead);
    static constexpr int kPrefetchDepth = 5;

    /// Sets the prefetcher (nullptr: none) of every MetaRoceRadixScheduler.
    static void SetContextPrefetcher(ContextPrefetcher prefetcher);
    /// The prefetcher set, or nullptr.
    static ContextPrefetcher GetContextPrefetcher();

  private:
    /// Prefetches for the events after the one just taken out (m_next is the next one's).
    void PrefetchAhead() const;

    static ContextPrefetcher s_prefetcher;

    /// Bucket 0 and one per bit of a 64-bit timestamp.
    static constexpr std::size_t kBuckets = 65;

    /// The bucket of an event at timestamp `ts` (>= m_last).
    std::size_t BucketOf(uint64_t ts) const
    {
        return ts == m_last ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(ts ^ m_last));
    }

    /// Appends `ev` to bucket `b` (> 0).
    void Append(std::size_t b, const Event& ev);

    /// With bucket 0 taken out: moves the lowest non-empty bucket's earliest timestamp into m_last
    /// and its events into lower buckets. Only RemoveNext() does it: after a PeekNext() events
    /// before the one it returned may still be inserted.
    void Redistribute();

    uint64_t m_last{0}; //!< the last timestamp taken out (where bucket 0 is)
    /// Bit b - 1 set when bucket b (> 0) holds events.
    uint64_t m_occupied{0};
    /// Buckets 1 to 64, in no order (m_buckets[0] is unused: bucket 0 is m_now).
    std::array<std::vector<Event>, kBuckets> m_buckets;
    /// Bucket 0 in (timestamp, uid) order: the events at m_last, those before m_next taken out.
    std::vector<Event> m_now;
    std::size_t m_next{0}; //!< the next event of m_now to take out
    std::size_t m_size{0}; //!< events held
};

} // namespace ns3

#endif /* METAROCE_RADIX_SCHEDULER_H */
