/*
 * RoCEv2 wire format: the InfiniBand transport headers carried in a UDP datagram to port 4791
 * (spec: RoCEv2 baseline; IBA vol. 1 ch. 9 "Transport layer" and annex A17 "RoCEv2").
 *
 * A RoCEv2 UDP payload is laid out as follows (all fields big-endian):
 *
 *   BTH (12) | extension header (RETH 16, AETH 4, CNP reserved 16, or none) | payload | pad | ICRC
 *
 * BTH, base transport header:
 *   0  u8   opcode
 *   1  u8   SE (bit 7) | M (bit 6) | PadCnt (bits 5-4) | TVer (bits 3-0, = 0)
 *   2  u16  P_Key
 *   4  u8   reserved (RoCEv2 carries FECN/BECN in the IP ECN bits instead)
 *   5  u24  destination QP number
 *   8  u8   AckReq (bit 7) | reserved (bits 6-0)
 *   9  u24  PSN
 * RETH (RDMA extended header, WRITE FIRST/ONLY): u64 virtual address, u32 R_Key, u32 DMA length.
 * AETH (ACK extended header, ACKNOWLEDGE): u8 syndrome, u24 MSN.
 * CNP (annex A17, congestion notification): BTH with opcode 0x81, PSN 0, followed by 16 reserved
 * bytes.
 *
 * Payload is padded to a multiple of 4 bytes (PadCnt says how many pad bytes there are), and
 * every packet ends with the 4-byte invariant CRC. The ICRC is part of the wire here: it is
 * counted in every size (so serialization delay and buffer occupancy are those of real
 * RoCEv2) and carried as zero bytes. It is not computed because it covers fields of the IP and
 * UDP headers that a sans-I/O engine never sees, and not checked: corruption is modelled below
 * the transport (a corrupted frame is a lost frame), or, where a driver flags a packet as
 * corrupted (RxPacket::corrupted: the ns-3 NIC's CorruptionModel), refused as BadCrc, which is
 * what the ICRC would catch.
 *
 * Opcodes are data: kIbOpcodes gives, for each supported opcode, its property mask and header
 * size, so code asks `info.mask & kIbHasReth` rather than listing opcodes. Only the RC opcodes a
 * WRITE/SEND transport needs are supported; everything else is refused as BadOpcode.
 */
#ifndef METAROCE_ENGINE_ROCEV2_WIRE_H
#define METAROCE_ENGINE_ROCEV2_WIRE_H

