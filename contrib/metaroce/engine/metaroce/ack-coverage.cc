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

} // namespace metaroce
