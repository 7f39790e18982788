/*
 * The plane half of the time rule of loss detection (spec 4.6, rule 2a; assumption A35).
 *
 * Packets a sender sprays over one plane (NIC port) towards one receiver all share that
 * plane's last hop, one FIFO queue at the receiver's leaf, so how late one arrives behind
 * another comes only from the hops before it (different spines). Packets on different planes
 * cross different last hops, and under an
 * incast those queues differ by up to a few round trips (the 64-host all-to-all's first
 * windows). A packet acknowledged late behind a later packet of its own plane is therefore
 * much stronger evidence of loss than one acknowledged late behind another plane's.
 *
 * So, when MetaRoceConfig::planeTimeRule is on, each plane keeps its own RACK (the newest
 * acknowledged transmission sent on it) and its own measured reorder window, and a packet is
 * lost once a packet sent after it on its plane was acknowledged and it is older than that
 * packet's round trip plus the plane's window; against other planes the connection-wide rule
 * still applies, with a window of at least srtt + 4 rttvar. Each plane also remembers the
 * oldest in-flight DATA packet of its flows, so that the rule's next deadline is found without
 * a scan of the flows.
 */
#ifndef METAROCE_ENGINE_PLANE_TIME_RULE_H
#define METAROCE_ENGINE_PLANE_TIME_RULE_H

#include "../common/engine-types.h"
#include "loss-detection.h"
#include "reorder-window.h"

#include <cstdint>

namespace metaroce
{

/// The time rule's evidence on one plane.
struct PlaneTimeRule
{
    PlaneTimeRule(TimeNs ackDelay, uint32_t floorRttQuarters)
        : reorder(ackDelay, floorRttQuarters)
    {
    }

    RackState rack;             ///< newest acknowledged transmission sent on this plane
    ReorderWindow reorder;      ///< lateness behind it, measured on this plane
    TimeNs firstData{kNever};   ///< send time of the plane's oldest in-flight DATA packet
    uint64_t firstDataTxSeq{0}; ///< that packet's transmission order

    /// When the plane rule may first declare one of the plane's packets lost, or kNever.
    TimeNs EarliestCheck(TimeNs window) const
    {
        return firstData == kNever ? kNever : rack.Deadline(firstData, firstDataTxSeq, window);
    }
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PLANE_TIME_RULE_H
