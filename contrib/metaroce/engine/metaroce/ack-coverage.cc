#include "ack-coverage.h"

namespace metaroce
{

bool
AckCoverage::NoneSackedFrom(uint64_t fsn) const
{
    // SACK bit i names FSN cumulative + 1 + i.
    const uint64_t firstBit = fsn > cumulative ? fsn - cumulative - 1 : 0;
    return firstBit >= kSackBits || (sack >> firstBit).none();
}

std::optional<AckCoverage>
ReadAck(const MrHeader& ack, uint64_t nextFsn)
{
    const uint64_t cumulative = MrUnwrapFsn(ack.cumulativeFsn, nextFsn);
    if (cumulative > nextFsn)
    {
        return std::nullopt;
    }
    // Bits from (nextFsn - cumulative - 1) up name FSNs never sent.
    const uint64_t firstUnsent = nextFsn - cumulative;
    if (firstUnsent == 0 ? ack.sack.any()
                         : firstUnsent - 1 < kSackBits && (ack.sack >> (firstUnsent - 1)).any())
    {
        return std::nullopt;
    }
    return AckCoverage{cumulative, ack.sack};
}

} // namespace metaroce
