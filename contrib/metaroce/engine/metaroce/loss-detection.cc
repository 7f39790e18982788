#include "loss-detection.h"

#include <algorithm>

namespace metaroce
{

void
RackState::OnAcked(const SentPacket& p, TimeNs now)
{
    // Every transmission has its own FSN, so the round trip is never ambiguous (no Karn rule).
    if (valid && p.txSeq <= txSeq)
    {
        return;
    }
    valid = true;
    txSeq = p.txSeq;
    rtt = now > p.sentAt ? now - p.sentAt : 0;
}

TimeNs
LossDeadline(const SentPacket& p, const RackState& rack, TimeNs reorderWindow, TimeNs flowRtt)
{
    // A PROBE carries no data and travels in the control class; the time rule leaves it alone
    // (a Down flow's probe must stay in flight until answered or superseded, spec 4.5).
    return p.message == kProbeMessage ? kNever
                                      : rack.Deadline(p.sentAt, p.txSeq, reorderWindow, flowRtt);
}

TimeNs
TimeRule::Deadline(const SentPacket& p) const
{
    return LossDeadline(p, connection, connectionWindow, flowRtt);
}

LossVerdict
DetectLosses(const Ring<SentPacket>& outstanding,
             uint32_t reorderTolerance,
             const TimeRule& rule,
             TimeNs now)
{
    LossVerdict verdict;
    // Walk from the newest packet back, remembering the highest acknowledged FSN of the epoch
    // being walked.
    bool epochAcked = false;
    uint64_t epochMaxAckedFsn = 0;
    uint32_t epoch = outstanding.empty() ? 0 : outstanding.back().epoch;
    for (auto it = outstanding.rbegin(); it != outstanding.rend(); ++it)
    {
        const SentPacket& p = *it;
        if (p.epoch != epoch)
        {
            epoch = p.epoch;
            epochAcked = false;
        }
        if (p.state == SentPacket::State::Acked)
        {
            if (!epochAcked)
            {
                epochAcked = true;
                epochMaxAckedFsn = p.fsn;
            }
            continue;
        }
        if (p.state != SentPacket::State::InFlight)
        {
            continue;
        }
        const std::size_t index = outstanding.size() - 1 - (it - outstanding.rbegin());
        bool sequenceGap = epochAcked && epochMaxAckedFsn > p.fsn + reorderTolerance;
#ifdef METAROCE_MUTATION_NO_SACK_RETRANSMIT
        // A deliberate defect, compiled only by the compliance suite's mutation check
        // (test/compliance/mutation-check.sh): rule 1 never fires, so a SACK gap no longer
        // triggers the immediate retransmission of spec 4.6/7.3, and the suite must notice.
        sequenceGap = false;
#endif
        const TimeNs deadline = rule.Deadline(p);
        if (sequenceGap || now >= deadline)
        {
            verdict.lost.push_back(index);
            verdict.proven.push_back(sequenceGap);
        }
        else
        {
            verdict.nextCheck = std::min(verdict.nextCheck, deadline);
        }
    }
    std::reverse(verdict.lost.begin(), verdict.lost.end());
    std::reverse(verdict.proven.begin(), verdict.proven.end());
    return verdict;
}

} // namespace metaroce
