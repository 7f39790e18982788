/*
 * What an ACK acknowledges on a path (spec 3.4, 5.2), as pure functions of the ACK and of what
 * the path has sent.
 *
 * An ACK names a cumulative PSN (the next one the receiver expects) and a 256-bit SACK whose
 * bit i is PSN cumulative+1+i. It is valid only when it claims no PSN the path never sent: the
 * cumulative point at most the path's next PSN, and no SACK bit at or beyond it (refused as
 * AckOutOfWindow, changing nothing). A valid ACK covers every PSN below its cumulative point
 * and every PSN whose bit is set; a stale ACK says nothing about PSNs beyond its 256 bits.
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

/// The PSNs of one path a valid ACK acknowledges.
struct AckCoverage
{
    uint64_t cumulative;         ///< unwrapped: every PSN below it has been resolved
    std::bitset<kSackBits> sack; ///< bit i: PSN cumulative + 1 + i arrived

    /// True when the SACK names `psn`.
    bool Sacked(uint64_t psn) const
    {
        return psn > cumulative && psn - cumulative - 1 < kSackBits && sack[psn - cumulative - 1];
    }

    /// True when the ACK acknowledges `psn`: below the cumulative point or SACKed.
    bool Covers(uint64_t psn) const
    {
        return psn < cumulative || Sacked(psn);
    }

    /// True when no SACK bit names a PSN at or above `psn`.
    bool NoneSackedFrom(uint64_t psn) const;
};

/**
 * Reads `ack` for a path whose next PSN is `nextPsn`: its coverage, or nullopt when it
 * acknowledges PSNs never sent (spec 5.2, validation).
 */
std::optional<AckCoverage> ReadAck(const MrHeader& ack, uint64_t nextPsn);

/// The same checks for one of an ACK's repeats (spec 3.4): its unwrapped cumulative PSN, or
/// nullopt when it or one of its 16 SACK bits names a PSN never sent. The coverage itself is
/// made only for the rare repeat that brings news (AckRepeatCoverage()). Inline, on 16 bits:
/// every ACK carries two repeats, most of them no news.
inline std::optional<uint64_t>
ReadAckRepeat(const MrAckRepeat& repeat, uint64_t nextPsn)
{
    const uint64_t cumulative = MrUnwrapPsn(repeat.cumulativePsn, nextPsn);
    const uint64_t firstUnsent = cumulative <= nextPsn ? nextPsn - cumulative : 0;
    if (cumulative > nextPsn || (firstUnsent == 0 ? repeat.sack != 0
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
