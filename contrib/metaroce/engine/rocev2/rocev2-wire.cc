#include "rocev2-wire.h"

#include <array>
#include <boost/endian/conversion.hpp>
#include <limits>

namespace metaroce
{

namespace
{

constexpr uint16_t kData = kIbHasPayload | kIbRequest;

/// The opcode table (IBA ch. 9, BTH opcode encoding; annex A17 for CNP).
constexpr std::array<IbOpcodeInfo, 10> kIbOpcodes = {{
    {IbOpcode::RcSendFirst, "RC_SEND_FIRST", kData | kIbSend | kIbFirst, kIbBthSize},
    {IbOpcode::RcSendMiddle, "RC_SEND_MIDDLE", kData | kIbSend | kIbMiddle, kIbBthSize},
    {IbOpcode::RcSendLast, "RC_SEND_LAST", kData | kIbSend | kIbLast, kIbBthSize},
    {IbOpcode::RcSendOnly, "RC_SEND_ONLY", kData | kIbSend | kIbFirst | kIbLast, kIbBthSize},
    {IbOpcode::RcWriteFirst,
     "RC_RDMA_WRITE_FIRST",
     kData | kIbWrite | kIbFirst | kIbHasReth,
     kIbBthSize + kIbRethSize},
    {IbOpcode::RcWriteMiddle, "RC_RDMA_WRITE_MIDDLE", kData | kIbWrite | kIbMiddle, kIbBthSize},
    {IbOpcode::RcWriteLast, "RC_RDMA_WRITE_LAST", kData | kIbWrite | kIbLast, kIbBthSize},
    {IbOpcode::RcWriteOnly,
     "RC_RDMA_WRITE_ONLY",
     kData | kIbWrite | kIbFirst | kIbLast | kIbHasReth,
     kIbBthSize + kIbRethSize},
    {IbOpcode::RcAcknowledge, "RC_ACKNOWLEDGE", kIbAck | kIbHasAeth, kIbBthSize + kIbAethSize},
    {IbOpcode::Cnp, "CNP", kIbCnp | kIbHasCnpPad, kIbBthSize + kIbCnpReservedSize},
}};

constexpr uint8_t kNoRow = 0xFF;

/// Row of kIbOpcodes by opcode byte (kNoRow: unsupported), derived from the table once, at
/// compile time, so that a look-up per packet is one load instead of a scan.
constexpr std::array<uint8_t, 256> kIbOpcodeRows = [] {
    std::array<uint8_t, 256> rows{};
    for (uint8_t& row : rows)
    {
        row = kNoRow;
    }
    for (std::size_t i = 0; i < kIbOpcodes.size(); ++i)
    {
        rows[static_cast<uint8_t>(kIbOpcodes[i].opcode)] = static_cast<uint8_t>(i);
    }
    return rows;
}();

constexpr std::size_t
DataShapeIndex(bool write, bool first, bool last)
{
    return (write ? 4 : 0) | (first ? 2 : 0) | (last ? 1 : 0);
}

/// The data opcode of every (write, first, last), taken from the table's request rows at
/// compile time; a shape without a row would keep the Cnp placeholder and fail the check below.
constexpr std::array<IbOpcode, 8> kIbDataOpcodes = [] {
    std::array<IbOpcode, 8> ops{};
    for (std::size_t shape = 0; shape < ops.size(); ++shape)
    {
        const bool write = (shape & 4) != 0;
        const bool first = (shape & 2) != 0;
        const bool last = (shape & 1) != 0;
        uint16_t want = (write ? kIbWrite : kIbSend) | (first ? kIbFirst : 0) |
                        (last ? kIbLast : 0) | (!first && !last ? kIbMiddle : 0);
        constexpr uint16_t kShape = kIbWrite | kIbSend | kIbFirst | kIbMiddle | kIbLast;
        ops[shape] = IbOpcode::Cnp; // no row: caught by the static_assert below
        for (const IbOpcodeInfo& info : kIbOpcodes)
        {
            if ((info.mask & kIbRequest) && (info.mask & kShape) == want)
            {
                ops[shape] = info.opcode;
            }
        }
    }
    return ops;
}();

static_assert(
    [] {
        for (IbOpcode op : kIbDataOpcodes)
        {
            if (op == IbOpcode::Cnp)
            {
                return false;
            }
        }
        return true;
    }(),
    "every (write, first, last) must have a data opcode in kIbOpcodes");

/// RNR timer codes in units of 10 us (IBA ch. 9.7 RNR timer table: code 0 is the longest,
/// 655.36 ms).
constexpr std::array<uint32_t, 32> kRnrTimerUnits = {
    65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,   32,
    48,    64,   96,   128,  192,  256,   384,   512,   768,   1024, 1536,
    2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};

uint32_t
Load24(const uint8_t* p)
{
    return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | uint32_t{p[2]};
}

void
Store24(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 16);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v);
}

} // namespace

