/*
 * Counters every engine keeps, and the one list of them (kCounterFields) that every consumer
 * derives names and sums from: the compliance scenarios' counter names, Counters::operator+=
 * and the experiment's results.
 *
 * A refused packet is never trusted and never changes protocol state: the engine only counts it
 * under its reason (spec 5.8, "Validation"), so a capture plus the counters always explain
 * where every packet went. The reasons are in engine-drop-reasons.h.
 */
#ifndef METAROCE_ENGINE_COUNTERS_H
#define METAROCE_ENGINE_COUNTERS_H

#include "engine-drop-reasons.h"

#include <array>
#include <cstdint>

namespace metaroce
{

/// Per-connection counters (spec 1.3). Plain data: drivers copy, sum and export them.
struct Counters
{
    uint64_t txPackets{0};
    uint64_t txBytes{0};
    uint64_t txDataPackets{0};
    uint64_t txControlPackets{0};
    uint64_t txAcks{0}; ///< ACKs sent (also in txControlPackets; spec 4.2)
    uint64_t retransmittedPackets{0};
    uint64_t rxPackets{0};
    uint64_t rxBytes{0};
    uint64_t rxDataPackets{0};
    uint64_t rxControlPackets{0};
    uint64_t rxEcnMarked{0};
    uint64_t placedBytes{0};
    uint64_t timeouts{0};
    uint64_t rtoDeferrals{0}; ///< RTOs that came due while better evidence was coming (5.5)
    uint64_t fastRetransmits{0};
    uint64_t tailProbes{0};     ///< tail-loss probes sent (also in retransmittedPackets)
    uint64_t tailMarkers{0};    ///< tail markers sent (5.5; also in txControlPackets)
    uint64_t spuriousLosses{0}; ///< packets declared lost whose original arrived after all
    uint64_t ackRepeatHits{0};  ///< ACK repeats that acknowledged something (5.2, 6.4)
    uint64_t entropyRedraws{0};
    uint64_t flowsDown{0};
    uint64_t completions{0};
    std::array<uint64_t, static_cast<std::size_t>(DropReason::Count)> drops{}; ///< by DropReason

    void CountDrop(DropReason reason)
    {
        ++drops[static_cast<std::size_t>(reason)];
    }

    uint64_t Drops(DropReason reason) const
    {
        return drops[static_cast<std::size_t>(reason)];
    }

    uint64_t TotalDrops() const;

    /// Adds every counter of `other` (each field of kCounterFields, and every drop reason).
    Counters& operator+=(const Counters& other);
};

/// One scalar field of Counters: its name (the member's, as compliance scenarios write it).
struct CounterField
{
    const char* name;
    uint64_t Counters::*member;
};

/// Every scalar field of Counters, in declaration order; Counters::drops is the only other one.
inline constexpr std::array<CounterField, 22> kCounterFields = {{
    {"txPackets", &Counters::txPackets},
    {"txBytes", &Counters::txBytes},
    {"txDataPackets", &Counters::txDataPackets},
    {"txControlPackets", &Counters::txControlPackets},
    {"txAcks", &Counters::txAcks},
    {"retransmittedPackets", &Counters::retransmittedPackets},
    {"rxPackets", &Counters::rxPackets},
    {"rxBytes", &Counters::rxBytes},
    {"rxDataPackets", &Counters::rxDataPackets},
    {"rxControlPackets", &Counters::rxControlPackets},
    {"rxEcnMarked", &Counters::rxEcnMarked},
    {"placedBytes", &Counters::placedBytes},
    {"timeouts", &Counters::timeouts},
    {"rtoDeferrals", &Counters::rtoDeferrals},
    {"fastRetransmits", &Counters::fastRetransmits},
    {"tailProbes", &Counters::tailProbes},
    {"tailMarkers", &Counters::tailMarkers},
    {"spuriousLosses", &Counters::spuriousLosses},
    {"ackRepeatHits", &Counters::ackRepeatHits},
    {"entropyRedraws", &Counters::entropyRedraws},
    {"flowsDown", &Counters::flowsDown},
    {"completions", &Counters::completions},
}};
// A field added to Counters but not to the list would be missed by every sum and export.
static_assert(sizeof(Counters) == sizeof(uint64_t) * (kCounterFields.size() + kDropReasons.size()),
              "kCounterFields must list every scalar field of Counters");

} // namespace metaroce

#endif // METAROCE_ENGINE_COUNTERS_H
