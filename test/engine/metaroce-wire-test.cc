// MetaRoCE wire format: round-trips for every opcode and strict rejection of malformed headers.
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <vector>

namespace metaroce
{
namespace
{

MrHeader
Write()
{
    MrHeader h;
    h.opcode = MrOpcode::Write;
    h.flags = kMrFlagFirst | kMrFlagRetx;
    h.flowId = 513;
    h.connection = 0xdeadbeef;
    h.fsn = 0xfffffff0;
    h.ackFloor = 0xffffffe0;
    h.stream = 9;
    h.msn = 77;
    h.messageLength = 10'000;
    h.offset = 0;
    h.payloadLength = 4096;
    h.timestamp = 0x0102030405060708;
    h.remoteAddr = 0x1122334455667788;
    h.remoteKey = 0xabcdef01;
    return h;
}

std::vector<uint8_t>
Bytes(const MrHeader& h)
{
    std::vector<uint8_t> b(h.Size());
    EXPECT_EQ(MrSerialize(h, b.data()), h.Size());
    return b;
}

TEST(MetaRoceWire, SizesFollowTheOpcodeTable)
{
    MrHeader h;
    for (auto [op, size] : {std::pair{MrOpcode::Write, kMrWriteHeaderSize},
                            {MrOpcode::Send, kMrSendHeaderSize},
                            {MrOpcode::Ack, kMrAckHeaderSize},
                            {MrOpcode::Probe, kMrProbeHeaderSize},
                            {MrOpcode::Nak, kMrNakHeaderSize}})
    {
        h.opcode = op;
        EXPECT_EQ(h.Size(), size);
        ASSERT_NE(MrLookupOpcode(static_cast<uint8_t>(op)), nullptr);
    }
    EXPECT_EQ(MrLookupOpcode(0), nullptr);
    EXPECT_EQ(MrLookupOpcode(6), nullptr);
}

TEST(MetaRoceWire, WriteRoundTrip)
{
    const MrHeader h = Write();
    const auto b = Bytes(h);
    EXPECT_EQ(b[0], 0x11); // version 1, opcode 1
    const MrParseResult r = MrParse(b.data(), b.size(), b.size() + 4096);
    ASSERT_TRUE(r.header) << DropReasonName(r.reason);
    const MrHeader& p = *r.header;
    EXPECT_EQ(p.flags, h.flags);
    EXPECT_EQ(p.flowId, h.flowId);
    EXPECT_EQ(p.connection, h.connection);
    EXPECT_EQ(p.fsn, h.fsn);
    EXPECT_EQ(p.ackFloor, h.ackFloor);
    EXPECT_EQ(p.stream, h.stream);
    EXPECT_EQ(p.msn, h.msn);
    EXPECT_EQ(p.messageLength, h.messageLength);
    EXPECT_EQ(p.payloadLength, h.payloadLength);
    EXPECT_EQ(p.timestamp, h.timestamp);
    EXPECT_EQ(p.remoteAddr, h.remoteAddr);
    EXPECT_EQ(p.remoteKey, h.remoteKey);
}

TEST(MetaRoceWire, SendCarriesReceiveIndex)
{
    MrHeader h = Write();
    h.opcode = MrOpcode::Send;
    h.flags = kMrFlagLast | kMrFlagAckReq;
    h.offset = 8192;
    h.payloadLength = 10'000 - 8192;
    h.recvIndex = 1234;
    const auto b = Bytes(h);
    const MrParseResult r = MrParse(b.data(), b.size(), b.size() + h.payloadLength);
    ASSERT_TRUE(r.header);
    EXPECT_EQ(r.header->recvIndex, 1234u);
    EXPECT_EQ(r.header->offset, 8192u);
}

TEST(MetaRoceWire, AckSackBitOrderIsLsbFirst)
{
    MrHeader h;
    h.opcode = MrOpcode::Ack;
    h.flags = kMrFlagEce;
    h.cumulativeFsn = 100;
    h.rateHintMbps = 50'000;
    h.echoTimestamp = 99;
    h.ceCount = 3;
    h.newCount = 4;
    h.sack.set(0);
    h.sack.set(9);
    h.sack.set(255);
    const auto b = Bytes(h);
    EXPECT_EQ(b[32], 0x01);
    EXPECT_EQ(b[33], 0x02);
    EXPECT_EQ(b[63], 0x80);
    const MrParseResult r = MrParse(b.data(), b.size(), b.size());
    ASSERT_TRUE(r.header);
    EXPECT_EQ(r.header->sack, h.sack);
    EXPECT_EQ(r.header->rateHintMbps, 50'000u);
    EXPECT_EQ(r.header->ceCount, 3);
    EXPECT_EQ(r.header->newCount, 4);
}

TEST(MetaRoceWire, NakAndProbeRoundTrip)
{
    MrHeader nak;
    nak.opcode = MrOpcode::Nak;
    nak.stream = 3;
    nak.msn = 17;
    nak.syndrome = MrNakSyndrome::InvalidRequest;
    auto b = Bytes(nak);
    MrParseResult r = MrParse(b.data(), b.size(), b.size());
    ASSERT_TRUE(r.header);
    EXPECT_EQ(r.header->syndrome, MrNakSyndrome::InvalidRequest);
    EXPECT_EQ(r.header->msn, 17u);

    MrHeader probe;
    probe.opcode = MrOpcode::Probe;
    probe.flags = kMrFlagAckReq;
    probe.fsn = 5;
    probe.ackFloor = 4;
    probe.timestamp = 77;
    b = Bytes(probe);
    r = MrParse(b.data(), b.size(), b.size());
    ASSERT_TRUE(r.header);
    EXPECT_EQ(r.header->fsn, 5u);
    EXPECT_EQ(r.header->timestamp, 77u);
}

struct Malformed
{
    const char* name;
    void (*mutate)(std::vector<uint8_t>& bytes, std::size_t& wireSize);
    DropReason reason;
};

const Malformed kMalformed[] = {
    {"truncated header",
     [](auto& b, auto& w) {
         b.resize(40);
         w = 40 + 4096;
     },
     DropReason::Truncated},
    {"shorter than common",
     [](auto& b, auto& w) {
         b.resize(8);
         w = 8;
     },
     DropReason::Truncated},
    {"payload shorter than declared", [](auto&, auto& w) { w -= 1; }, DropReason::Truncated},
    {"payload longer than declared", [](auto&, auto& w) { w += 1; }, DropReason::BadField},
    {"version 2", [](auto& b, auto&) { b[0] = 0x21; }, DropReason::BadVersion},
    {"opcode 9", [](auto& b, auto&) { b[0] = 0x19; }, DropReason::BadOpcode},
    {"unknown flag", [](auto& b, auto&) { b[1] |= 0x80; }, DropReason::BadField},
    {"ECE flag on data", [](auto& b, auto&) { b[1] |= kMrFlagEce; }, DropReason::BadField},
    {"reserved stream bits", [](auto& b, auto&) { b[19] = 1; }, DropReason::BadField},
    {"reserved write bits", [](auto& b, auto&) { b[63] = 1; }, DropReason::BadField},
    {"first flag missing", [](auto& b, auto&) { b[1] &= ~kMrFlagFirst; }, DropReason::BadField},
    {"offset beyond message", [](auto& b, auto&) { b[28] = 0x7f; }, DropReason::BadField},
};

TEST(MetaRoceWire, MalformedHeadersAreRefusedWithTheirReason)
{
    for (const Malformed& m : kMalformed)
    {
        auto b = Bytes(Write());
        std::size_t wire = b.size() + 4096;
        m.mutate(b, wire);
        const MrParseResult r = MrParse(b.data(), b.size(), wire);
        EXPECT_FALSE(r.header) << m.name;
        EXPECT_EQ(r.reason, m.reason) << m.name << ": got " << DropReasonName(r.reason);
    }
}

TEST(MetaRoceWire, AckWithPayloadIsRefused)
{
    MrHeader h;
    h.opcode = MrOpcode::Ack;
    const auto b = Bytes(h);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size() + 1).reason, DropReason::BadField);
}

MrHeader
AckWithRepeats()
{
    MrHeader h;
    h.opcode = MrOpcode::Ack;
    h.flowId = 3;
    h.cumulativeFsn = 100;
    h.repeatCount = 2;
    h.repeats[0] = MrAckRepeat{7, 0x8001, 0xfffffffe};
    h.repeats[1] = MrAckRepeat{1, 0, 42};
    return h;
}

TEST(MetaRoceWire, AckRepeatsFollowTheSack)
{
    const MrHeader h = AckWithRepeats();
    EXPECT_EQ(h.Size(), kMrAckHeaderSize + 2 * kMrAckRepeatSize);
    const auto b = Bytes(h);
    // Spec 5.3: flow id, 16 SACK bits, cumulative FSN, big-endian, 8 bytes per repeat.
    const std::vector<uint8_t> first = {0x00, 0x07, 0x80, 0x01, 0xff, 0xff, 0xff, 0xfe};
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 64, b.begin() + 72), first);
    const MrParseResult r = MrParse(b.data(), b.size(), b.size());
    ASSERT_TRUE(r.header);
    ASSERT_EQ(r.header->repeatCount, 2);
    EXPECT_EQ(r.header->repeats[0].flowId, 7);
    EXPECT_EQ(r.header->repeats[0].sack, 0x8001);
    EXPECT_EQ(r.header->repeats[0].cumulativeFsn, 0xfffffffeu);
    EXPECT_EQ(r.header->repeats[1].flowId, 1);
    EXPECT_EQ(r.header->repeats[1].cumulativeFsn, 42u);
    EXPECT_EQ(r.header->Size(), b.size());
}

