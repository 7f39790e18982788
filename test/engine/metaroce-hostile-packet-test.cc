// Packets no legitimate peer sends (spec 2.5, 5.8, 7.4): fields at the edges of their types are
// refused or handled within what the receiver itself registered, never trusted; random initial
// FSNs keep a connection's windows where a stranger cannot guess them.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

MetaRoceConfig
SmallConfig()
{
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    c.streams = 2;
    c.mtu = 1024;
    c.tailMarkers = false;
    return c;
}

/// The first packet of a WRITE of `length` bytes on flow 0, as a sender would make it.
MrHeader
FirstWritePacket(uint32_t length, uint32_t key = 0, uint64_t addr = 0)
{
    MrHeader h;
    h.opcode = MrOpcode::Write;
    h.flags = kMrFlagFirst | (length <= 1024 ? kMrFlagLast : 0);
    h.connection = 9;
    h.messageLength = length;
    h.payloadLength = std::min<uint32_t>(length, 1024);
    h.remoteKey = key;
    h.remoteAddr = addr;
    return h;
}

RxResult
Hand(MetaRoceConnection& e, const MrHeader& h, uint16_t port = 0)
{
    OutPacket p;
    p.header.resize(h.Size());
    MrSerialize(h, p.header.data());
    p.payloadSize = h.payloadLength;
    p.port = port;
    return DeliverPacket(e, p, 1'000);
}

TEST(MetaRoceHostilePacket, MessageLengthNearFourGibibytesIsPlacedWithoutWrapping)
{
    // (length + MTU - 1) / MTU wrapped in 32 bits to 0 packets: the first packet's placement
    // bit was then read past the end of an empty bitmap.
    MetaRoceConfig c = SmallConfig();
    c.localConnection = 9;
    MetaRoceConnection b(c);
    for (uint32_t length : {UINT32_MAX, UINT32_MAX - 1023, UINT32_MAX - 1024})
    {
        MrHeader h = FirstWritePacket(length);
        h.msn = b.GetCounters().rxPackets;
        h.fsn = h.msn;
        ASSERT_TRUE(Hand(b, h).accepted) << length;
    }
    EXPECT_EQ(b.GetCounters().placedBytes, 3u * 1024);
    EXPECT_EQ(b.GetCounters().TotalDrops(), 0u);
}

TEST(MetaRoceHostilePacket, AWriteLongerThanItsRegionIsRefusedAtItsFirstPacket)
{
    MemoryRegistry memory;
    memory.Register({7, 0x10000, 0x10000, nullptr});
    MetaRoceConfig c = SmallConfig();
    c.localConnection = 9;
    MetaRoceConnection b(c, &memory);
    // Each packet would land inside the region; the message it claims does not fit.
    const RxResult r = Hand(b, FirstWritePacket(UINT32_MAX, 7, 0x10000));
    EXPECT_EQ(r.reason, DropReason::AccessError);
    MrHeader later = FirstWritePacket(0x20000, 7, 0x10000 + 1024);
    later.flags = 0;
    later.offset = 1024;
    later.fsn = 1;
    EXPECT_EQ(Hand(b, later).reason, DropReason::AccessError);
    // An address below the offset cannot be the message's: its first byte would wrap.
    MrHeader wraps = later;
    wraps.remoteAddr = 512;
    wraps.fsn = 2;
    EXPECT_EQ(Hand(b, wraps).reason, DropReason::AccessError);
    // What fits lands.
    MrHeader fits = FirstWritePacket(0x10000, 7, 0x10000);
    fits.fsn = 3;
    EXPECT_TRUE(Hand(b, fits).accepted);
    EXPECT_EQ(b.GetCounters().placedBytes, 1024u);
}

TEST(MetaRoceHostilePacket, ARegistryThatRefusesVirtualBuffersRefusesKeyZero)
{
    MemoryRegistry memory;
    memory.Register({7, 0x10000, 0x10000, nullptr});
    EXPECT_NE(memory.Check(0, 0, 100), nullptr);
    memory.RefuseVirtual();
    EXPECT_EQ(memory.Check(0, 0, 100), nullptr);
    MetaRoceConfig c = SmallConfig();
    c.localConnection = 9;
    MetaRoceConnection b(c, &memory);
    EXPECT_EQ(Hand(b, FirstWritePacket(100)).reason, DropReason::AccessError);
    EXPECT_TRUE(Hand(b, FirstWritePacket(100, 7, 0x10000)).accepted);
}

TEST(MetaRoceHostilePacket, NaksForMessagesNeverSentOrFinishedAreCounted)
{
    MetaRoceConfig c = SmallConfig();
    auto [a, b] = ConnectedEnds(c);
    a->PostSend(WorkRequest{1, Opcode::Write, 0, 100}, 0);
    ASSERT_TRUE(a->PullPacket(0, 0));
    MrHeader nak;
    nak.opcode = MrOpcode::Nak;
    nak.connection = 7;
    nak.syndrome = MrNakSyndrome::RemoteAccess;
    auto hand = [&](uint16_t stream, uint32_t msn) {
        nak.stream = stream;
        nak.msn = msn;
        return Hand(*a, nak);
    };
    EXPECT_EQ(hand(0, 1).reason, DropReason::BadField) << "MSN 1 was never sent";
    EXPECT_EQ(hand(1, 0).reason, DropReason::BadField) << "stream 1 sent nothing";
    EXPECT_EQ(hand(UINT16_MAX, 0).reason, DropReason::BadField) << "no such stream";
    EXPECT_EQ(hand(0, UINT32_MAX).reason, DropReason::BadField);
    EXPECT_TRUE(a->TakeCompletions().empty()) << "refused NAKs fail nothing";
    EXPECT_TRUE(hand(0, 0).accepted);
    ASSERT_EQ(a->TakeCompletions().size(), 1u);
    EXPECT_EQ(hand(0, 0).reason, DropReason::Duplicate) << "its message already failed";
    EXPECT_EQ(a->GetCounters().Drops(DropReason::BadField), 4u);
    EXPECT_EQ(a->GetCounters().Drops(DropReason::Duplicate), 1u);
}

/// A transfer between ends whose flows start at `fsnA` and `fsnB`.
void
TransferWithInitialFsns(uint32_t fsnA, uint32_t fsnB)
{
    MetaRoceConfig c = SmallConfig();
    c.flowsPerPort = 4;
    c.localConnection = 7;
    c.remoteConnection = 9;
    c.initialFsn = fsnA;
    c.remoteInitialFsn = fsnB;
    HandDrivenPair pair(c);
    std::swap(c.localConnection, c.remoteConnection);
    std::swap(c.initialFsn, c.remoteInitialFsn);
    pair.b = std::make_unique<MetaRoceConnection>(c);
    TimeNs now = 10;
    for (uint64_t id = 1; id <= 3; ++id)
    {
        pair.a->PostSend(WorkRequest{id, Opcode::Write, 0, 200 * 1024}, now);
    }
    std::size_t completed = 0;
    for (int round = 0; round < 400 && completed < 3; ++round)
    {
        std::vector<OutPacket> sent = PullAllPackets(*pair.a, 0, now);
        if (round == 0)
        {
            ASSERT_FALSE(sent.empty());
            const MrHeader first =
                *MrParse(sent[0].header.data(), sent[0].header.size(), sent[0].WireSize()).header;
            EXPECT_EQ(first.fsn, fsnA) << "a flow's first FSN is the end's initial FSN";
        }
        pair.Deliver(sent, now + 1'000, now + 2'000);
        now += 3'000;
        completed += pair.a->TakeCompletions().size();
    }
    EXPECT_EQ(completed, 3u);
    EXPECT_EQ(pair.b->GetCounters().placedBytes, 3u * 200 * 1024);
    EXPECT_EQ(pair.a->GetCounters().TotalDrops() + pair.b->GetCounters().TotalDrops(), 0u);
}

TEST(MetaRoceHostilePacket, FlowsStartAtTheInitialFsnsAndWrapOnTheWire)
{
    TransferWithInitialFsns(0x12345678, 0x9abcdef0);
    // Every flow of a crosses 2^32 on the wire within the transfer (FSNs are 64-bit inside).
    TransferWithInitialFsns(UINT32_MAX - 20, 5);
}

TEST(MetaRoceHostilePacket, AStrangersGuessOfTheWindowIsNeitherPlacedNorMovesIt)
{
    MetaRoceConfig c = SmallConfig();
    c.localConnection = 9;
    c.remoteInitialFsn = 0x80000000;
    MetaRoceConnection b(c);
    EXPECT_EQ(b.Responder().Window(0).Cumulative(), 0x80000000u);
    MrHeader h = FirstWritePacket(100);
    // Below the window: taken for an old duplicate, acknowledged, never placed.
    h.fsn = h.ackFloor = 0x7fff0000;
    EXPECT_TRUE(Hand(b, h).accepted);
    // Far above: refused, whether the FSN or the floor claims the window moved.
    h.fsn = h.ackFloor = 0x80000000 + (1u << 24) + 1;
    EXPECT_EQ(Hand(b, h).reason, DropReason::FsnOutOfWindow);
    h.ackFloor = 0x80000000;
    EXPECT_EQ(Hand(b, h).reason, DropReason::FsnOutOfWindow);
    EXPECT_EQ(b.GetCounters().placedBytes, 0u);
    EXPECT_EQ(b.Responder().Window(0).Cumulative(), 0x80000000u);
    // A floor that moves the window by a lost run of packets is taken.
    h.fsn = h.ackFloor = 0x80000000 + 1000;
    EXPECT_TRUE(Hand(b, h).accepted);
    EXPECT_EQ(b.GetCounters().placedBytes, 100u);
    EXPECT_EQ(b.Responder().Window(0).Cumulative(), 0x80000000u + 1001);
}

} // namespace
} // namespace metaroce
