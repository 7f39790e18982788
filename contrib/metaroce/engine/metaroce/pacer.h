/*
 * Pacing of a requester's DATA at the receiver's rate hint (spec 9.4).
 *
 * Pacing applies when the configuration honours rate hints and a hint has arrived, at
 * min(aggregate line rate, hint); at the line rate nothing is paced. Each paced DATA packet
 * moves the release time on by its serialisation time at that rate. A pull before the release
 * time sends no DATA, and while a pull is held back the release time is a deadline of the
 * requester. The credit rule, a token bucket: a connection that has not sent for a while (the
 * NIC served other queue pairs, or it had nothing to send) may send up to Burst() packets at
 * once besides the one due, so lateness does not add up to a rate below the hint. The bucket holds
 * at least one packet per port (one burst, spec 6.2): the NIC's round-robins offer a queue pair
 * each of its ports about once per turn, all within a few hundred nanoseconds, and a smaller bucket
 * turns each turn into fewer packets than ports, a fraction of the hint (spec 9.4). Unpaced packets
 * empty the bucket too, so a new hint arriving at a sender that is sending is not met with a burst.
 * The gate is connection-wide across ports: the hint is the receiver's share for this sender as a
 * whole. ACKs, NAKs and PROBEs are never paced.
 */
#ifndef METAROCE_ENGINE_PACER_H
#define METAROCE_ENGINE_PACER_H

#include "../common/engine-types.h"

#include <cstdint>

namespace metaroce
{

/// The least a paced connection that was served late may send early to catch up (spec 9.4).
constexpr TimeNs kPacingCreditPackets = 4;

/// The DATA gate of one requester.
class Pacer
{
  public:
    enum class State : uint8_t
    {
        Unpaced,  ///< the last DATA packet went at line rate, at ReleaseAt()
        Paced,    ///< the last DATA packet was paced: the next is released at ReleaseAt()
        HeldBack, ///< paced, and the latest pull came before ReleaseAt(): a deadline
    };

    /// `lineRateBps`: all ports together; `honourRateHint`: pace at the hint at all;
    /// `packetsPerTurn`: what the NIC takes in one turn of the connection's ports, a burst
    /// (spec 6.2) per port (the bucket holds at least that many).
    Pacer(uint64_t lineRateBps, bool honourRateHint, uint16_t packetsPerTurn);

    /// Packets a connection idle long enough may send back to back at a paced rate besides the
    /// one due.
    TimeNs Burst() const
    {
        return m_burstPackets;
    }

    /// The receiver's latest rate hint (bits/s); 0: none.
    void SetRateHint(uint64_t bps)
    {
        m_rateHintBps = bps;
    }

    uint64_t RateHintBps() const
    {
        return m_rateHintBps;
    }

    /// Whether DATA may go at `now`; a pull held back makes the release time a deadline.
    bool MayRelease(TimeNs now);

    /// A DATA packet of `wireBytes` left at `now`: schedules the release of the next one.
    void OnSent(uint64_t wireBytes, TimeNs now);

    /// The release time while a pull waits for it and it lies after `latest`; else kNever.
    TimeNs Deadline(TimeNs latest) const;

    State GetState() const
    {
        return m_state;
    }

    TimeNs ReleaseAt() const
    {
        return m_releaseAt;
    }

  private:
    /// The pacing rate: the line rate, or the hint when it is honoured and lower.
    uint64_t RateBps() const;

    uint64_t m_lineRateBps;
    bool m_honourRateHint;
    TimeNs m_burstPackets;
    uint64_t m_rateHintBps{0};
    State m_state{State::Unpaced};
    TimeNs m_releaseAt{0}; ///< paced: the next packet's release; unpaced: the last send
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PACER_H