TEST(MetaRoceWire, MalformedAckRepeatsAreRefused)
{
    MrHeader own = AckWithRepeats();
    own.repeats[1].flowId = own.flowId;
    auto b = Bytes(own);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "own flow";

    MrHeader twice = AckWithRepeats();
    twice.repeats[1].flowId = twice.repeats[0].flowId;
    b = Bytes(twice);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "twice";

    b = Bytes(AckWithRepeats());
    EXPECT_EQ(MrParse(b.data(), b.size() - 8, b.size()).reason, DropReason::Truncated);
    b.resize(kMrAckHeaderSize + (kMrMaxAckRepeats + 1) * kMrAckRepeatSize);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "five";
    b.resize(kMrAckHeaderSize + 12);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "12 bytes";
}

TEST(MetaRoceWire, AnEmptySackMayBeLeftOut)
{
    MrHeader h = AckWithRepeats();
    h.flags = kMrFlagNoSack | kMrFlagEce;
    h.creditBytes = 0x01020304;
    EXPECT_EQ(h.Size(), kMrAckNoSackSize + 2 * kMrAckRepeatSize);
    const auto b = Bytes(h);
    // Spec 5.3: without the SACK the repeats follow the admission credit, at offset 32.
    const std::vector<uint8_t> credit = {0x01, 0x02, 0x03, 0x04, 0x00, 0x07, 0x80, 0x01};
    EXPECT_EQ(std::vector<uint8_t>(b.begin() + 28, b.begin() + 36), credit);
    const MrParseResult r = MrParse(b.data(), b.size(), b.size());
    ASSERT_TRUE(r.header);
    EXPECT_EQ(r.header->flags, kMrFlagNoSack | kMrFlagEce);
    EXPECT_TRUE(r.header->sack.none());
    EXPECT_EQ(r.header->creditBytes, 0x01020304u);
    ASSERT_EQ(r.header->repeatCount, 2);
    EXPECT_EQ(r.header->repeats[1].cumulativeFsn, 42u);
    EXPECT_EQ(r.header->Size(), b.size());

    // The same ACK with its (empty) SACK on the wire reads the same, 32 bytes longer.
    MrHeader full = h;
    full.flags = kMrFlagEce;
    const auto fb = Bytes(full);
    ASSERT_EQ(fb.size(), b.size() + 32);
    const MrParseResult fr = MrParse(fb.data(), fb.size(), fb.size());
    ASSERT_TRUE(fr.header);
    EXPECT_EQ(fr.header->repeatCount, 2);
    EXPECT_EQ(fr.header->repeats[0].flowId, 7);
}