const IbOpcodeInfo*
IbLookupOpcode(uint8_t opcode)
{
    const uint8_t row = kIbOpcodeRows[opcode];
    return row == kNoRow ? nullptr : &kIbOpcodes[row];
}

IbOpcode
IbDataOpcode(bool write, bool first, bool last)
{
    return kIbDataOpcodes[DataShapeIndex(write, first, last)];
}

uint8_t
IbAckSyndrome()
{
    return 0x1F;
}

uint8_t
IbNakSyndrome(IbNakCode code)
{
    return static_cast<uint8_t>(0x60 | static_cast<uint8_t>(code));
}

uint8_t
IbRnrNakSyndrome(uint8_t timerCode)
{
    return static_cast<uint8_t>(0x20 | (timerCode & 0x1F));
}

IbAethType
IbSyndromeType(uint8_t syndrome)
{
    return static_cast<IbAethType>((syndrome >> 5) & 0x3);
}

uint8_t
IbSyndromeValue(uint8_t syndrome)
{
    return syndrome & 0x1F;
}

TimeNs
IbRnrTimerNs(uint8_t timerCode)
{
    return TimeNs{kRnrTimerUnits[timerCode & 0x1F]} * 10000;
}

uint8_t
IbPadCount(uint32_t payloadLength)
{
    return static_cast<uint8_t>((4 - payloadLength % 4) % 4);
}

uint32_t
IbTrailedSize(uint32_t payloadLength)
{
    return payloadLength + IbPadCount(payloadLength) + kIbIcrcSize;
}

HeaderBytes
IbSerializeHeader(const IbBth& bth, const IbReth& reth, const IbAeth& aeth)
{
    const IbOpcodeInfo* info = IbLookupOpcode(static_cast<uint8_t>(bth.opcode));
    HeaderBytes out(info != nullptr ? info->headerSize : kIbBthSize);
    uint8_t* p = out.data();
    p[0] = static_cast<uint8_t>(bth.opcode);
    p[1] = static_cast<uint8_t>((bth.solicited ? 0x80 : 0) | (bth.migReq ? 0x40 : 0) |
                                ((bth.padCount & 0x3) << 4) | (bth.tver & 0xF));
    boost::endian::store_big_u16(p + 2, bth.pKey);
    Store24(p + 5, bth.destQpn & kIb24BitMask);
    p[8] = bth.ackReq ? 0x80 : 0;
    Store24(p + 9, bth.psn & kIb24BitMask);
    if (info == nullptr)
    {
        return out;
    }
    uint8_t* ext = p + kIbBthSize;
    if (info->mask & kIbHasReth)
    {
        boost::endian::store_big_u64(ext, reth.va);
        boost::endian::store_big_u32(ext + 8, reth.rkey);
        boost::endian::store_big_u32(ext + 12, reth.dmaLength);
    }
    if (info->mask & kIbHasAeth)
    {
        ext[0] = aeth.syndrome;
        Store24(ext + 1, aeth.msn & kIb24BitMask);
    }
    return out;
}

