/*
 * MetaRoCE wire format (spec section 5, "Wire format"): the project's own design, since the
 * public material does not give Meta's. Every packet is a UDP datagram to port 4792 (assumption
 * A1) whose payload starts with one of the headers below; layouts are data (kMrOpcodes), not
 * code, so the parser and the serializer cannot drift apart.
 *
 * Common part, all opcodes (16 bytes, big-endian):
 *   0  u8   version (high nibble, = 1) | opcode (low nibble)
 *   1  u8   flags (kMrFlag*)
 *   2  u16  flow id: the sender's logical flow, whose FSN space this packet belongs to
 *   4  u32  destination connection id
 *   8  u32  DATA/PROBE: flow FSN        ACK: cumulative FSN (next expected on the flow)
 *   NAK: stream (u16) | syndrome (u16)
 *  12  u32  DATA/PROBE: flow ack floor  ACK: fair-share rate hint (Mb/s, 0 = none)
 *           NAK: message sequence number
 * DATA (WRITE, SEND) continue with (SEND: 48 bytes in all, WRITE: 64):
 *  16  u16  stream id            18 u16 reserved (0)
 *  20  u32  message sequence number within the stream (WRITE and SEND share it)
 *  24  u32  message length       28 u32 offset of this packet within the message
 *  32  u32  payload length       36 u32 SEND: receive index (which RECV it fills); WRITE: 0
 *  40  u64  sender timestamp (ns), echoed in the ACK for RTT samples
 *  48  u64  WRITE only: remote virtual address of this packet's first byte
 *  56  u32  WRITE only: remote key            60 u32 reserved (0)
 * PROBE continues with 40 u64 timestamp at offset 16 (24 bytes in all).
 * ACK continues with (64 bytes, then 8 per repeat):
 *  16  u64  echoed timestamp    24 u16 CE-marked packets since the last ACK
 *  26  u16  packets newly received since the last ACK
 *  28  u32  admission credit: bytes the receiver lets this sender have in flight (0 = none)
 *  32  256-bit SACK bitvector: bit i (byte i/8, bit i%8 from the least significant) set when
 *       FSN cumulative+1+i has been received.
 *  64  repeats, as many as the datagram holds (at most 4): u16 flow, u16 its first 16 SACK
 *       bits, u32 its cumulative FSN, as the latest ACK of that flow said them.
 *  An ACK whose SACK is empty may leave it out (flag NOSACK, 0x20): its repeats then start at
 *  32 (32 bytes, then 8 per repeat).
 * With the optional mCRC (spec 4.1, mcrc.h) every datagram ends with a 4-byte trailer; the
 * connection checks and removes it before MrParse sees the packet, so nothing here knows of it.
 */
#ifndef METAROCE_ENGINE_METAROCE_WIRE_H
#define METAROCE_ENGINE_METAROCE_WIRE_H

