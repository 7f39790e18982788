/*
 * Structure-aware mutation for the fuzz targets (doc/reliability.md, "Fuzzing"): a real packet
 * is parsed, one header field is set to a value at the edge of its type or near its old value,
 * and the header is serialised again, so the engine sees packets that pass the parser's checks
 * but carry the extreme lengths, offsets, sequence numbers, ids and keys that flipping random
 * bytes almost never produces (four bytes of 0xff in a length field: the overflow that twelve
 * million byte-level executions missed). Optionally the placement flags are made consistent
 * with the new fields, so the mutation reaches past the parser.
 */
#ifndef METAROCE_FUZZ_FIELD_MUTATION_H
#define METAROCE_FUZZ_FIELD_MUTATION_H

#include "fuzz-input.h"
#include "metaroce-wire.h"
#include "rocev2-wire.h"

#include <cstdint>
#include <vector>

namespace metaroce_fuzz
{

/// A value for a field of `bits` bits (<= 64) that held `old`: an edge of the type, the old
/// value moved by a little, or one of its bits flipped, as the input chooses.
inline uint64_t
EdgeValue(FuzzInput& in, uint64_t old, unsigned bits)
{
    const uint64_t max = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint8_t how = in.U8();
    const uint64_t small = 1 + in.U8() % 16;
    switch (how % 10)
    {
    case 0:
        return 0;
    case 1:
        return max;
    case 2:
        return max - small + 1;
    case 3:
        return (max >> 1) + small - 8; // around half the space: the wrap-around ambiguity
    case 4:
        return (old + small) & max;
    case 5:
        return (old - small) & max;
    case 6:
        return old ^ (uint64_t{1} << (in.U8() % bits));
    case 7:
        return (old + (uint64_t{1} << (in.U8() % bits))) & max;
    case 8:
        return old * (1 + in.U8() % 4) & max; // a multiple: an MTU-aligned offset or length
    default:
        return (uint64_t{in.U32()} << 32 | in.U32()) & max;
    }
}

/// Sets one field of a MetaRoCE header chosen by the input; returns false when `bytes` is not
/// one. With `consistent`, FIRST and LAST are then set as the new offsets say.
inline bool
MutateMrField(std::vector<uint8_t>& bytes, std::size_t wire, FuzzInput& in)
{
    metaroce::MrParseResult parsed = metaroce::MrParse(bytes.data(), bytes.size(), wire);
    if (!parsed.header)
    {
        return false;
    }
    metaroce::MrHeader& h = *parsed.header;
    const std::size_t oldSize = h.Size();
    const uint8_t field = in.U8();
    switch (field % 16)
    {
    case 0:
        h.flowId = static_cast<uint16_t>(EdgeValue(in, h.flowId, 16));
        break;
    case 1:
        h.psn = static_cast<uint32_t>(EdgeValue(in, h.psn, 32));
        break;
    case 2:
        h.ackFloor = static_cast<uint32_t>(EdgeValue(in, h.ackFloor, 32));
        break;
    case 3:
        h.stream = static_cast<uint16_t>(EdgeValue(in, h.stream, 16));
        break;
    case 4:
        h.msn = static_cast<uint32_t>(EdgeValue(in, h.msn, 32));
        break;
    case 5:
        h.messageLength = static_cast<uint32_t>(EdgeValue(in, h.messageLength, 32));
        break;
    case 6:
        h.offset = static_cast<uint32_t>(EdgeValue(in, h.offset, 32));
        break;
    case 7:
        h.recvIndex = static_cast<uint32_t>(EdgeValue(in, h.recvIndex, 32));
        break;
    case 8:
        h.remoteAddr = EdgeValue(in, h.remoteAddr, 64);
        break;
    case 9:
        h.remoteKey = static_cast<uint32_t>(EdgeValue(in, h.remoteKey, 32));
        break;
    case 10:
        h.cumulativeFsn = static_cast<uint32_t>(EdgeValue(in, h.cumulativeFsn, 32));
        break;
    case 11:
        h.creditBytes = static_cast<uint32_t>(EdgeValue(in, h.creditBytes, 32));
        break;
    case 12:
        h.rateHintMbps = static_cast<uint32_t>(EdgeValue(in, h.rateHintMbps, 32));
        break;
    case 13:
        h.repeats[in.U8() % metaroce::kMrMaxAckRepeats].cumulativeFsn =
            static_cast<uint32_t>(EdgeValue(in, h.repeats[0].cumulativeFsn, 32));
        break;
    case 14:
        h.timestamp = h.echoTimestamp = EdgeValue(in, h.timestamp, 64);
        break;
    default:
        h.ceCount = static_cast<uint16_t>(EdgeValue(in, h.ceCount, 16));
        h.newCount = static_cast<uint16_t>(EdgeValue(in, h.newCount, 16));
        break;
    }
    if ((field & 0x80) != 0 &&
        (h.opcode == metaroce::MrOpcode::Write || h.opcode == metaroce::MrOpcode::Send))
    {
        // Flags as a sender would set them for these fields, so the packet passes MrParse.
        h.flags &= static_cast<uint8_t>(~(metaroce::kMrFlagFirst | metaroce::kMrFlagLast));
        h.flags |=
            (h.offset == 0 ? metaroce::kMrFlagFirst : 0) |
            (uint64_t{h.offset} + h.payloadLength == h.messageLength ? metaroce::kMrFlagLast : 0);
    }
    if (h.Size() != oldSize)
    {
        return false; // a layout change is the byte-level mutations' business
    }
    metaroce::MrSerialize(h, bytes.data());
    return true;
}

/// Sets one field of a RoCEv2 packet's headers chosen by the input; returns false when `bytes`
/// is not one.
inline bool
MutateIbField(std::vector<uint8_t>& bytes, std::size_t wire, FuzzInput& in)
{
    metaroce::IbParseResult parsed = metaroce::IbParse(bytes.data(), bytes.size(), wire);
    if (!parsed.packet)
    {
        return false;
    }
    metaroce::IbPacket& p = *parsed.packet;
    switch (in.U8() % 7)
    {
    case 0:
        p.bth.psn = static_cast<uint32_t>(EdgeValue(in, p.bth.psn, 24));
        break;
    case 1:
        p.bth.destQpn = static_cast<uint32_t>(EdgeValue(in, p.bth.destQpn, 24));
        break;
    case 2:
        p.reth.va = EdgeValue(in, p.reth.va, 64);
        break;
    case 3:
        p.reth.rkey = static_cast<uint32_t>(EdgeValue(in, p.reth.rkey, 32));
        break;
    case 4:
        p.reth.dmaLength = static_cast<uint32_t>(EdgeValue(in, p.reth.dmaLength, 32));
        break;
    case 5:
        p.aeth.msn = static_cast<uint32_t>(EdgeValue(in, p.aeth.msn, 24));
        break;
    default:
        p.aeth.syndrome = static_cast<uint8_t>(EdgeValue(in, p.aeth.syndrome, 8));
        break;
    }
    const metaroce::HeaderBytes header = metaroce::IbSerializeHeader(p.bth, p.reth, p.aeth);
    std::copy(header.data(), header.data() + header.size(), bytes.begin());
    return true;
}

} // namespace metaroce_fuzz

#endif // METAROCE_FUZZ_FIELD_MUTATION_H
