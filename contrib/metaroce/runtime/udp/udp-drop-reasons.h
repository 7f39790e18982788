/*
 * Why the UDP driver dropped a datagram before its engine saw it: the runtime's own reasons,
 * in a table of the engine's row type (engine-drop-reasons.h) but apart from the engine's
 * DropReason, which names what an engine refuses.
 *
 * A plane accepts datagrams from its peer only: the peer's IPv4 address on that plane and the
 * UDP source ports its setup announced (its main port and its path-entropy range, see
 * PlaneEndpoint). Anything else is dropped, counted here, and never parsed by the engine.
 */
#ifndef METAROCE_RUNTIME_UDP_DROP_REASONS_H
#define METAROCE_RUNTIME_UDP_DROP_REASONS_H

#include "engine-drop-reasons.h"

#include <array>
#include <cstdint>

namespace metaroce::udp
{

/// Why the driver dropped a datagram before the engine (kUdpDropReasons explains each).
enum class UdpDropReason : uint8_t
{
    ForeignAddress,
    ForeignPort,
    Count
};

/// The driver's drops, indexed by UdpDropReason.
inline constexpr ReasonTable<UdpDropReason> kUdpDropReasons = {{
    {UdpDropReason::ForeignAddress,
     "foreign-address",
     nullptr,
     "from an IPv4 address other than the plane's peer"},
    {UdpDropReason::ForeignPort,
     "foreign-port",
     nullptr,
     "from the peer's address, but a UDP source port its setup did not announce"},
}};
static_assert(InEnumOrder(kUdpDropReasons), "kUdpDropReasons: one row per UdpDropReason");

/// Counts per reason, indexed by UdpDropReason.
using UdpDropCounts = std::array<uint64_t, static_cast<std::size_t>(UdpDropReason::Count)>;

/// Name of a driver drop reason in reports ("foreign-address"; "?" out of range).
inline const char*
UdpDropReasonName(UdpDropReason reason)
{
    const auto i = static_cast<std::size_t>(reason);
    return i < kUdpDropReasons.size() ? kUdpDropReasons[i].name : "?";
}

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_UDP_DROP_REASONS_H
