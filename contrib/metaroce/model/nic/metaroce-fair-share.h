/*
 * The receiver's fair share, the rate hint a MetaRoCE NIC advertises in every ACK (spec 8.3):
 * its inbound line rate divided among the queue pairs that received data within the last
 * window (its active senders). Under FairShareWhenMarked the split applies only while the data
 * that arrived since the last update carried CE marks - only then is this receiver's own last
 * hop its senders' bottleneck - and the share is the whole line rate otherwise, because an equal
 * split would cap senders that are limited elsewhere (an all-to-all's senders share their own
 * ports) below what this receiver could take.
 *
 * The NIC keeps the policy's two attributes (FairShareWindow, FairShareWhenMarked) and passes
 * their values in, and hands the share to its engines.
 *
 * The count of active senders also splits the receiver's admission budget (spec 8.5), which
 * must shrink the moment a new sender appears rather than at the next recompute: a sender
 * whose data arrives after a window without any counts at once.
 */
#ifndef METAROCE_FAIR_SHARE_H
#define METAROCE_FAIR_SHARE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A NIC's fair share of its inbound line rate per active sender (spec 8.3).
 */
class MetaRoceFairShare
{
  public:
    /// Data (RxResult::carriedData, however short) arrived for queue pair `queuePair` at `now`,
    /// CE-marked or not: its sender is active. Returns true when it was not active within
    /// `window` before, so the count of active senders grew.
    bool OnDataArrival(uint32_t queuePair, bool ecnCe, Time now, Time window);

    /// True when `window` has passed since the last recompute, or none happened yet.
    bool IsDue(Time now, Time window) const;

    /**
     * Recomputes the share at `now` from the NIC's inbound line rate `lineBps` (of its ports
     * that are up), counting the senders active within `window`; with `whenMarked`, splits
     * only when marked data arrived since the last recompute. Returns the new share (bits/s).
     */
    uint64_t Recompute(Time now, uint64_t lineBps, Time window, bool whenMarked);

    /// The share computed last (bits/s); 0 before the first recompute.
    uint64_t GetShareBps() const;

    /// Active senders: as counted at the last recompute, plus those that became active since.
    uint64_t GetActiveSenders() const;

  private:
    /// The queue pairs whose latest data arrival is within `window` of `now`.
    uint64_t ActiveSenders(Time now, Time window) const;

    /// By queue pair id (a NIC's ids are small and dense); negative: no data yet. Written on
    /// every data arrival, so an index rather than a lookup.
    std::vector<Time> m_lastDataArrival;
    uint64_t m_shareBps{0};
    Time m_updated{Seconds(-1)};     ///< time of the last recompute; negative: none yet
    uint64_t m_markedSinceUpdate{0}; ///< CE-marked data arrivals since the last recompute
    uint64_t m_active{0};            ///< GetActiveSenders()
};

} // namespace ns3

#endif // METAROCE_FAIR_SHARE_H
