/*
 * Counters every engine keeps, and the named reasons for refusing a packet.
 *
 * A refused packet is never trusted and never changes protocol state: the engine only counts it
 * under its reason (spec section "Validation"), so a capture plus the counters always explain
 * where every packet went.
 */
#ifndef METAROCE_ENGINE_COUNTERS_H
#define METAROCE_ENGINE_COUNTERS_H

#include <array>
#include <cstdint>

namespace metaroce
{

/// Why an incoming packet was refused. Keep kDropReasonNames in step.
enum class DropReason : uint8_t
{
    Truncated,       ///< shorter than its header, or its declared payload
    BadVersion,      ///< unknown protocol version
    BadOpcode,       ///< unknown or unexpected opcode
    WrongConnection, ///< destination connection / QP is not this one
    BadField,        ///< a field has an impossible value (length > MTU, bad offset, ...)
    PsnOutOfWindow,  ///< data PSN beyond the receive window
    AckOutOfWindow,  ///< ACK for PSNs never sent, or SACK bits beyond what was sent
    AccessError,     ///< placement outside a registered region or with a bad key
    NoReceivePosted, ///< SEND data with no matching RECV (receiver not ready)
    Duplicate,       ///< already received (counted, re-acknowledged, not re-placed)
    OutOfSequence,   ///< RoCEv2 only: PSN ahead of the expected one (go-back-N drops it)
    PortDown,        ///< arrived on a port the engine believes down
    Count
};

/// Names of the drop reasons, indexed by DropReason.
extern const std::array<const char*, static_cast<std::size_t>(DropReason::Count)> kDropReasonNames;

/// Printable name of a drop reason.
const char* DropReasonName(DropReason reason);

/// Per-connection counters. Plain data: drivers copy and export them.
struct Counters
{
    uint64_t txPackets{0};
    uint64_t txBytes{0};
    uint64_t txDataPackets{0};
    uint64_t txControlPackets{0};
    uint64_t retransmittedPackets{0};
    uint64_t rxPackets{0};
    uint64_t rxBytes{0};
    uint64_t rxDataPackets{0};
    uint64_t rxControlPackets{0};
    uint64_t rxEcnMarked{0};
    uint64_t placedBytes{0};
    uint64_t timeouts{0};
    uint64_t fastRetransmits{0};
    uint64_t tailProbes{0};     ///< tail-loss probes sent (also in retransmittedPackets)
    uint64_t spuriousLosses{0}; ///< packets declared lost whose original arrived after all
    uint64_t entropyRedraws{0};
    uint64_t pathsDown{0};
    uint64_t completions{0};
    std::array<uint64_t, static_cast<std::size_t>(DropReason::Count)> drops{};

    void CountDrop(DropReason reason)
    {
        ++drops[static_cast<std::size_t>(reason)];
    }

    uint64_t Drops(DropReason reason) const
    {
        return drops[static_cast<std::size_t>(reason)];
    }

    uint64_t TotalDrops() const;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_COUNTERS_H
