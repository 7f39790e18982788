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

namespace
{

std::optional<AckCoverage>
Read(uint32_t cumulativePsn, const std::bitset<kSackBits>& sack, uint64_t nextPsn)
{
    const uint64_t cumulative = MrUnwrapPsn(cumulativePsn, nextPsn);
    if (cumulative > nextPsn)
    {
        return std::nullopt;
    }
    // Bits from (nextPsn - cumulative - 1) up name PSNs never sent.
    const uint64_t firstUnsent = nextPsn - cumulative;
    if (firstUnsent == 0 ? sack.any()
                         : firstUnsent - 1 < kSackBits && (sack >> (firstUnsent - 1)).any())
    {
        return std::nullopt;
    }
    return AckCoverage{cumulative, sack};
}

} // namespace

std::optional<AckCoverage>
ReadAck(const MrHeader& ack, uint64_t nextPsn)
{
    return Read(ack.cumulativePsn, ack.sack, nextPsn);
}

} // namespace metaroce
