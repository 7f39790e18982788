/*
 * The mCRC: MetaRoCE's bit-error check (MetaRoCE 1.0 section 4.1 "Bit Error Detection (mCRC)",
 * whose text is not public; doc/spec.md 4.1 gives our assumption A60).
 *
 * Our assumption: a 4-byte trailer at the end of the UDP payload, CRC-32C (Castagnoli: reflected
 * polynomial 0x1EDC6F41, initial value and final XOR 0xFFFFFFFF) over every byte before it, the
 * MetaRoCE header and the payload, stored big-endian. It covers no IP or UDP field (those have
 * their own checksums, and a transport check that never depends on them survives NAT and
 * re-encapsulation). A trailer, as RoCEv2's ICRC and Ethernet's FCS, because a sender computes
 * it while the packet streams out and a receiver while it streams in, with no field to zero.
 *
 * It is optional (MetaRoceConfig::mcrc, attribute Mcrc, off by default): with it on, every packet
 * a connection sends carries the trailer and every packet it receives must carry a correct one,
 * else it is refused as BadCrc before any field of it is believed. The computation uses
 * Boost.CRC; a virtual payload (no bytes, only a size) is covered as the zeros a driver puts on
 * the wire for it. A driver that carries no bytes at all (the simulator's virtual payloads) says
 * instead that a packet was corrupted on its way (RxPacket::corrupted), and the check refuses it.
 */
#ifndef METAROCE_ENGINE_METAROCE_MCRC_H
#define METAROCE_ENGINE_METAROCE_MCRC_H

#include "../common/engine-drop-reasons.h"
#include "../common/engine-types.h"

#include <cstddef>
#include <cstdint>

namespace metaroce
{

/// Size of the mCRC trailer on the wire.
constexpr std::size_t kMcrcSize = 4;

/// CRC-32C of `size` bytes at `data` followed by `zeros` zero bytes (a virtual payload).
uint32_t McrcCompute(const uint8_t* data, std::size_t size, std::size_t zeros = 0);

/**
 * Appends the trailer to a packet about to leave: computes the mCRC over its header and payload
 * (a virtual payload is first made real, as zeros, so that every driver sends the bytes the CRC
 * covers) and puts it behind the payload; the packet's wire size grows by kMcrcSize.
 */
void McrcAppend(OutPacket& out);

/**
 * Checks and removes the trailer of an arriving packet: `pkt` loses the trailer from its sizes.
 * Returns DropReason::Count when the packet may go on, Truncated when it is too short to hold a
 * trailer, BadCrc when the trailer disagrees with the bytes (all of them given: size ==
 * wireSize) or the driver flagged the packet as corrupted (a virtual payload, unchecked bytes).
 */
DropReason McrcCheck(RxPacket& pkt);

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_MCRC_H