TEST(MetaRoceWire, MalformedCompactAcksAreRefused)
{
    MrHeader h;
    h.opcode = MrOpcode::Ack;
    h.flags = kMrFlagNoSack;
    auto b = Bytes(h);
    ASSERT_EQ(b.size(), kMrAckNoSackSize);
    ASSERT_TRUE(MrParse(b.data(), b.size(), b.size()).header);
    EXPECT_EQ(MrParse(b.data(), b.size() - 1, b.size()).reason, DropReason::Truncated);
    EXPECT_EQ(MrParse(b.data(), b.size() - 1, b.size() - 1).reason, DropReason::Truncated);
    b.resize(kMrAckNoSackSize + 4);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "4 bytes";
    b.resize(kMrAckNoSackSize + (kMrMaxAckRepeats + 1) * kMrAckRepeatSize);
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::BadField) << "five";
    // A full-size ACK without NOSACK must hold its SACK: 32 bytes are truncated.
    b.resize(kMrAckNoSackSize);
    b[1] = 0;
    EXPECT_EQ(MrParse(b.data(), b.size(), b.size()).reason, DropReason::Truncated);
    // NOSACK is an ACK flag only.
    std::vector<uint8_t> probe(kMrProbeHeaderSize);
    probe[0] = static_cast<uint8_t>(kMetaRoceVersion << 4 | static_cast<uint8_t>(MrOpcode::Probe));
    probe[1] = kMrFlagNoSack;
    EXPECT_EQ(MrParse(probe.data(), probe.size(), probe.size()).reason, DropReason::BadField);
}

TEST(MetaRoceWire, FsnUnwrapPicksTheNearestValue)
{
    EXPECT_EQ(MrUnwrapFsn(5, 0), 5u);
    EXPECT_EQ(MrUnwrapFsn(0xffffffff, 0), 0xffffffffu); // cannot go below zero
    EXPECT_EQ(MrUnwrapFsn(2, 0xfffffff0), 0x100000002u);
    EXPECT_EQ(MrUnwrapFsn(0xfffffff0, 0x100000002u), 0xfffffff0u);
    EXPECT_EQ(MrUnwrapFsn(7, 0x300000005u), 0x300000007u);
}

} // namespace
} // namespace metaroce
