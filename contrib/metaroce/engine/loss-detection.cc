#include "loss-detection.h"

#include <algorithm>

namespace metaroce
{

LossVerdict
DetectLosses(const std::deque<SentPacket>& outstanding,
             uint32_t reorderTolerance,
             TimeNs reorderWindow,
             TimeNs now)
{
    LossVerdict verdict;
    // Walk from the newest packet back, remembering the highest acknowledged PSN of the epoch
    // being walked and the latest send time of any acknowledged packet seen so far.
    bool epochAcked = false;
    uint64_t epochMaxAckedPsn = 0;
    uint32_t epoch = outstanding.empty() ? 0 : outstanding.back().epoch;
    bool anyAcked = false;
    TimeNs latestAckedSentAt = 0;
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
                epochMaxAckedPsn = p.psn;
            }
            anyAcked = true;
            latestAckedSentAt = std::max(latestAckedSentAt, p.sentAt);
            continue;
        }
        if (p.state != SentPacket::State::InFlight)
        {
            continue;
        }
        const std::size_t index = outstanding.size() - 1 - (it - outstanding.rbegin());
        bool sequenceGap = epochAcked && epochMaxAckedPsn > p.psn + reorderTolerance;
#ifdef METAROCE_MUTATION_NO_SACK_RETRANSMIT
        // A deliberate defect, compiled only by the compliance suite's mutation check
        // (test/compliance/mutation-check.sh): rule 1 never fires, so a SACK gap no longer
        // triggers the immediate retransmission of spec 5.3/5.4, and the suite must notice.
        sequenceGap = false;
#endif
        if (sequenceGap)
        {
            verdict.lost.push_back(index);
        }
        else if (anyAcked && latestAckedSentAt > p.sentAt)
        {
            const TimeNs deadline = p.sentAt + reorderWindow;
            if (now >= deadline)
            {
                verdict.lost.push_back(index);
            }
            else
            {
                verdict.nextCheck = std::min(verdict.nextCheck, deadline);
            }
        }
    }
    std::reverse(verdict.lost.begin(), verdict.lost.end());
    return verdict;
}

} // namespace metaroce
