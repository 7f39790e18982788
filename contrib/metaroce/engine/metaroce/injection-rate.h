/*
 * A NIC's injection rate: the share of its line rate at which it lets DATA onto its ports, cut
 * when the ACKs of all its connections together report CE marks (spec 9.7; assumption A58).
 *
 * A connection's windows bind only when it has more to send than they hold. A collective over a
 * thousand peers gives each connection a few dozen packets, sent one per turn of the NIC's
 * round-robin, hundreds of microseconds apart: its windows never hold it back, a cut of them
 * changes nothing, and the NIC sends at its line rate whatever the fabric says. Where hashing
 * loads some fabric links beyond their rate, their queues grow without bound (doc/results.md
 * section 8: megabytes at 1,024 hosts). The NIC as a whole can still react: it hears an ACK
 * every few hundred nanoseconds. This class runs DCTCP's control law on the NIC's aggregate:
 * per round trip (the NIC's smoothed RTT, at least kInjectionRoundMinNs) the share of
 * acknowledged packets that were marked, F, updates alpha <- (1 - g) alpha + g F (g = 1/16);
 * a round with marks cuts the rate to rate x (1 - alpha / 2), then every round adds
 * kInjectionIncrease of the line rate, as DCTCP's window grows by a packet each round trip; the
 * rate stays within [kInjectionMinShare, 1]. A NIC hears marks in almost every round, so the
 * increase cannot wait for a clean one: the rate falls only where alpha / 2 of it is more than
 * the increase, about 3% of its packets marked at the line rate. Below that (the few marks of a
 * fabric's bursts) it stays at the line rate.
 *
 * It reacts to marks anywhere on the NIC's traffic: one connection into an incast cuts every
 * connection's rate by its share of the NIC's marks. That is why it is off by default and meant
 * for wide collectives, where every connection meets the same fabric.
 */
#ifndef METAROCE_ENGINE_INJECTION_RATE_H
#define METAROCE_ENGINE_INJECTION_RATE_H

#include "../common/engine-types.h"

#include <cstdint>

namespace metaroce
{

/// The shortest round of the control law: a NIC whose RTT estimate is shorter (or absent) still
/// waits this long between two changes of its rate (A58).
constexpr TimeNs kInjectionRoundMinNs = 8'000;
/// DCTCP's gain g of the marked share's moving average (A58).
constexpr double kInjectionGain = 1.0 / 16;
/// What every round adds, as a share of the line rate (A58): from half the line rate back to
/// all of it in 32 rounds without marks.
constexpr double kInjectionIncrease = 1.0 / 64;
/// The least share of its line rate a NIC keeps (A58).
constexpr double kInjectionMinShare = 1.0 / 16;

/// A NIC's DATA injection rate from its connections' CE marks (see the file comment).
class InjectionRate
{
  public:
    /// An ACK of any connection of the NIC acknowledged `packets`, `marked` of them CE-marked,
    /// at `now`; `roundNs`: the NIC's smoothed RTT (0: none yet). Ends the round when it is over.
    void OnAck(uint32_t packets, uint32_t marked, TimeNs now, TimeNs roundNs);

    /// The share of its line rate at which the NIC may send DATA, in (0, 1].
    double Share() const
    {
        return m_share;
    }

    /// The moving average of the marked share (DCTCP's alpha).
    double Alpha() const
    {
        return m_alpha;
    }

    /// Rounds that ended with marks (each cut the rate once).
    uint64_t Cuts() const
    {
        return m_cuts;
    }

  private:
    TimeNs m_roundEnd{0}; ///< 0: no round yet
    uint64_t m_packets{0};
    uint64_t m_marked{0};
    double m_alpha{0};
    double m_share{1};
    uint64_t m_cuts{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_INJECTION_RATE_H
