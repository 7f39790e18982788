/*
 * RoCEv2 wire format: exact byte layouts (spec: RoCEv2 baseline; IBA ch. 9), round trips of
 * every supported opcode, and each parse refusal with its reason.
 */
#include "rocev2-wire.h"

#include <gtest/gtest.h>
#include <vector>

namespace metaroce
{
namespace
{

/// A whole UDP payload: headers, payload bytes, pad, zero ICRC.
std::vector<uint8_t>
Datagram(const IbBth& bth, const IbReth& reth, const IbAeth& aeth, uint32_t payloadLength)
{
    std::vector<uint8_t> bytes = IbSerializeHeader(bth, reth, aeth).ToVector();
    const std::size_t header = bytes.size();
    bytes.resize(header + payloadLength + bth.padCount + kIbIcrcSize, 0);
    for (uint32_t i = 0; i < payloadLength; ++i)
    {
        bytes[header + i] = static_cast<uint8_t>(i * 13 + 1);
    }
    return bytes;
}

TEST(RoceV2Wire, BthAndRethLayoutIsBigEndianInIbaOrder)
{
    IbBth bth;
    bth.opcode = IbOpcode::RcWriteFirst;
    bth.solicited = true;
    bth.migReq = true;
    bth.padCount = 2;
    bth.pKey = 0x8001;
    bth.destQpn = 0xABCDEF;
    bth.ackReq = true;
    bth.psn = 0x123456;
    const IbReth reth{0x0102030405060708ULL, 0x11223344, 0x00010000};
    const std::vector<uint8_t> expected = {
        0x06, 0xE0, 0x80, 0x01, 0x00, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56, // BTH
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,                         // RETH VA
        0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x00, 0x00,                         // R_Key, DMA length
    };
    EXPECT_EQ(IbSerializeHeader(bth, reth, IbAeth{}).ToVector(), expected);
}

TEST(RoceV2Wire, AethAndCnpLayout)
{
    IbBth bth;
    bth.opcode = IbOpcode::RcAcknowledge;
    bth.destQpn = 0x000102;
    bth.psn = 0xFFFFFF;
    const IbAeth aeth{IbNakSyndrome(IbNakCode::RemoteAccessError), 0x010203};
    const std::vector<uint8_t> ack = {0x11,
                                      0x00,
                                      0xFF,
                                      0xFF,
                                      0x00,
                                      0x00,
                                      0x01,
                                      0x02,
                                      0x00,
                                      0xFF,
                                      0xFF,
                                      0xFF,
                                      0x62,
                                      0x01,
                                      0x02,
                                      0x03};
    EXPECT_EQ(IbSerializeHeader(bth, IbReth{}, aeth).ToVector(), ack);

    bth.opcode = IbOpcode::Cnp;
    bth.psn = 0;
    std::vector<uint8_t> cnp(28, 0);
    cnp[0] = 0x81;
    cnp[2] = cnp[3] = 0xFF;
    cnp[6] = 0x01;
    cnp[7] = 0x02;
    EXPECT_EQ(IbSerializeHeader(bth, IbReth{}, aeth).ToVector(), cnp);
}

TEST(RoceV2Wire, OpcodeTableIsData)
{
    const IbOpcodeInfo* wf = IbLookupOpcode(0x06);
    ASSERT_NE(wf, nullptr);
    EXPECT_TRUE(wf->mask & kIbHasReth);
    EXPECT_TRUE(wf->mask & kIbFirst);
    EXPECT_FALSE(wf->mask & kIbLast);
    EXPECT_EQ(wf->headerSize, 28);
    EXPECT_EQ(IbLookupOpcode(0x04)->mask & (kIbFirst | kIbLast), kIbFirst | kIbLast);
    EXPECT_EQ(IbLookupOpcode(0x07)->headerSize, 12);
    EXPECT_EQ(IbLookupOpcode(0x11)->headerSize, 16);
    EXPECT_TRUE(IbLookupOpcode(0x11)->mask & kIbHasAeth);
    EXPECT_EQ(IbLookupOpcode(0x81)->headerSize, 28);
    EXPECT_EQ(IbLookupOpcode(0x05), nullptr); // SEND_ONLY_WITH_IMMEDIATE: unsupported
    EXPECT_EQ(IbLookupOpcode(0x0C), nullptr); // RDMA_READ_REQUEST: unsupported

    EXPECT_EQ(IbDataOpcode(false, true, false), IbOpcode::RcSendFirst);
    EXPECT_EQ(IbDataOpcode(false, false, false), IbOpcode::RcSendMiddle);
    EXPECT_EQ(IbDataOpcode(false, false, true), IbOpcode::RcSendLast);
    EXPECT_EQ(IbDataOpcode(false, true, true), IbOpcode::RcSendOnly);
    EXPECT_EQ(IbDataOpcode(true, true, false), IbOpcode::RcWriteFirst);
    EXPECT_EQ(IbDataOpcode(true, false, false), IbOpcode::RcWriteMiddle);
    EXPECT_EQ(IbDataOpcode(true, false, true), IbOpcode::RcWriteLast);
    EXPECT_EQ(IbDataOpcode(true, true, true), IbOpcode::RcWriteOnly);
}

TEST(RoceV2Wire, EveryOpcodeRoundTrips)
{
    struct Case
    {
        IbOpcode op;
        uint32_t payload;
        uint32_t dmaLength;
    };

    const Case cases[] = {
        {IbOpcode::RcSendFirst, 1024, 0},
        {IbOpcode::RcSendMiddle, 1024, 0},
        {IbOpcode::RcSendLast, 1001, 0},
        {IbOpcode::RcSendOnly, 7, 0},
        {IbOpcode::RcWriteFirst, 1024, 5000},
        {IbOpcode::RcWriteMiddle, 1024, 0},
        {IbOpcode::RcWriteLast, 1002, 0},
        {IbOpcode::RcWriteOnly, 999, 999},
        {IbOpcode::RcAcknowledge, 0, 0},
        {IbOpcode::Cnp, 0, 0},
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(IbLookupOpcode(static_cast<uint8_t>(c.op))->name);
        IbBth bth;
        bth.opcode = c.op;
        bth.padCount = IbPadCount(c.payload);
        bth.pKey = 0x7FFF;
        bth.destQpn = 0x00BEEF;
        bth.ackReq = c.op == IbOpcode::RcSendLast;
        bth.psn = 0xFFFFFE;
        const IbReth reth{0xDEADBEEF00ULL, 0x42, c.dmaLength};
        const IbAeth aeth{IbRnrNakSyndrome(12), 0x00ABCD};
        const std::vector<uint8_t> bytes = Datagram(bth, reth, aeth, c.payload);
        const std::size_t header = IbLookupOpcode(static_cast<uint8_t>(c.op))->headerSize;
        ASSERT_EQ(bytes.size(), header + IbTrailedSize(c.payload));

        IbParseResult real = IbParse(bytes.data(), bytes.size(), bytes.size());
        ASSERT_TRUE(real.packet) << DropReasonName(real.reason);
        const IbPacket& p = *real.packet;
        EXPECT_EQ(p.bth.opcode, c.op);
        EXPECT_EQ(p.bth.padCount, bth.padCount);
        EXPECT_EQ(p.bth.pKey, 0x7FFF);
        EXPECT_EQ(p.bth.destQpn, 0x00BEEFu);
        EXPECT_EQ(p.bth.ackReq, bth.ackReq);
        EXPECT_EQ(p.bth.psn, 0xFFFFFEu);
        EXPECT_EQ(p.payloadLength, c.payload);
        if (p.info->mask & kIbHasReth)
        {
            EXPECT_EQ(p.reth.va, reth.va);
            EXPECT_EQ(p.reth.rkey, reth.rkey);
            EXPECT_EQ(p.reth.dmaLength, reth.dmaLength);
        }
        if (p.info->mask & kIbHasAeth)
        {
            EXPECT_EQ(p.aeth.syndrome, aeth.syndrome);
            EXPECT_EQ(p.aeth.msn, aeth.msn);
        }
        EXPECT_EQ(p.payload, c.payload > 0 ? bytes.data() + header : nullptr);

        // Virtual payload: only the headers travel, the sizes still agree.
        IbParseResult virt = IbParse(bytes.data(), header, bytes.size());
        ASSERT_TRUE(virt.packet);
        EXPECT_EQ(virt.packet->payloadLength, c.payload);
        EXPECT_EQ(virt.packet->payload, nullptr);
    }
}

TEST(RoceV2Wire, MalformedPacketsAreRefusedWithTheirReason)
{
    IbBth send;
    send.opcode = IbOpcode::RcSendOnly;
    send.padCount = IbPadCount(1001);
    const std::vector<uint8_t> good = Datagram(send, IbReth{}, IbAeth{}, 1001);
    auto parse = [](std::vector<uint8_t> b, std::size_t size, std::size_t wire) {
        return IbParse(b.data(), size, wire).reason;
    };
    auto mutated = [&good](std::size_t at, uint8_t value) {
        std::vector<uint8_t> b = good;
        b[at] = value;
        return b;
    };
    ASSERT_EQ(parse(good, good.size(), good.size()), DropReason::Count);

    EXPECT_EQ(parse(good, 11, good.size()), DropReason::Truncated);
    EXPECT_EQ(IbParse(nullptr, 0, 40).reason, DropReason::Truncated);
    EXPECT_EQ(parse(good, good.size(), good.size() - 1), DropReason::BadField); // size > wire
    EXPECT_EQ(parse(mutated(0, 0x05), good.size(), good.size()), DropReason::BadOpcode);
    EXPECT_EQ(parse(mutated(0, 0x3F), good.size(), good.size()), DropReason::BadOpcode);
    EXPECT_EQ(parse(mutated(1, good[1] | 0x01), good.size(), good.size()), DropReason::BadVersion);
    EXPECT_EQ(parse(good, 12, 15), DropReason::Truncated);            // below BTH + ICRC
    EXPECT_EQ(parse(good, 12, 12 + 1001 + 4), DropReason::BadField);  // not padded to 4
    EXPECT_EQ(parse(mutated(1, 0x30), 12, 16), DropReason::BadField); // PadCnt 3, no bytes

    IbBth wf;
    wf.opcode = IbOpcode::RcWriteFirst;
    const std::vector<uint8_t> first = Datagram(wf, IbReth{0, 1, 4096}, IbAeth{}, 1024);
    EXPECT_EQ(parse(first, 20, first.size()), DropReason::Truncated); // RETH cut
    EXPECT_EQ(parse(first, 28, first.size()), DropReason::Count);
    std::vector<uint8_t> padded = first;
    padded[1] = 0x10; // PadCnt 1 on a FIRST packet
    EXPECT_EQ(parse(padded, 28, padded.size()), DropReason::BadField);
    const std::vector<uint8_t> shortDma = Datagram(wf, IbReth{0, 1, 1024}, IbAeth{}, 1024);
    EXPECT_EQ(parse(shortDma, 28, shortDma.size()), DropReason::BadField);

    IbBth wo;
    wo.opcode = IbOpcode::RcWriteOnly;
    const std::vector<uint8_t> only = Datagram(wo, IbReth{0, 1, 100}, IbAeth{}, 96);
    EXPECT_EQ(parse(only, 28, only.size()), DropReason::BadField); // DMA length != payload

    IbBth last;
    last.opcode = IbOpcode::RcSendLast;
    const std::vector<uint8_t> empty = Datagram(last, IbReth{}, IbAeth{}, 0);
    EXPECT_EQ(parse(empty, 12, empty.size()), DropReason::BadField); // empty LAST

    IbBth ack;
    ack.opcode = IbOpcode::RcAcknowledge;
    const std::vector<uint8_t> withPayload = Datagram(ack, IbReth{}, IbAeth{0x1F, 0}, 4);
    EXPECT_EQ(parse(withPayload, 16, withPayload.size()), DropReason::BadField);
    const std::vector<uint8_t> reserved = Datagram(ack, IbReth{}, IbAeth{0x40, 0}, 0);
    EXPECT_EQ(parse(reserved, 16, reserved.size()), DropReason::BadField);
}

TEST(RoceV2Wire, SyndromesRnrTimerAndPadding)
{
    EXPECT_EQ(IbAckSyndrome(), 0x1F);
    EXPECT_EQ(IbSyndromeType(IbAckSyndrome()), IbAethType::Ack);
    EXPECT_EQ(IbNakSyndrome(IbNakCode::PsnSequenceError), 0x60);
    EXPECT_EQ(IbNakSyndrome(IbNakCode::RemoteAccessError), 0x62);
    EXPECT_EQ(IbSyndromeType(0x62), IbAethType::Nak);
    EXPECT_EQ(IbSyndromeValue(0x62), 2);
    EXPECT_EQ(IbRnrNakSyndrome(12), 0x2C);
    EXPECT_EQ(IbSyndromeType(0x2C), IbAethType::RnrNak);
    EXPECT_EQ(IbRnrTimerNs(0), 655360000u);
    EXPECT_EQ(IbRnrTimerNs(1), 10000u);
    EXPECT_EQ(IbRnrTimerNs(12), 640000u);
    EXPECT_EQ(IbRnrTimerNs(31), 491520000u);
    EXPECT_EQ(IbPadCount(1001), 3);
    EXPECT_EQ(IbPadCount(1024), 0);
    EXPECT_EQ(IbTrailedSize(1001), 1008u);
    EXPECT_EQ(IbTrailedSize(0), 4u);
}

TEST(RoceV2Wire, PsnDeltaHandlesTheWrap)
{
    EXPECT_EQ(IbPsnDelta(5, 5), 0);
    EXPECT_EQ(IbPsnDelta(0x000002, 0xFFFFFE), 4);
    EXPECT_EQ(IbPsnDelta(0xFFFFFE, 0x1000002), -4);
    EXPECT_EQ(IbPsnDelta(0x7FFFFF, 0), (1 << 23) - 1);
    EXPECT_EQ(IbPsnDelta(0x800000, 0), -(1 << 23));
}

TEST(RoceV2Wire, PeekDestQpn)
{
    IbBth bth;
    bth.destQpn = 0x123456;
    const std::vector<uint8_t> h = IbSerializeHeader(bth, IbReth{}, IbAeth{}).ToVector();
    EXPECT_EQ(IbPeekDestQpn(h.data(), h.size()), 0x123456u);
    EXPECT_EQ(IbPeekDestQpn(h.data(), 11), std::nullopt);
}

} // namespace
} // namespace metaroce
