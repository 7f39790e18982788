/*
 * What an ACK acknowledges on a flow (spec 5.3, 7.2), as pure functions of the ACK and of what
 * the flow has sent.
 *
 * An ACK names a cumulative FSN (the next one the receiver expects) and a 256-bit SACK whose
 * bit i is FSN cumulative+1+i. It is valid only when it claims no FSN the flow never sent: the
 * cumulative point at most the flow's next FSN, and no SACK bit at or beyond it (refused as
 * AckOutOfWindow, changing nothing). A valid ACK covers every FSN below its cumulative point
 * and every FSN whose bit is set; a stale ACK says nothing about FSNs beyond its 256 bits.
 */
#ifndef METAROCE_ENGINE_ACK_COVERAGE_H
#define METAROCE_ENGINE_ACK_COVERAGE_H

#include "loss-detection.h"
#include "metaroce-wire.h"

#include <bitset>
#include <cstdint>
#include <optional>

namespace metaroce
{

/// The FSNs of one flow a valid ACK acknowledges.
struct AckCoverage
{
    uint64_t cumulative;         ///< unwrapped: every FSN below it has been resolved
    std::bitset<kSackBits> sack; ///< bit i: FSN cumulative + 1 + i arrived

    /// True when the SACK names `fsn`.
    bool Sacked(uint64_t fsn) const
    {
        return fsn > cumulative && fsn - cumulative - 1 < kSackBits && sack[fsn - cumulative - 1];
    }

    /// True when the ACK acknowledges `fsn`: below the cumulative point or SACKed.
    bool Covers(uint64_t fsn) const
    {
        return fsn < cumulative || Sacked(fsn);
    }

    /// True when no SACK bit names a FSN at or above `fsn`.
    bool NoneSackedFrom(uint64_t fsn) const;
};

/**
 * Reads `ack` for a flow whose next FSN is `nextFsn`: its coverage, or nullopt when it
 * acknowledges FSNs never sent (spec 7.2, validation).
 */
std::optional<AckCoverage> ReadAck(const MrHeader& ack, uint64_t nextFsn);

/// The same checks for one of an ACK's repeats (spec 5.3): its unwrapped cumulative FSN, or
/// nullopt when it or one of its 16 SACK bits names a FSN never sent. The coverage itself is
/// made only for the rare repeat that brings news (AckRepeatCoverage()). Inline, on 16 bits:
/// every ACK carries two repeats, most of them no news.
inline std::optional<uint64_t>
ReadAckRepeat(const MrAckRepeat& repeat, uint64_t nextFsn)
{
    const uint64_t cumulative = MrUnwrapFsn(repeat.cumulativeFsn, nextFsn);
    const uint64_t firstUnsent = cumulative <= nextFsn ? nextFsn - cumulative : 0;
    if (cumulative > nextFsn || (firstUnsent == 0 ? repeat.sack != 0
                                                  : firstUnsent - 1 < kMrAckRepeatSackBits &&
                                                        (repeat.sack >> (firstUnsent - 1)) != 0))
    {
        return std::nullopt;
    }
    return cumulative;
}

inline AckCoverage
AckRepeatCoverage(uint64_t cumulative, const MrAckRepeat& repeat)
{
    return AckCoverage{cumulative, std::bitset<kSackBits>(repeat.sack)};
}

} // namespace metaroce

#endif // METAROCE_ENGINE_ACK_COVERAGE_H