#include "../common/engine-counters.h"
#include "../common/engine-types.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace metaroce
{

/// IANA UDP destination port of RoCEv2.
constexpr uint16_t kRoceV2UdpPort = 4791;

/// Header sizes (IBA ch. 9, base and extended transport headers; CNP: annex A17).
constexpr std::size_t kIbBthSize = 12;
constexpr std::size_t kIbRethSize = 16;
constexpr std::size_t kIbAethSize = 4;
constexpr std::size_t kIbCnpReservedSize = 16;
constexpr std::size_t kIbIcrcSize = 4;

/// QP numbers and PSNs are 24-bit on the wire.
constexpr uint32_t kIb24BitMask = 0xFFFFFF;
/// The default partition key (full member of the default partition).
constexpr uint16_t kIbDefaultPKey = 0xFFFF;
/// The largest message a RETH DMA length (and an RC SEND) can describe: 2^31 bytes (IBA ch. 9).
constexpr uint64_t kIbMaxMessageSize = uint64_t{1} << 31;

/// The supported BTH opcodes: reliable-connected SEND and RDMA WRITE, ACKNOWLEDGE, and CNP.
enum class IbOpcode : uint8_t
{
    RcSendFirst = 0x00,
    RcSendMiddle = 0x01,
    RcSendLast = 0x02,
    RcSendOnly = 0x04,
    RcWriteFirst = 0x06,
    RcWriteMiddle = 0x07,
    RcWriteLast = 0x08,
    RcWriteOnly = 0x0A,
    RcAcknowledge = 0x11,
    Cnp = 0x81,
};

/// Opcode properties (the `mask` of IbOpcodeInfo).
constexpr uint16_t kIbHasReth = 0x0001;    ///< a RETH follows the BTH
constexpr uint16_t kIbHasAeth = 0x0002;    ///< an AETH follows the BTH
constexpr uint16_t kIbHasCnpPad = 0x0004;  ///< 16 reserved bytes follow the BTH
constexpr uint16_t kIbHasPayload = 0x0008; ///< carries message bytes
constexpr uint16_t kIbFirst = 0x0010;      ///< first packet of a message (also set for ONLY)
constexpr uint16_t kIbMiddle = 0x0020;     ///< neither first nor last
constexpr uint16_t kIbLast = 0x0040;       ///< last packet of a message (also set for ONLY)
constexpr uint16_t kIbSend = 0x0080;       ///< part of a SEND
constexpr uint16_t kIbWrite = 0x0100;      ///< part of an RDMA WRITE
constexpr uint16_t kIbRequest = 0x0200;    ///< requester-to-responder, consumes a PSN
constexpr uint16_t kIbAck = 0x0400;        ///< ACK or NAK, responder-to-requester
constexpr uint16_t kIbCnp = 0x0800;        ///< congestion notification (DCQCN)

/// One row of the opcode table.
struct IbOpcodeInfo
{
    IbOpcode opcode;
    const char* name;
    uint16_t mask;
    uint8_t headerSize; ///< BTH plus extension headers, excluding payload, pad and ICRC
};

/// Looks up a BTH opcode byte; returns nullptr when it is not supported.
const IbOpcodeInfo* IbLookupOpcode(uint8_t opcode);

/// The data opcode for a packet of a WRITE or a SEND at a given position in its message.
IbOpcode IbDataOpcode(bool write, bool first, bool last);

/// Base transport header.
struct IbBth
{
    IbOpcode opcode{IbOpcode::RcSendOnly};
    bool solicited{false};
    bool migReq{false};
    uint8_t padCount{0}; ///< 0..3
    uint8_t tver{0};     ///< transport header version, 0 for this IBA release
    uint16_t pKey{kIbDefaultPKey};
    uint32_t destQpn{0}; ///< 24-bit
    bool ackReq{false};
    uint32_t psn{0}; ///< 24-bit
};

/// RDMA extended transport header.
struct IbReth
{
    uint64_t va{0};
    uint32_t rkey{0};
    uint32_t dmaLength{0};
};

/// ACK extended transport header.
struct IbAeth
{
    uint8_t syndrome{0};
    uint32_t msn{0}; ///< 24-bit message sequence number
};

/// AETH syndrome types, bits 6-5 of the syndrome (IBA ch. 9.7, AETH syndrome encoding).
enum class IbAethType : uint8_t
{
    Ack = 0,
    RnrNak = 1,
    Reserved = 2,
    Nak = 3,
};

/// NAK codes, bits 4-0 of a NAK syndrome (IBA ch. 9.7, AETH syndrome encoding).
enum class IbNakCode : uint8_t
{
    PsnSequenceError = 0,
    InvalidRequest = 1,
    RemoteAccessError = 2,
    RemoteOperationalError = 3,
};

/// An ACK syndrome; credit field 0x1F means "no credit information" (end-to-end flow control off).
uint8_t IbAckSyndrome();
/// A NAK syndrome with the given code.
uint8_t IbNakSyndrome(IbNakCode code);
/// An RNR NAK syndrome advertising the given RNR timer code (0..31).
uint8_t IbRnrNakSyndrome(uint8_t timerCode);
/// The type of a syndrome.
IbAethType IbSyndromeType(uint8_t syndrome);
/// The low five bits of a syndrome: credit count, RNR timer code or NAK code.
uint8_t IbSyndromeValue(uint8_t syndrome);

/// The delay an RNR timer code stands for (IBA ch. 9.7, RNR timer encoding), in nanoseconds.
TimeNs IbRnrTimerNs(uint8_t timerCode);

/// Number of pad bytes that bring a payload to a multiple of 4.
uint8_t IbPadCount(uint32_t payloadLength);

/// Bytes after the header: payload, pad and ICRC.
uint32_t IbTrailedSize(uint32_t payloadLength);

/**
 * Serializes the headers of `bth.opcode`: the BTH and, as the opcode table says, the RETH, the
 * AETH or the CNP reserved bytes. Extension headers the opcode does not carry are ignored.
 */
HeaderBytes IbSerializeHeader(const IbBth& bth, const IbReth& reth, const IbAeth& aeth);

/// A parsed packet. `payload` points at the message bytes in real-payload mode, else nullptr.
struct IbPacket
{
    const IbOpcodeInfo* info{nullptr};
    IbBth bth;
    IbReth reth;
    IbAeth aeth;
    uint32_t payloadLength{0};
    const uint8_t* payload{nullptr};
};

/// Result of IbParse: the packet, or the reason for refusing it.
struct IbParseResult
{
    std::optional<IbPacket> packet;
    DropReason reason{DropReason::Count};
};

/**
 * Parses a UDP payload of `wireSize` bytes, of which the first `size` are in `data` (all of them
 * in real-payload mode, at least the headers otherwise). Refuses, with the reason:
 *   - Truncated: fewer bytes than the BTH or the opcode's headers, or a wire size below
 *     headers + ICRC;
 *   - BadOpcode: an unsupported opcode; BadVersion: TVer != 0;
 *   - BadField: more bytes given than the wire size, a padded payload that is not a multiple of
 *     4 or smaller than PadCnt, a payload on a packet that carries none, pad on a FIRST/MIDDLE
 *     packet, an empty LAST packet, a RETH length that contradicts the packet, a reserved AETH
 *     syndrome type.
 * Connection-specific checks (destination QP, P_Key, MTU, PSN) belong to the queue pair.
 */
IbParseResult IbParse(const uint8_t* data, std::size_t size, std::size_t wireSize);

/// Reads the destination QP number from a BTH, for demultiplexing; nullopt when too short.
std::optional<uint32_t> IbPeekDestQpn(const uint8_t* data, std::size_t size);

/**
 * Signed distance from the 64-bit PSN `reference` to the 24-bit wire PSN `wire`, in
 * [-2^23, 2^23): 0 when `wire` is the low 24 bits of `reference`, positive when ahead. PSNs are
 * 64-bit inside the engine and never wrap; only this function sees the 24-bit wire space.
 */
int64_t IbPsnDelta(uint32_t wire, uint64_t reference);

} // namespace metaroce

#endif // METAROCE_ENGINE_ROCEV2_WIRE_H
