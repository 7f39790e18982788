/*
 * Receiver admission (spec 6.7; assumption A36): the credit a responder puts in its ACKs, the
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
 * once. Without the ramp, the first senders of an incast, seen while few others had arrived,
 * would be granted most of the budget before the split could shrink their shares.
 */
#ifndef METAROCE_ENGINE_ADMISSION_CREDIT_H
#define METAROCE_ENGINE_ADMISSION_CREDIT_H

#include <algorithm>
#include <cstdint>

namespace metaroce
{

/// A requester's admission limit when neither an unscheduled window nor a credit applies.
constexpr uint64_t kNoAdmissionLimit = UINT64_MAX;

/// The admission credit one responder grants its sender (spec 6.7).
class AdmissionCredit
{
  public:
    /// `packetBytes`: a full packet on the wire (MTU + largest header), the smallest credit.
    explicit AdmissionCredit(uint64_t packetBytes)
        : m_packet(packetBytes)
        , m_granted(packetBytes)
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
        m_granted = std::min(m_target, m_granted + uint64_t{freshPackets} * m_packet);
        m_granted = std::max(m_granted, m_packet);
        return static_cast<uint32_t>(std::min<uint64_t>(m_granted, UINT32_MAX));
    }

  private:
    uint64_t m_packet;
    uint64_t m_granted; ///< the credit of the latest ACK, the ramp's starting point
    uint64_t m_target{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ADMISSION_CREDIT_H
