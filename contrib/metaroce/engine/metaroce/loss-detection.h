/*
 * Loss detection for one flow against the connection's RACK state (spec 4.6), a small pure
 * function after RACK (RFC 8985), extended to a
 * connection that sprays over many flows.
 *
 * Two rules, in order of strength:
 *  1. Sequence: packets of a flow that were sent on the same route (same entropy epoch) cannot
 *     overtake each other, so when a packet with a higher FSN of the same epoch is acknowledged,
 *     every still-unacknowledged lower FSN of that epoch is lost at once - a gap in the SACK
 *     bitvector means loss, not reordering. `reorderTolerance` relaxes this for fabrics that do
 *     reorder within a route (default 0).
 *  2. Time, connection-wide: a packet is lost once a packet SENT AFTER it on any flow of the
 *     connection has been acknowledged and the packet has been outstanding for longer than that
 *     packet's round trip plus a reorder window. Different flows (and an old route of the same
 *     flow) may deliver out of send order by as much as their queueing delays differ; the window
 *     covers that spread (ReorderWindow, reorder-window.h). With ~1 packet per flow per message,
 *     rule 1 rarely has a later packet to compare with; rule 2 finds a loss about one round trip
 *     after it happened, whichever flow it was on. A flow is one route, so a packet whose own
 *     flow has an RTT sample is expected back after the longer of that flow's smoothed RTT and
 *     the round trip above (A44): a route through a standing queue is not judged by a faster
 *     route's packets. TimeRule carries this evidence.
 * Tail losses (nothing sent after them acknowledged) are left to the tail-loss probe and timer.
 *
 * The caller decides what to do with the verdict (retransmit, cut the window, move the flow).
 */
#ifndef METAROCE_ENGINE_LOSS_DETECTION_H
#define METAROCE_ENGINE_LOSS_DETECTION_H

#include "../common/engine-types.h"

#include <cstdint>
#include <vector>

namespace metaroce
{

/// One transmitted packet as the sender remembers it on its flow.
struct SentPacket
{
    enum class State : uint8_t
    {
        InFlight,
        Acked,
        Lost,
    };

    // 8-byte fields first: 48 bytes instead of 56 (a flow's ring holds one per packet).
    uint64_t fsn{0};
    uint64_t txSeq{0}; ///< connection-wide transmission order: "sent after" without time ties
    TimeNs sentAt{0};
    uint64_t message{0};     ///< requester message id (kProbeMessage for probes)
    uint32_t epoch{0};       ///< route epoch: bumped each time the flow's entropy is re-drawn
    uint32_t bytes{0};       ///< bytes on the wire, for window accounting
    uint32_t packetIndex{0}; ///< index of the packet within its message
    State state{State::InFlight};
};

/// Message id used for probe packets, which carry no data.
constexpr uint64_t kProbeMessage = ~uint64_t{0};

/**
 * The connection's most recently sent packet that has been acknowledged (RFC 8985's
 * RACK.xmit_ts and RACK.rtt), over all flows. PROBEs are not fed in: they travel in the
 * control class and overtake queued data by design.
 */
struct RackState
{
    bool valid{false}; ///< some packet has been acknowledged
    uint64_t txSeq{0}; ///< its transmission order
    TimeNs rtt{0};     ///< its round trip: acknowledgement time minus send time

    /// Takes `p`, acknowledged at `now`, if it was sent after the packet held so far.
    void OnAcked(const SentPacket& p, TimeNs now);

    /// True when the packet held was sent after `p`.
    bool SentAfter(const SentPacket& p) const
    {
        return valid && txSeq > p.txSeq;
    }

    /// When the time rule declares lost a packet sent at `sentAt` with transmission order
    /// `sentTxSeq`: `window` after the longer of the held packet's round trip and `flowRtt` (the
    /// packet's own flow's, 0 when unknown), if the held packet was sent after it; kNever
    /// otherwise (`sentAt` must not be kNever).
    TimeNs Deadline(TimeNs sentAt, uint64_t sentTxSeq, TimeNs window, TimeNs flowRtt = 0) const
    {
        return valid && txSeq > sentTxSeq ? sentAt + (rtt > flowRtt ? rtt : flowRtt) + window
                                          : kNever;
    }
};

/// When rule 2 declares `p` lost, expecting it back after the longer of the RACK round trip and
/// `flowRtt`: kNever for a PROBE and while no packet sent after it has been acknowledged.
TimeNs LossDeadline(const SentPacket& p,
                    const RackState& rack,
                    TimeNs reorderWindow,
                    TimeNs flowRtt = 0);

/**
 * The evidence the time rule judges one flow's packets by: the connection's RACK, its reorder
 * window, and the flow's own smoothed RTT.
 */
struct TimeRule
{
    const RackState& connection; ///< newest acknowledged transmission of the connection
    TimeNs connectionWindow;     ///< reorder window against it
    /// Smoothed RTT of the judged packets' flow, or 0 without a sample of its own: rule 2
    /// expects them back no sooner (A44).
    TimeNs flowRtt{0};

    /// Rule 2's deadline for `p` (LossDeadline).
    TimeNs Deadline(const SentPacket& p) const;
};

/// What DetectLosses found.
struct LossVerdict
{
    std::vector<std::size_t> lost; ///< indices into the outstanding list, oldest first
    /// Per entry of `lost`: proven by rule 1 (a later packet of its route was acknowledged),
    /// not judged late by the time rule, which may yet be wrong (spec 4.6).
    std::vector<bool> proven;
    TimeNs nextCheck{kNever}; ///< when rule 2 may declare more losses
};

/**
 * Scans a flow's outstanding packets (ordered by FSN) and returns those now known lost.
 * Pure: it reads its arguments only.
 */
LossVerdict DetectLosses(const Ring<SentPacket>& outstanding,
                         uint32_t reorderTolerance,
                         const TimeRule& rule,
                         TimeNs now);

} // namespace metaroce

#endif // METAROCE_ENGINE_LOSS_DETECTION_H
