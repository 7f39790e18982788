/*
 * Packets as data for the compliance scenarios: building the packets a scenario injects and
 * decoding the packets the DUT emits into named fields, with the engine's own wire code
 * (metaroce-wire.h, rocev2-wire.h) so there is one definition of each layout.
 *
 * Field names are the spec's (5.2-5.5 for MetaRoCE, 8.2 for RoCEv2), spelled as the wire
 * structs spell them: flowId, connection, psn, ackFloor, stream, msn, messageLength, offset,
 * payloadLength, recvIndex, timestamp, remoteAddr, remoteKey, cumulativeFsn, rateHint,
 * echoTimestamp, ceCount, newCount, credit, sack, syndrome; RoCEv2: se, migReq, padCount, tver,
 * pKey, destQpn, ackReq, psn, va, rkey, dmaLength, syndrome, msn. Every packet also has port,
 * sport, dport and wireSize (UDP payload bytes).
 *
 * Decoding, the field vocabulary and the counter names are in packet-codec.cc, building in
 * packet-builder.cc.
 */
#ifndef METAROCE_COMPLIANCE_PACKET_CODEC_H
#define METAROCE_COMPLIANCE_PACKET_CODEC_H

#include "compliance-adapter.h"
#include "metaroce-wire.h"
#include "rocev2-wire.h"

#include <bitset>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace metaroce::compliance
{

/// A packet as named fields.
struct DecodedPacket
{
    std::string opcode;                                   ///< "WRITE", "RC_ACKNOWLEDGE", ...
    std::vector<std::pair<std::string, uint64_t>> fields; ///< in wire order
    std::optional<std::bitset<kSackBits>> sack;           ///< MetaRoCE ACK only
    std::string parseError;                               ///< set when the bytes do not parse
    std::vector<uint8_t> bytes;                           ///< the UDP payload
    TimeNs time{0};

    std::optional<uint64_t> Get(const std::string& name) const;
    /// "ACK port=0 sport=49152 ... sack={0,2}" (for reports).
    std::string ToString() const;
};

/// The MetaRoCE opcode called `name` ("WRITE", ...), or nullptr.
const MrOpcodeInfo* MetaOpcodeByName(const std::string& name);

/// The RoCEv2 opcode called `name` ("RC_SEND_ONLY", ...), or nullptr.
const IbOpcodeInfo* RoceOpcodeByName(const std::string& name);

/// Decodes an emitted packet of `transport`; with `mcrc` (spec 4.1) its last 4 bytes are the
/// trailer and are left out of the decoding (not checked: the engine adapter emits a virtual
/// payload, trailer included, as zeros). `wireSize` is the datagram's, trailer included.
DecodedPacket Decode(Transport transport, const WirePacket& pkt, bool mcrc = false);

/// True when `opcode` names a packet of `transport`.
bool IsOpcode(Transport transport, const std::string& opcode);

/// True when `field` exists on packets of `opcode` (including port, sport, dport, wireSize).
bool IsField(Transport transport, const std::string& opcode, const std::string& field);

/// Fields only an injection has: ce (IP CE mark), datagram (resize the UDP payload to N bytes).
bool IsInjectOnlyField(const std::string& field);

/**
 * Reads a value written for `field`: flags by name (FIRST|LAST|ACKREQ, or a number), time
 * fields with units (timestamp=10us), anything else as a number. Throws std::invalid_argument.
 */
uint64_t ParseFieldValue(const std::string& field, const std::string& text);

/// Parses a SACK set "{0,2,5-9}" (bit indices) or "{}".
std::bitset<kSackBits> ParseSack(const std::string& text);

/// Renders a SACK as "{0,2,5-9}".
std::string FormatSack(const std::bitset<kSackBits>& sack);

/// Byte patches written "@offset=value", applied after serialisation.
using BytePatches = std::vector<std::pair<std::size_t, uint8_t>>;

/**
 * Builds the UDP payload of a packet to inject from resolved field values, starting from
 * defaults a compliant peer would use (version 1, the DUT's connection, FIRST/LAST/ACKREQ from
 * offset and length, payloadLength from messageLength and the MTU). `datagram`, when set,
 * truncates or zero-extends the result; `patches` then overwrite single bytes. Throws
 * std::invalid_argument on a missing or impossible field.
 */
WirePacket Build(const DutSetup& setup,
                 const std::string& opcode,
                 const std::map<std::string, uint64_t>& values,
                 const std::optional<std::bitset<kSackBits>>& sack,
                 const BytePatches& patches,
                 TimeNs now);

/// Counter names: the Counters fields, and drops.<DropReason> with the spec's reason names.
std::optional<uint64_t> CounterValue(const Counters& c, const std::string& name);
/// Every counter name, for error messages.
std::vector<std::string> CounterNames();

/// Spec names of completion statuses and opcodes (Success, RemoteAccessError, ...; WRITE...).
std::optional<CompletionStatus> ParseStatus(const std::string& text);
const char* StatusName(CompletionStatus status);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_PACKET_CODEC_H
