// The ACK generation rule (spec 4.2): arrivals are counted per connection and plane, across
// flows; an ACK leaves when ackEveryPackets of them wait, when the oldest waited ackDelay, or at
// once for a gap, a mark, a request or a message's last packet. It is the ACK of the flow whose
// arrival sent it, and its repeats cover the plane's other waiting flows as they stand. The
// sender's ACK requests (ACKREQ, its lone packets) are taken off the packets delivered here, so
// that only the receiver's rule decides; metaroce-lone-ack-test.cc tests them.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <set>

namespace metaroce
{
namespace
{

MetaRoceConfig
Config(uint32_t every, uint16_t ports = 1)
{
    MetaRoceConfig c;
    c.ports = ports;
    c.flowsPerPort = 8;
    c.mtu = 1024;
    c.ackEveryPackets = every;
    c.ackDelayNs = 2'000;
    c.ackRepeats = 0; // an ACK names only the flows it covers
    c.initialFlowWindowPackets = 64;
    c.tailMarkers = false; // the markers have tests of their own
    return c;
}

MrHeader
HeaderOf(const OutPacket& p)
{
    return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
}

/// `p` without its ACK request.
OutPacket
WithoutAckRequest(OutPacket p)
{
    MrHeader h = HeaderOf(p);
    h.flags &= ~kMrFlagAckReq;
    MrSerialize(h, p.header.data());
    return p;
}

/// The flows an ACK covers: its own and those its repeats name.
std::set<uint16_t>
Named(const MrHeader& ack)
{
    std::set<uint16_t> flows{ack.flowId};
    for (std::size_t k = 0; k < ack.repeatCount; ++k)
    {
        flows.insert(ack.repeats[k].flowId);
    }
    return flows;
}

/// The packets of one message of `packets` packets on port 0, each on a flow of its own,
/// without their ACK requests.
std::vector<OutPacket>
Sprayed(HandDrivenPair& pair, uint32_t packets, uint16_t port = 0)
{
    pair.a->PostSend(WorkRequest{1, Opcode::Write, 0, uint64_t{packets} * 1024}, 0);
    std::vector<OutPacket> out;
    for (uint32_t k = 0; k < packets; ++k)
    {
        out.push_back(WithoutAckRequest(*pair.a->PullPacket(port, 10)));
    }
    return out;
}

TEST(MetaRoceAckGeneration, PacketsOnDifferentFlowsShareOneAck)
{
    HandDrivenPair pair(Config(2));
    const std::vector<OutPacket> sent = Sprayed(pair, 3);
    ASSERT_NE(HeaderOf(sent[0]).flowId, HeaderOf(sent[1]).flowId);
    ASSERT_TRUE(DeliverPacket(*pair.b, sent[0], 1'000).accepted);
    EXPECT_FALSE(pair.b->HasWork(0)) << "one packet of the plane waits";
    EXPECT_EQ(pair.b->NextTimeout(), 3'000u) << "for at most the ACK delay";
    ASSERT_TRUE(DeliverPacket(*pair.b, sent[1], 1'100).accepted);
    ASSERT_TRUE(pair.b->HasWork(0)) << "two packets of the plane: the batch is full";
    const MrHeader ack = HeaderOf(*pair.b->PullPacket(0, 1'100));
    EXPECT_EQ(ack.opcode, MrOpcode::Ack);
    EXPECT_EQ(ack.flowId, HeaderOf(sent[1]).flowId) << "the ACK of the flow that sent it";
    ASSERT_GE(ack.repeatCount, 1u);
    EXPECT_EQ(ack.repeats[0].flowId, HeaderOf(sent[0]).flowId) << "the waiting flow comes first";
    EXPECT_EQ(ack.repeats[0].cumulativeFsn, HeaderOf(sent[0]).fsn + 1) << "as it stands now";
    EXPECT_FALSE(pair.b->PullPacket(0, 1'100)) << "one ACK for both";
    EXPECT_EQ(pair.b->NextTimeout(), kNever) << "nothing waits any more";
    EXPECT_EQ(pair.b->GetCounters().txAcks, 1u);
}

TEST(MetaRoceAckGeneration, TheOneAckAcknowledgesEveryFlowItCovers)
{
    HandDrivenPair pair(Config(4));
    const std::vector<OutPacket> sent = Sprayed(pair, 4);
    pair.Deliver(sent, 1'000, 2'000);
    EXPECT_EQ(pair.b->GetCounters().txAcks, 1u) << "the last packet (LAST) sent it";
    EXPECT_TRUE(pair.a->Requester().Idle()) << "every packet acknowledged";
    ASSERT_EQ(pair.a->TakeCompletions().size(), 1u);
}

TEST(MetaRoceAckGeneration, ALoneWaitingPacketIsAcknowledgedAfterTheDelay)
{
    HandDrivenPair pair(Config(4));
    const std::vector<OutPacket> sent = Sprayed(pair, 4);
    ASSERT_TRUE(DeliverPacket(*pair.b, sent[0], 1'000).accepted);
    ASSERT_TRUE(DeliverPacket(*pair.b, sent[1], 1'500).accepted);
    EXPECT_EQ(pair.b->NextTimeout(), 3'000u) << "the oldest waiting packet's deadline";
    pair.b->OnTimeout(3'000);
    const MrHeader ack = HeaderOf(*pair.b->PullPacket(0, 3'000));
    EXPECT_EQ(Named(ack), (std::set<uint16_t>{HeaderOf(sent[0]).flowId, HeaderOf(sent[1]).flowId}));
    EXPECT_FALSE(pair.b->PullPacket(0, 3'000));
    EXPECT_EQ(pair.b->NextTimeout(), kNever);
}

TEST(MetaRoceAckGeneration, AMessagesLastPacketIsAcknowledgedAtOnce)
{
    HandDrivenPair pair(Config(8));
    const std::vector<OutPacket> sent = Sprayed(pair, 2);
    ASSERT_NE(HeaderOf(sent[1]).flags & kMrFlagLast, 0);
    ASSERT_TRUE(DeliverPacket(*pair.b, sent[0], 1'000).accepted);
    EXPECT_FALSE(pair.b->HasWork(0));
    ASSERT_TRUE(DeliverPacket(*pair.b, WithoutAckRequest(sent[1]), 1'100).accepted);
    ASSERT_TRUE(pair.b->HasWork(0)) << "LAST, without ACKREQ";
    EXPECT_EQ(Named(HeaderOf(*pair.b->PullPacket(0, 1'100))).size(), 2u);
}

TEST(MetaRoceAckGeneration, AGapIsAcknowledgedAtOnceWithTheWaitingFlows)
{
    MetaRoceConfig c = Config(8);
    c.flowsPerPort = 1; // every packet on one flow: skipping one makes a gap
    HandDrivenPair pair(c);
    pair.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    const std::vector<OutPacket> sent = PullAllPackets(*pair.a, 0, 10);
    ASSERT_TRUE(DeliverPacket(*pair.b, WithoutAckRequest(sent[0]), 1'000).accepted);
    EXPECT_FALSE(pair.b->HasWork(0));
    ASSERT_TRUE(DeliverPacket(*pair.b, WithoutAckRequest(sent[2]), 1'100).accepted);
    ASSERT_TRUE(pair.b->HasWork(0)) << "a gap";
    const MrHeader ack = HeaderOf(*pair.b->PullPacket(0, 1'100));
    EXPECT_EQ(ack.cumulativeFsn, HeaderOf(sent[0]).fsn + 1);
    EXPECT_EQ(ack.sack[0] & 1u, 1u) << "the packet above the gap";
}

TEST(MetaRoceAckGeneration, PlanesAreCountedApart)
{
    HandDrivenPair pair(Config(2, 2));
    pair.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    const OutPacket on0 = WithoutAckRequest(*pair.a->PullPacket(0, 10));
    const OutPacket on1 = WithoutAckRequest(*pair.a->PullPacket(1, 10));
    ASSERT_TRUE(DeliverPacket(*pair.b, on0, 1'000).accepted);
    ASSERT_TRUE(DeliverPacket(*pair.b, on1, 1'000).accepted);
    EXPECT_FALSE(pair.b->HasWork(0)) << "one packet on each plane: neither batch is full";
    EXPECT_FALSE(pair.b->HasWork(1));
    pair.b->OnTimeout(3'000);
    const MrHeader ack0 = HeaderOf(*pair.b->PullPacket(0, 3'000));
    const MrHeader ack1 = HeaderOf(*pair.b->PullPacket(1, 3'000));
    EXPECT_EQ(Named(ack0), std::set<uint16_t>{HeaderOf(on0).flowId}) << "each on its plane";
    EXPECT_EQ(Named(ack1), std::set<uint16_t>{HeaderOf(on1).flowId});
}

TEST(MetaRoceAckGeneration, MoreWaitingFlowsThanAnAckHoldsTakeMoreAcks)
{
    // Eight packets wait when the delay runs out: one ACK names at most 1 + 4 flows, and the
    // next follows at once.
    HandDrivenPair pair(Config(64));
    const std::vector<OutPacket> sent = Sprayed(pair, 9);
    std::set<uint16_t> covered;
    for (std::size_t k = 0; k < 8; ++k)
    {
        ASSERT_TRUE(DeliverPacket(*pair.b, sent[k], 1'000).accepted);
        covered.insert(HeaderOf(sent[k]).flowId);
    }
    EXPECT_FALSE(pair.b->HasWork(0));
    pair.b->OnTimeout(3'000);
    std::set<uint16_t> named;
    std::size_t acks = 0;
    while (auto p = pair.b->PullPacket(0, 3'000))
    {
        const MrHeader ack = HeaderOf(*p);
        EXPECT_LE(ack.repeatCount, kMrMaxAckRepeats);
        for (uint16_t id : Named(ack))
        {
            named.insert(id);
        }
        ++acks;
    }
    EXPECT_EQ(named, covered) << "every waiting flow covered";
    EXPECT_EQ(acks, 2u) << "eight flows, five per ACK";
    EXPECT_EQ(pair.b->NextTimeout(), kNever);
}

TEST(MetaRoceAckGeneration, EveryPacketItsOwnAckWithEveryPacketOne)
{
    HandDrivenPair pair(Config(1));
    pair.Deliver(Sprayed(pair, 6), 1'000, 2'000);
    EXPECT_EQ(pair.b->GetCounters().txAcks, 6u);
    EXPECT_TRUE(pair.a->Requester().Idle());
}

} // namespace
} // namespace metaroce
