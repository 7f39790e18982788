#include "ack-coverage.h"

namespace metaroce
{

bool
AckCoverage::NoneSackedFrom(uint64_t psn) const
{
    // SACK bit i names PSN cumulative + 1 + i.
    const uint64_t firstBit = psn > cumulative ? psn - cumulative - 1 : 0;
    return firstBit >= kSackBits || (sack >> firstBit).none();
}

std::optional<AckCoverage>
ReadAck(const MrHeader& ack, uint64_t nextPsn)
{
    const uint64_t cumulative = MrUnwrapPsn(ack.cumulativePsn, nextPsn);
    if (cumulative > nextPsn)
    {
        return std::nullopt;
    }
    // Bits from (nextPsn - cumulative - 1) up name PSNs never sent.
    const uint64_t firstUnsent = nextPsn - cumulative;
    if (firstUnsent == 0 ? ack.sack.any()
                         : firstUnsent - 1 < kSackBits && (ack.sack >> (firstUnsent - 1)).any())
    {
        return std::nullopt;
    }
    return AckCoverage{cumulative, ack.sack};
}

std::vector<std::size_t>
NewlyAcked(const Deque<SentPacket>& outstanding, const AckCoverage& ack)
{
    std::vector<std::size_t> acked;
    for (std::size_t i = 0; i < outstanding.size(); ++i)
    {
        const SentPacket& p = outstanding[i];
        if (p.state != SentPacket::State::Acked && ack.Covers(p.psn))
        {
            acked.push_back(i);
        }
    }
    return acked;
}

} // namespace metaroce
