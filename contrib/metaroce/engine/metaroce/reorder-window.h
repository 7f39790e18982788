/*
 * The reorder window of the connection-wide time rule of loss detection (spec 4.6): how much
 * later than a packet sent after it a packet may be acknowledged without being lost.
 *
 * RFC 8985 sizes this window as a quarter of the minimum RTT and widens it on DSACKs. Two
 * things make packets of one MetaRoCE connection come back out of send order: the receiver
 * coalesces ACKs per flow, holding one for up to its ACK delay while another flow's ACK goes at
 * once, and the flows cross different fabric queues, which under an incast differ by many
 * microseconds. The first is known, the second is measured: each ACK that a packet itself
 * caused (its timestamp is the echo), arriving after a packet sent later was acknowledged, is a
 * sample of the lateness `ackTime - sentAt - rack.rtt`, spurious losses included. The window is
 * the smoothed lateness plus four mean deviations (as RFC 6298 sizes an RTO from RTT samples),
 * at most the smoothed RTT, but never below the ACK delay plus a quarter of the minimum RTT
 * (or several quarters: RFC 8985's reo_wnd_mult, fixed by configuration, A45).
 * Before the first sample the lateness is taken to be the ACK delay. After a spurious loss on a
 * fabric that has proven none, the window is at least a multiple of the smoothed RTT, beyond
 * the cap (A49).
 */
#ifndef METAROCE_ENGINE_REORDER_WINDOW_H
#define METAROCE_ENGINE_REORDER_WINDOW_H

#include "../common/engine-types.h"

namespace metaroce
{

/// Reorder window of one connection, from measured lateness.
class ReorderWindow
{
  public:
    /// `ackDelay`: longest time the receiver holds an ACK (spec 4.2); `floorRttQuarters`:
    /// quarters of the minimum RTT that the floor adds to it (spec 4.6).
    explicit ReorderWindow(TimeNs ackDelay, uint32_t floorRttQuarters = 1);

    /// One acknowledgement came `lateness` ns after a later-sent packet's round trip.
    void Sample(TimeNs lateness);

    /// The window for a connection whose minimum RTT is `minRtt` and smoothed RTT `srtt`.
    TimeNs Window(TimeNs minRtt, TimeNs srtt) const;

    /// The floor's quarters of the minimum RTT from now on (spec 4.6, A47).
    void SetFloorRttQuarters(uint32_t quarters)
    {
        m_floorRttQuarters = quarters;
    }

    uint32_t FloorRttQuarters() const
    {
        return m_floorRttQuarters;
    }

    /// From now on the window is at least `halves` halves of the smoothed RTT (0: no such
    /// bound; spec 4.6, A49).
    void SetSrttHalvesAtLeast(uint32_t halves)
    {
        m_srttHalvesAtLeast = halves;
    }

    uint32_t SrttHalvesAtLeast() const
    {
        return m_srttHalvesAtLeast;
    }

    TimeNs SmoothedLateness() const
    {
        return m_smoothed;
    }

  private:
    TimeNs m_ackDelay;
    uint32_t m_floorRttQuarters;
    TimeNs m_smoothed;
    TimeNs m_deviation;
    uint32_t m_srttHalvesAtLeast{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_REORDER_WINDOW_H
