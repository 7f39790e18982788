#include "metaroce-wire.h"

#include <boost/endian/conversion.hpp>

namespace metaroce
{

namespace
{

using boost::endian::load_big_u16;
using boost::endian::load_big_u32;
using boost::endian::load_big_u64;
using boost::endian::store_big_u16;
using boost::endian::store_big_u32;
using boost::endian::store_big_u64;

const MrOpcodeInfo kMrOpcodes[] = {
    {MrOpcode::Write,
     "WRITE",
     kMrOpData | kMrOpSequenced | kMrOpRemoteAddr,
     static_cast<uint8_t>(kMrWriteHeaderSize)},
    {MrOpcode::Send, "SEND", kMrOpData | kMrOpSequenced, static_cast<uint8_t>(kMrSendHeaderSize)},
    {MrOpcode::Ack, "ACK", kMrOpControl, static_cast<uint8_t>(kMrAckNoSackSize)},
    {MrOpcode::Probe, "PROBE", kMrOpSequenced, static_cast<uint8_t>(kMrProbeHeaderSize)},
    {MrOpcode::Nak, "NAK", kMrOpControl, static_cast<uint8_t>(kMrNakHeaderSize)},
};

/// Flags each opcode may carry; any other bit set is malformed.
uint8_t
AllowedFlags(MrOpcode op)
{
    switch (op)
    {
    case MrOpcode::Write:
    case MrOpcode::Send:
        return kMrFlagFirst | kMrFlagLast | kMrFlagRetx | kMrFlagAckReq;
    case MrOpcode::Probe:
        return kMrFlagAckReq;
    case MrOpcode::Ack:
        return kMrFlagEce | kMrFlagNoSack;
    case MrOpcode::Nak:
        return 0;
    }
    return 0;
}

void
StoreSack(const std::bitset<kSackBits>& sack, uint8_t* out)
{
    // Bit i lives in byte i/8 at bit i%8: each 64-bit word is stored little-endian.
    const SackWords words = SackToWords(sack);
    for (std::size_t k = 0; k < words.size(); ++k)
    {
        boost::endian::store_little_u64(out + 8 * k, words[k]);
    }
}

std::bitset<kSackBits>
LoadSack(const uint8_t* in)
{
    SackWords words;
    for (std::size_t k = 0; k < words.size(); ++k)
    {
        words[k] = boost::endian::load_little_u64(in + 8 * k);
    }
    return SackFromWords(words);
}

} // namespace

std::bitset<kSackBits>
SackFromWords(const SackWords& words)
{
    // Most SACKs are empty or short (no hole, or a few FSNs past one): start at the highest
    // word in use instead of shifting all four.
    std::size_t used = words.size();
    while (used > 0 && words[used - 1] == 0)
    {
        --used;
    }
    std::bitset<kSackBits> sack;
    for (std::size_t k = used; k-- > 0;)
    {
        sack <<= 64;
        sack |= std::bitset<kSackBits>(words[k]);
    }
    return sack;
}

SackWords
SackToWords(const std::bitset<kSackBits>& sack)
{
    static const std::bitset<kSackBits> kLow64(~uint64_t{0});
    SackWords words{};
    if (sack.none())
    {
        return words; // most ACKs: nothing above the cumulative point
    }
    for (std::size_t k = 0; k < words.size(); ++k)
    {
        words[k] = ((sack >> (64 * k)) & kLow64).to_ullong();
    }
    return words;
}

const MrOpcodeInfo*
MrLookupOpcode(uint8_t opcode)
{
    for (const auto& info : kMrOpcodes)
    {
        if (static_cast<uint8_t>(info.opcode) == opcode)
        {
            return &info;
        }
    }
    return nullptr;
}

std::size_t
MrHeader::Size() const
{
    if (opcode == MrOpcode::Ack)
    {
        return MrAckRepeatsOffset(flags) + std::size_t{repeatCount} * kMrAckRepeatSize;
    }
    const MrOpcodeInfo* info = MrLookupOpcode(static_cast<uint8_t>(opcode));
    return info ? info->headerSize : 0;
}

std::size_t
MrSerialize(const MrHeader& h, uint8_t* out)
{
    const std::size_t size = h.Size();
    std::fill(out, out + size, uint8_t{0});
    out[0] = static_cast<uint8_t>(kMetaRoceVersion << 4 | static_cast<uint8_t>(h.opcode));
    out[1] = h.flags;
    store_big_u16(out + 2, h.flowId);
    store_big_u32(out + 4, h.connection);
    switch (h.opcode)
    {
    case MrOpcode::Write:
        store_big_u64(out + 48, h.remoteAddr);
        store_big_u32(out + 56, h.remoteKey);
        [[fallthrough]];
    case MrOpcode::Send:
        store_big_u32(out + 8, h.fsn);
        store_big_u32(out + 12, h.ackFloor);
        store_big_u16(out + 16, h.stream);
        store_big_u32(out + 20, h.msn);
        store_big_u32(out + 24, h.messageLength);
        store_big_u32(out + 28, h.offset);
        store_big_u32(out + 32, h.payloadLength);
        store_big_u32(out + 36, h.opcode == MrOpcode::Send ? h.recvIndex : 0);
        store_big_u64(out + 40, h.timestamp);
        break;
    case MrOpcode::Probe:
        store_big_u32(out + 8, h.fsn);
        store_big_u32(out + 12, h.ackFloor);
        store_big_u64(out + 16, h.timestamp);
        break;
    case MrOpcode::Ack:
        store_big_u32(out + 8, h.cumulativeFsn);
        store_big_u32(out + 12, h.rateHintMbps);
        store_big_u64(out + 16, h.echoTimestamp);
        store_big_u16(out + 24, h.ceCount);
        store_big_u16(out + 26, h.newCount);
        store_big_u32(out + 28, h.creditBytes);
        if ((h.flags & kMrFlagNoSack) == 0)
        {
            StoreSack(h.sack, out + 32);
        }
        for (std::size_t k = 0; k < h.repeatCount; ++k)
        {
            uint8_t* at = out + MrAckRepeatsOffset(h.flags) + k * kMrAckRepeatSize;
            store_big_u16(at, h.repeats[k].flowId);
            store_big_u16(at + 2, h.repeats[k].sack);
            store_big_u32(at + 4, h.repeats[k].cumulativeFsn);
        }
        break;
    case MrOpcode::Nak:
        store_big_u16(out + 8, h.stream);
        store_big_u16(out + 10, static_cast<uint16_t>(h.syndrome));
        store_big_u32(out + 12, h.msn);
        break;
    }
    return size;
}

namespace
{

/// The verdict of a body parser that found nothing wrong.
constexpr DropReason kWellFormed = DropReason::Count;

/// WRITE and SEND: placement fields, and that they describe a piece of one message (spec 5.2,
/// 3.9). `payload` is the number of bytes that follow the header.
DropReason
ParseDataBody(const uint8_t* data, std::size_t payload, MrHeader& h)
{
    h.fsn = load_big_u32(data + 8);
    h.ackFloor = load_big_u32(data + 12);
    h.stream = load_big_u16(data + 16);
    h.msn = load_big_u32(data + 20);
    h.messageLength = load_big_u32(data + 24);
    h.offset = load_big_u32(data + 28);
    h.payloadLength = load_big_u32(data + 32);
    h.recvIndex = load_big_u32(data + 36);
    h.timestamp = load_big_u64(data + 40);
    if (load_big_u16(data + 18) != 0 || (h.opcode == MrOpcode::Write && h.recvIndex != 0))
    {
        return DropReason::BadField;
    }
    if (h.opcode == MrOpcode::Write)
    {
        h.remoteAddr = load_big_u64(data + 48);
        h.remoteKey = load_big_u32(data + 56);
        if (load_big_u32(data + 60) != 0)
        {
            return DropReason::BadField;
        }
    }
    if (h.payloadLength != payload)
    {
        return payload < h.payloadLength ? DropReason::Truncated : DropReason::BadField;
    }
    if (h.payloadLength == 0 || h.offset >= h.messageLength ||
        h.payloadLength > h.messageLength - h.offset ||
        ((h.flags & kMrFlagFirst) != 0) != (h.offset == 0) ||
        ((h.flags & kMrFlagLast) != 0) != (h.offset + h.payloadLength == h.messageLength))
    {
        return DropReason::BadField;
    }
    return kWellFormed;
}

/// ACK: cumulative FSN, rate hint, echo, counts, admission credit, the SACK unless left out,
/// and the repeats (spec 5.3), each of another flow than the ACK's and of a flow no other
/// repeat names.
DropReason
ParseAckBody(const uint8_t* data, MrHeader& h)
{
    const std::size_t repeatsAt = MrAckRepeatsOffset(h.flags);
    for (std::size_t k = 0; k < h.repeatCount; ++k)
    {
        const uint8_t* at = data + repeatsAt + k * kMrAckRepeatSize;
        MrAckRepeat& r = h.repeats[k];
        r.flowId = load_big_u16(at);
        r.sack = load_big_u16(at + 2);
        r.cumulativeFsn = load_big_u32(at + 4);
        bool seen = r.flowId == h.flowId;
        for (std::size_t j = 0; j < k; ++j)
        {
            seen |= h.repeats[j].flowId == r.flowId;
        }
        if (seen)
        {
            return DropReason::BadField;
        }
    }
    h.cumulativeFsn = load_big_u32(data + 8);
    h.rateHintMbps = load_big_u32(data + 12);
    h.echoTimestamp = load_big_u64(data + 16);
    h.ceCount = load_big_u16(data + 24);
    h.newCount = load_big_u16(data + 26);
    h.creditBytes = load_big_u32(data + 28);
    if ((h.flags & kMrFlagNoSack) == 0)
    {
        h.sack = LoadSack(data + 32);
    }
    return kWellFormed;
}

/// NAK: the failed message and a known syndrome (spec 5.5).
DropReason
ParseNakBody(const uint8_t* data, MrHeader& h)
{
    h.stream = load_big_u16(data + 8);
    const uint16_t syndrome = load_big_u16(data + 10);
    if (syndrome != static_cast<uint16_t>(MrNakSyndrome::RemoteAccess) &&
        syndrome != static_cast<uint16_t>(MrNakSyndrome::InvalidRequest))
    {
        return DropReason::BadField;
    }
    h.syndrome = static_cast<MrNakSyndrome>(syndrome);
    h.msn = load_big_u32(data + 12);
    return kWellFormed;
}

/// PROBE: a FSN of its flow, the floor and a timestamp (spec 5.4).
DropReason
ParseProbeBody(const uint8_t* data, MrHeader& h)
{
    h.fsn = load_big_u32(data + 8);
    h.ackFloor = load_big_u32(data + 12);
    h.timestamp = load_big_u64(data + 16);
    return kWellFormed;
}

/// The opcode's body parser.
DropReason
ParseBody(const uint8_t* data, std::size_t payload, MrHeader& h)
{
    switch (h.opcode)
    {
    case MrOpcode::Write:
    case MrOpcode::Send:
        return ParseDataBody(data, payload, h);
    case MrOpcode::Probe:
        return ParseProbeBody(data, h);
    case MrOpcode::Ack:
        return ParseAckBody(data, h);
    case MrOpcode::Nak:
        return ParseNakBody(data, h);
    }
    return DropReason::BadOpcode;
}

/// MrParse() into `h`, made by the caller: the header is 160 bytes, parsed for every packet, and
/// filling the result's own copy saves copying it there.
DropReason
ParseInto(const uint8_t* data, std::size_t size, std::size_t wireSize, MrHeader& h)
{
    if (size < kMrCommonSize || wireSize < size)
    {
        return DropReason::Truncated;
    }
    if (data[0] >> 4 != kMetaRoceVersion)
    {
        return DropReason::BadVersion;
    }
    const MrOpcodeInfo* info = MrLookupOpcode(data[0] & 0x0f);
    if (info == nullptr)
    {
        return DropReason::BadOpcode;
    }
    if (size < info->headerSize)
    {
        return DropReason::Truncated;
    }
    h.opcode = info->opcode;
    h.flags = data[1];
    if ((h.flags & ~AllowedFlags(h.opcode)) != 0)
    {
        return DropReason::BadField;
    }
    h.flowId = load_big_u16(data + 2);
    h.connection = load_big_u32(data + 4);
    std::size_t headerSize = info->headerSize;
    if (h.opcode == MrOpcode::Ack)
    {
        // An ACK's repeats follow its SACK, or its admission credit when the SACK is left
        // out: the datagram's length says how many (spec 5.3, 5.8 check 7).
        headerSize = MrAckRepeatsOffset(h.flags);
        if (size < headerSize)
        {
            return DropReason::Truncated;
        }
        const std::size_t extra = wireSize - headerSize;
        if (extra % kMrAckRepeatSize != 0 || extra / kMrAckRepeatSize > kMrMaxAckRepeats)
        {
            return DropReason::BadField;
        }
        h.repeatCount = static_cast<uint8_t>(extra / kMrAckRepeatSize);
        headerSize = wireSize;
        if (size < headerSize)
        {
            return DropReason::Truncated;
        }
    }
    const std::size_t payload = wireSize - headerSize;
    if (!(info->mask & kMrOpData) && payload != 0)
    {
        return DropReason::BadField;
    }
    return ParseBody(data, payload, h);
}

} // namespace

MrParseResult
MrParse(const uint8_t* data, std::size_t size, std::size_t wireSize)
{
    MrParseResult result;
    result.reason = ParseInto(data, size, wireSize, result.header.emplace());
    if (result.reason != kWellFormed)
    {
        result.header.reset();
    }
    return result;
}

} // namespace metaroce
