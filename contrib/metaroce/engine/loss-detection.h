/*
 * Loss detection for one path (spec 5.3), a small pure function in the manner of RACK.
 *
 * Two rules, in order of strength:
 *  1. Sequence: packets of a path that were sent on the same route (same entropy epoch) cannot
 *     overtake each other, so when a packet with a higher PSN of the same epoch is acknowledged,
 *     every still-unacknowledged lower PSN of that epoch is lost at once - a gap in the SACK
 *     bitvector means loss, not reordering. `reorderTolerance` relaxes this for fabrics that do
 *     reorder within a route (default 0).
 *  2. Time: across a route change (entropy re-drawn) packets may legitimately overtake - the
 *     old route is usually the congested one - so an older-epoch packet is lost only once a
 *     packet sent after it has been acknowledged and `reorderWindow` has passed since it was
 *     sent. The requester passes the path's RTO: a per-packet verdict without the timeout's
 *     penalties (window reset, suspect path).
 * Tail losses (nothing acknowledged after them) are left to the retransmission timer.
 *
 * The caller decides what to do with the verdict (retransmit, cut the window, move the path).
 */
#ifndef METAROCE_ENGINE_LOSS_DETECTION_H
#define METAROCE_ENGINE_LOSS_DETECTION_H

#include "engine-types.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace metaroce
{

/// One transmitted packet as the sender remembers it on its path.
struct SentPacket
{
    enum class State : uint8_t
    {
        InFlight,
        Acked,
        Lost,
    };

    uint64_t psn{0};
    uint32_t epoch{0}; ///< route epoch: bumped each time the path's entropy is re-drawn
    TimeNs sentAt{0};
    uint32_t bytes{0};       ///< bytes on the wire, for window accounting
    uint64_t message{0};     ///< requester message id (kProbeMessage for probes)
    uint32_t packetIndex{0}; ///< index of the packet within its message
    State state{State::InFlight};
};

/// Message id used for probe packets, which carry no data.
constexpr uint64_t kProbeMessage = ~uint64_t{0};

/// What DetectLosses found.
struct LossVerdict
{
    std::vector<std::size_t> lost; ///< indices into the outstanding list, oldest first
    TimeNs nextCheck{kNever};      ///< when rule 2 may declare more losses
};

/**
 * Scans a path's outstanding packets (ordered by PSN) and returns those now known lost.
 * Pure: it reads its arguments only.
 */
LossVerdict DetectLosses(const std::deque<SentPacket>& outstanding,
                         uint32_t reorderTolerance,
                         TimeNs reorderWindow,
                         TimeNs now);

} // namespace metaroce

#endif // METAROCE_ENGINE_LOSS_DETECTION_H