namespace
{

/// Sets the payload length from what lies between the headers and the ICRC, and checks it
/// against the pad count, the opcode and the RETH length. DropReason::Count: well formed.
DropReason
ParsePayloadLength(IbPacket& pkt, std::size_t wireSize)
{
    const uint16_t mask = pkt.info->mask;
    const IbBth& bth = pkt.bth;
    const std::size_t headerSize = pkt.info->headerSize;
    // Payload and pad: the bytes between the headers and the ICRC (IBA ch. 9: PadCnt pads the
    // payload to a multiple of 4; only the last packet of a message may be padded).
    const std::size_t padded = wireSize - headerSize - kIbIcrcSize;
    if (padded % 4 != 0 || padded < bth.padCount)
    {
        return DropReason::BadField;
    }
    if (!(mask & kIbHasPayload) && padded != 0)
    {
        return DropReason::BadField;
    }
    if (padded > std::numeric_limits<uint32_t>::max())
    {
        return DropReason::BadField;
    }
    pkt.payloadLength = static_cast<uint32_t>(padded - bth.padCount);
    if ((mask & (kIbFirst | kIbMiddle)) && !(mask & kIbLast) && bth.padCount != 0)
    {
        return DropReason::BadField;
    }
    if ((mask & kIbLast) && !(mask & kIbFirst) && pkt.payloadLength == 0)
    {
        return DropReason::BadField;
    }
    if (mask & kIbHasReth)
    {
        const bool only = (mask & kIbLast) != 0;
        if (only ? pkt.reth.dmaLength != pkt.payloadLength
                 : pkt.reth.dmaLength <= pkt.payloadLength)
        {
            return DropReason::BadField;
        }
    }
    return DropReason::Count;
}

/// Parses into `pkt`, in place: the result's packet is filled where it lies, never copied.
DropReason
ParseInto(const uint8_t* data, std::size_t size, std::size_t wireSize, IbPacket& pkt)
{
    if (data == nullptr || size < kIbBthSize)
    {
        return DropReason::Truncated;
    }
    if (size > wireSize)
    {
        return DropReason::BadField;
    }
    pkt.info = IbLookupOpcode(data[0]);
    if (pkt.info == nullptr)
    {
        return DropReason::BadOpcode;
    }
    const uint16_t mask = pkt.info->mask;
    IbBth& bth = pkt.bth;
    bth.opcode = pkt.info->opcode;
    bth.solicited = (data[1] & 0x80) != 0;
    bth.migReq = (data[1] & 0x40) != 0;
    bth.padCount = (data[1] >> 4) & 0x3;
    bth.tver = data[1] & 0xF;
    if (bth.tver != 0)
    {
        return DropReason::BadVersion;
    }
    bth.pKey = boost::endian::load_big_u16(data + 2);
    bth.destQpn = Load24(data + 5);
    bth.ackReq = (data[8] & 0x80) != 0;
    bth.psn = Load24(data + 9);

    const std::size_t headerSize = pkt.info->headerSize;
    if (size < headerSize || wireSize < headerSize + kIbIcrcSize)
    {
        return DropReason::Truncated;
    }
    const uint8_t* ext = data + kIbBthSize;
    if (mask & kIbHasReth)
    {
        pkt.reth.va = boost::endian::load_big_u64(ext);
        pkt.reth.rkey = boost::endian::load_big_u32(ext + 8);
        pkt.reth.dmaLength = boost::endian::load_big_u32(ext + 12);
    }
    if (mask & kIbHasAeth)
    {
        pkt.aeth.syndrome = ext[0];
        pkt.aeth.msn = Load24(ext + 1);
        if (IbSyndromeType(pkt.aeth.syndrome) == IbAethType::Reserved)
        {
            return DropReason::BadField;
        }
    }

    const DropReason payloadVerdict = ParsePayloadLength(pkt, wireSize);
    if (payloadVerdict != DropReason::Count)
    {
        return payloadVerdict;
    }
    if (size == wireSize && pkt.payloadLength > 0)
    {
        pkt.payload = data + headerSize;
    }
    return DropReason::Count;
}

} // namespace

IbParseResult
IbParse(const uint8_t* data, std::size_t size, std::size_t wireSize)
{
    IbParseResult result;
    result.reason = ParseInto(data, size, wireSize, result.packet.emplace());
    if (result.reason != DropReason::Count)
    {
        result.packet.reset();
    }
    return result;
}

std::optional<uint32_t>
IbPeekDestQpn(const uint8_t* data, std::size_t size)
{
    if (data == nullptr || size < kIbBthSize)
    {
        return std::nullopt;
    }
    return Load24(data + 5);
}

int64_t
IbPsnDelta(uint32_t wire, uint64_t reference)
{
    const uint32_t d = (wire - static_cast<uint32_t>(reference)) & kIb24BitMask;
    return d >= (1u << 23) ? int64_t{d} - (int64_t{1} << 24) : int64_t{d};
}

} // namespace metaroce