#include "../common/engine-counters.h"
#include "../common/header-bytes.h"

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace metaroce
{

/// UDP destination port of MetaRoCE (assumption A1; RoCEv2 owns 4791).
constexpr uint16_t kMetaRoceUdpPort = 4792;
/// Protocol version carried in every header.
constexpr uint8_t kMetaRoceVersion = 1;
/// Width of the SACK bitvector, and so of a flow's send window in packets (spec 5.3).
constexpr std::size_t kSackBits = 256;

/// MetaRoCE opcodes (the low nibble of byte 0).
enum class MrOpcode : uint8_t
{
    Write = 1,
    Send = 2,
    Ack = 3,
    Probe = 4,
    Nak = 5,
};

/// Flags (byte 1).
constexpr uint8_t kMrFlagFirst = 0x01;  ///< DATA: first packet of the message
constexpr uint8_t kMrFlagLast = 0x02;   ///< DATA: last packet of the message
constexpr uint8_t kMrFlagRetx = 0x04;   ///< DATA: retransmission of earlier data
constexpr uint8_t kMrFlagAckReq = 0x08; ///< DATA/PROBE: acknowledge at once
constexpr uint8_t kMrFlagEce = 0x10;    ///< ACK: some acknowledged packet was CE-marked
/// ACK: the SACK is empty and left out, repeats follow the admission credit (spec 5.3).
constexpr uint8_t kMrFlagNoSack = 0x20;

/// Opcode properties (kMrOp*), so code asks `info.mask & kMrOpData` instead of listing opcodes.
constexpr uint8_t kMrOpData = 0x01;       ///< carries payload and placement
constexpr uint8_t kMrOpSequenced = 0x02;  ///< consumes a flow FSN and is acknowledged
constexpr uint8_t kMrOpRemoteAddr = 0x04; ///< carries remote address and key (WRITE)
constexpr uint8_t kMrOpControl = 0x08;    ///< receiver-to-sender feedback

/// NAK syndromes.
enum class MrNakSyndrome : uint16_t
{
    RemoteAccess = 1,   ///< WRITE outside a registered region, or bad key
    InvalidRequest = 2, ///< SEND larger than the matched RECV buffer
};

/// One row of the opcode table.
struct MrOpcodeInfo
{
    MrOpcode opcode;
    const char* name;
    uint8_t mask;
    uint8_t headerSize; ///< ACK: the smallest (no SACK, no repeats)
};

/// The opcode table; returns nullptr for an unknown opcode.
const MrOpcodeInfo* MrLookupOpcode(uint8_t opcode);

/// Header sizes.
constexpr std::size_t kMrCommonSize = 16;
constexpr std::size_t kMrSendHeaderSize = 48;
constexpr std::size_t kMrWriteHeaderSize = 64;
constexpr std::size_t kMrProbeHeaderSize = 24;
constexpr std::size_t kMrAckHeaderSize = 64; ///< with its SACK, without repeats (8 bytes each)
constexpr std::size_t kMrAckNoSackSize = 32; ///< with kMrFlagNoSack: the SACK left out
constexpr std::size_t kMrNakHeaderSize = 16;
/// Largest DATA header: what windows and credit count per packet beside its payload (7.1).
constexpr std::size_t kMrMaxDataHeaderSize = 64;

/// ACK repeats (spec 5.3, 4.2): earlier ACKs of other flows, carried again behind the SACK.
constexpr std::size_t kMrMaxAckRepeats = 4;
constexpr std::size_t kMrAckRepeatSize = 8;
/// SACK bits a repeat carries: FSNs cumulative+1 .. cumulative+16.
constexpr std::size_t kMrAckRepeatSackBits = 16;

constexpr std::size_t kMrMaxHeaderSize = kMrAckHeaderSize + kMrMaxAckRepeats * kMrAckRepeatSize;

/// Where an ACK's repeats start: behind its SACK, or behind the admission credit when the
/// SACK is left out (spec 5.3).
constexpr std::size_t
MrAckRepeatsOffset(uint8_t flags)
{
    return (flags & kMrFlagNoSack) != 0 ? kMrAckNoSackSize : kMrAckHeaderSize;
}

static_assert(kMrMaxHeaderSize <= HeaderBytes::kCapacity, "a packet's header bytes are inline");

/// One repeated ACK: a flow's cumulative FSN and its first SACK bits, as an earlier ACK sent them.
struct MrAckRepeat
{
    uint16_t flowId{0};
    uint16_t sack{0}; ///< bit i: FSN cumulativeFsn + 1 + i was received (i < 16)
    uint32_t cumulativeFsn{0};
};

/// A parsed or to-be-serialized MetaRoCE header. Which fields matter depends on the opcode.
struct MrHeader
{
    MrOpcode opcode{MrOpcode::Send};
    uint8_t flags{0};
    uint16_t flowId{0};
    uint32_t connection{0};
    // DATA and PROBE
    uint32_t fsn{0};
    uint32_t ackFloor{0};
    uint16_t stream{0};
    uint32_t msn{0};
    uint32_t messageLength{0};
    uint32_t offset{0};
    uint32_t payloadLength{0};
    uint32_t recvIndex{0};
    uint64_t timestamp{0};
    uint64_t remoteAddr{0};
    uint32_t remoteKey{0};
    // ACK
    uint32_t cumulativeFsn{0};
    uint32_t rateHintMbps{0};
    uint64_t echoTimestamp{0};
    uint16_t ceCount{0};
    uint16_t newCount{0};
    uint32_t creditBytes{0};     ///< receiver admission (spec 8.5); 0 = no limit
    std::bitset<kSackBits> sack; ///< left out on the wire when empty and flags has NoSack
    uint8_t repeatCount{0};      ///< repeats[0 .. repeatCount) are on the wire, latest first
    std::array<MrAckRepeat, kMrMaxAckRepeats> repeats{};
    // NAK (stream and msn above)
    MrNakSyndrome syndrome{MrNakSyndrome::RemoteAccess};

    /// Size of this header on the wire.
    std::size_t Size() const;
};

/// Writes the header into `out` (at least Size() bytes); returns the number of bytes written.
std::size_t MrSerialize(const MrHeader& h, uint8_t* out);

/**
 * Parses and validates a header from a UDP payload of `wireSize` bytes, of which `size` are
 * available in `data`. Returns the header, or the reason for refusing it: truncation, unknown
 * version or opcode, non-zero reserved fields, a payload length that disagrees with the datagram,
 * placement fields that contradict each other (offset beyond the message, FIRST/LAST flags that
 * do not match the offset). Connection-specific checks (MTU, windows) belong to the engine.
 */
struct MrParseResult
{
    std::optional<MrHeader> header;
    DropReason reason{DropReason::Count};
};

MrParseResult MrParse(const uint8_t* data, std::size_t size, std::size_t wireSize);

/// The SACK bitvector as four 64-bit words, bit i of the vector = bit i%64 of word i/64.
using SackWords = std::array<uint64_t, kSackBits / 64>;

/// Converts between the bitvector and its words (word-at-a-time, for the per-ACK flows).
std::bitset<kSackBits> SackFromWords(const SackWords& words);
SackWords SackToWords(const std::bitset<kSackBits>& sack);

/**
 * Widens a 32-bit wire FSN to the 64-bit value closest to `reference` (spec 2.5: sequence numbers
 * are 64-bit inside the engine and never wrap; the wire carries their low 32 bits). Inline: every
 * packet unwraps two or three.
 */
inline uint64_t
MrUnwrapFsn(uint32_t wire, uint64_t reference)
{
    // The candidate with the same low 32 bits as `wire` nearest to `reference`.
    const uint64_t base = reference & ~uint64_t{0xffffffff};
    uint64_t candidate = base | wire;
    constexpr uint64_t kHalf = uint64_t{1} << 31;
    if (candidate > reference + kHalf && candidate >= (uint64_t{1} << 32))
    {
        candidate -= uint64_t{1} << 32;
    }
    else if (candidate + kHalf < reference)
    {
        candidate += uint64_t{1} << 32;
    }
    return candidate;
}

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_WIRE_H
