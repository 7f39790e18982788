/*
 * Why a MetaRoceSwitch drops a packet: the reasons' one table (enum value, the name the Drop
 * trace, GetDropCount() and the result files' "switch-<name>" use, and what it means). The
 * rows are the engine's ReasonInfo (engine-drop-reasons.h); doc/spec.md covers the transports
 * only, so no switch reason has a spec name.
 */
#ifndef METAROCE_SWITCH_DROP_REASONS_H
#define METAROCE_SWITCH_DROP_REASONS_H

#include "ns3/engine-drop-reasons.h"

#include <cstdint>

namespace ns3
{

/// Why the switch dropped a packet; kSwitchDropReasons names and explains each.
enum class MetaRoceDropReason : uint8_t
{
    NO_ROUTE,
    PORT_DOWN,
    BUFFER_FULL,
    PORT_LIMIT,
    MALFORMED,
    COUNT,
};

/// The switch's drop reasons, indexed by MetaRoceDropReason.
inline constexpr metaroce::ReasonTable<MetaRoceDropReason, size_t(MetaRoceDropReason::COUNT)>
    kSwitchDropReasons = {{
        {MetaRoceDropReason::NO_ROUTE,
         "no-route",
         nullptr,
         "no forwarding entry for the destination"},
        {MetaRoceDropReason::PORT_DOWN,
         "port-down",
         nullptr,
         "the ingress or every egress candidate is down, or flushed at link down"},
        {MetaRoceDropReason::BUFFER_FULL,
         "buffer-full",
         nullptr,
         "the shared buffer has no room for the packet"},
        {MetaRoceDropReason::PORT_LIMIT,
         "port-limit",
         nullptr,
         "the egress queue is over its dynamic threshold"},
        {MetaRoceDropReason::MALFORMED,
         "malformed",
         nullptr,
         "not an IPv4 datagram the switch can parse"},
    }};
static_assert(metaroce::InEnumOrder(kSwitchDropReasons),
              "kSwitchDropReasons: one row per MetaRoceDropReason, in order");

} // namespace ns3

#endif // METAROCE_SWITCH_DROP_REASONS_H
