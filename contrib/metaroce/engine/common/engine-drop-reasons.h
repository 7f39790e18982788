/*
 * Why a packet was refused, one table per layer. Each row gives a reason's enum value, the name
 * result files and drop traces use ("fsn-out-of-window"), the name doc/spec.md uses
 * ("FsnOutOfWindow", spec 5.8 and 10.6) and what it means; nothing else spells a reason.
 *
 *   kDropReasons      the engines' refusals (DropReason, counted in Counters::drops)
 *   kNicDropReasons   what a NIC drops before any engine sees it (NicDropReason); its spec
 *                     name is the engine refusal it amounts to, which the compliance suite
 *                     counts it as (doc/compliance.md, "Adapters")
 *
 * The switch's reasons, which the spec does not cover, are a third table of the same row type
 * (MetaRoceSwitch, metaroce-switch-drop-reasons.h).
 */
#ifndef METAROCE_ENGINE_DROP_REASONS_H
#define METAROCE_ENGINE_DROP_REASONS_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace metaroce
{

/// Why an engine refused an incoming packet (spec 5.8, 10.6); kDropReasons explains each.
enum class DropReason : uint8_t
{
    Truncated,
    BadVersion,
    BadOpcode,
    WrongConnection,
    BadField,
    FsnOutOfWindow,
    AckOutOfWindow,
    AccessError,
    NoReceivePosted,
    Duplicate,
    OutOfSequence,
    PortDown,
    BadCrc,
    Count
};

/// Why a NIC dropped a packet before handing it to an engine; kNicDropReasons explains each.
enum class NicDropReason : uint8_t
{
    PortDown,
    NotUdp,
    UnknownDestination,
    Count
};

/// One row of a reason table.
template<typename Reason>
struct ReasonInfo
{
    Reason reason;
    const char* name;     ///< in result files and drop traces: "fsn-out-of-window"
    const char* specName; ///< as doc/spec.md spells it ("FsnOutOfWindow"); nullptr: not in it
    const char* meaning;  ///< one line, for documentation and reports
};

/// A reason table: one row per enum value (`N` of them), in enum order.
template<typename Reason, std::size_t N = static_cast<std::size_t>(Reason::Count)>
using ReasonTable = std::array<ReasonInfo<Reason>, N>;

/// True when row i of `table` describes enum value i (checked at compile time below).
template<typename Reason, std::size_t N>
constexpr bool
InEnumOrder(const ReasonTable<Reason, N>& table)
{
    for (std::size_t i = 0; i < table.size(); ++i)
    {
        if (static_cast<std::size_t>(table[i].reason) != i)
        {
            return false;
        }
    }
    return true;
}

/// The row of `table` whose name (or, with `spec`, spec name) is `name`; nullptr if none.
template<typename Reason, std::size_t N>
const ReasonInfo<Reason>*
FindReason(const ReasonTable<Reason, N>& table, std::string_view name, bool spec = false)
{
    for (const ReasonInfo<Reason>& row : table)
    {
        const char* candidate = spec ? row.specName : row.name;
        if (candidate != nullptr && name == candidate)
        {
            return &row;
        }
    }
    return nullptr;
}

/// The engines' refusals, indexed by DropReason.
inline constexpr ReasonTable<DropReason> kDropReasons = {{
    {DropReason::Truncated,
     "truncated",
     "Truncated",
     "shorter than its header, or its declared payload"},
    {DropReason::BadVersion, "bad-version", "BadVersion", "unknown protocol version"},
    {DropReason::BadOpcode, "bad-opcode", "BadOpcode", "unknown or unexpected opcode"},
    {DropReason::WrongConnection,
     "wrong-connection",
     "WrongConnection",
     "destination connection / QP is not this one"},
    {DropReason::BadField,
     "bad-field",
     "BadField",
     "a field has an impossible value (length > MTU, bad offset, ...)"},
    {DropReason::FsnOutOfWindow,
     "fsn-out-of-window",
     "FsnOutOfWindow",
     "data FSN beyond the receive window"},
    {DropReason::AckOutOfWindow,
     "ack-out-of-window",
     "AckOutOfWindow",
     "ACK for FSNs never sent, or SACK bits beyond what was sent"},
    {DropReason::AccessError,
     "access-error",
     "AccessError",
     "placement outside a registered region or with a bad key"},
    {DropReason::NoReceivePosted,
     "no-receive-posted",
     "NoReceivePosted",
     "SEND data with no matching RECV (receiver not ready)"},
    {DropReason::Duplicate,
     "duplicate",
     "Duplicate",
     "already received (counted, re-acknowledged, not re-placed)"},
    {DropReason::OutOfSequence,
     "out-of-sequence",
     "OutOfSequence",
     "RoCEv2 only: PSN ahead of the expected one (go-back-N drops it)"},
    {DropReason::PortDown, "port-down", "PortDown", "arrived on a port the engine believes down"},
    {DropReason::BadCrc,
     "bad-crc",
     "BadCrc",
     "mCRC trailer disagrees with the packet's bytes, or the packet was corrupted on its way"},
}};
static_assert(InEnumOrder(kDropReasons), "kDropReasons: one row per DropReason, in order");

/// The NIC's own drops, indexed by NicDropReason.
inline constexpr ReasonTable<NicDropReason> kNicDropReasons = {{
    {NicDropReason::PortDown, "port-down", "PortDown", "arrived on a port the NIC has down"},
    {NicDropReason::NotUdp,
     "not-udp",
     nullptr,
     "not an IPv4/UDP datagram, so no transport packet at all"},
    {NicDropReason::UnknownDestination,
     "unknown-destination",
     "WrongConnection",
     "no queue pair of the NIC has the packet's destination connection / QP"},
}};
static_assert(InEnumOrder(kNicDropReasons), "kNicDropReasons: one row per NicDropReason");

/// Name of an engine drop reason in results and traces ("?" out of range).
const char* DropReasonName(DropReason reason);

/// Name of a NIC drop reason in traces ("?" out of range).
const char* NicDropReasonName(NicDropReason reason);

/// The engine drop reason doc/spec.md calls `specName`, if any.
std::optional<DropReason> DropReasonBySpecName(std::string_view specName);

} // namespace metaroce

#endif // METAROCE_ENGINE_DROP_REASONS_H
