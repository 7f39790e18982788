/*
 * Receiver admission (spec 8.5; assumption A36): the credit a responder puts in its ACKs, the
 * bytes it lets its sender have in flight towards it.
 *
 * Rate hints arrive with the first ACK, after every sender of an incast has sent its first
 * window: 63 senders with 128 KiB each queue 8 MB ahead of the receiver before any hint can
 * act. Receiver-driven admission bounds that queue instead of reacting to it: a sender sends an
 * unscheduled first window (MetaRoceConfig::unscheduledBytes), then only what the receiver's
 * latest credit allows. The driver, which knows how many senders are active, sets the target,
 * an equal split of its admission budget; this class turns the target into the credit of each
 * ACK. A credit grows by at most one packet per packet newly received (so from one packet it
 * doubles per round trip, like a slow start run by the receiver) and falls to the target at
 * once. The ramp starts from the unscheduled window: a sender limited to one packet before its
 * first ACK is not granted a whole share by it (the first senders of an incast, seen while few
 * others had arrived, would be granted most of the budget before the split could shrink their
 * shares). A sender without an unscheduled limit has already sent its windows' worth, so there
 * is nothing to ramp from and its first credit is the target: a ramp from one packet would
 * hold back short flows that no incast threatens (an all-to-all's, doc/results.md section 5).
 */
#ifndef METAROCE_ENGINE_ADMISSION_CREDIT_H
#define METAROCE_ENGINE_ADMISSION_CREDIT_H

#include <algorithm>
#include <cstdint>

namespace metaroce
{

/// A requester's admission limit when neither an unscheduled window nor a credit applies.
constexpr uint64_t kNoAdmissionLimit = UINT64_MAX;

/// The admission credit one responder grants its sender (spec 8.5).
class AdmissionCredit
{
  public:
    /// `packetBytes`: a full packet on the wire (MTU + largest header), the smallest credit;
    /// `unscheduledBytes`: the sender's window before its first ACK (0: none but its windows),
    /// where the ramp starts.
    AdmissionCredit(uint64_t packetBytes, uint64_t unscheduledBytes)
        : m_packet(packetBytes)
        , m_granted(unscheduledBytes == 0 ? UINT64_MAX : std::max(packetBytes, unscheduledBytes))
    {
    }

    /// The share of the receiver's budget for this sender (bytes); 0: no admission.
    void SetTarget(uint64_t bytes)
    {
        m_target = bytes;
    }

    uint64_t Target() const
    {
        return m_target;
    }

    /// The credit for the next ACK, which reports `freshPackets` new arrivals (0: none).
    uint32_t Next(uint32_t freshPackets)
    {
        if (m_target == 0)
        {
            return 0;
        }
        const uint64_t growth = uint64_t{freshPackets} * m_packet;
        const uint64_t grown = m_granted > UINT64_MAX - growth ? UINT64_MAX : m_granted + growth;
        m_granted = std::max(std::min(m_target, grown), m_packet);
        return static_cast<uint32_t>(std::min<uint64_t>(m_granted, UINT32_MAX));
    }

  private:
    uint64_t m_packet;
    /// The credit of the latest ACK, the ramp's starting point (UINT64_MAX: none yet and no
    /// ramp, the first credit is the target).
    uint64_t m_granted;
    uint64_t m_target{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ADMISSION_CREDIT_H
