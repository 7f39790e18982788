// ACKs of lone packets (spec 4.2): a DATA packet before which the connection sent
// nothing on its plane in the ACK delay, and that no burst continues on, asks for its ACK at
// once (ACKREQ), as no later packet of its plane will arrive in time to share that ACK.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

MetaRoceConfig
Config(uint16_t flowsPerPort = 8, uint32_t burst = 1)
{
    MetaRoceConfig c;
    c.flowsPerPort = flowsPerPort;
    c.mtu = 1024;
    c.ackEveryPackets = 2;
    c.ackDelayNs = 2'000;
    c.initialFlowWindowPackets = 64;
    c.tailMarkers = false; // the markers have tests of their own
    c.sprayBurstPackets = burst;
    return c;
}

MrHeader
HeaderOf(const OutPacket& p)
{
    return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
}

bool
AsksAck(const MrHeader& h)
{
    return (h.flags & kMrFlagAckReq) != 0;
}

bool
AsksAck(const OutPacket& p)
{
    return AsksAck(HeaderOf(p));
}

std::vector<bool>
AckRequests(const std::vector<OutPacket>& packets)
{
    return EachHeader(packets, [](const MrHeader& h) { return AsksAck(h); });
}

WorkRequest
Write(uint64_t id, uint64_t length)
{
    return WorkRequest{id, Opcode::Write, 0, length};
}

TEST(MetaRoceLoneAck, OnlyTheFirstPacketOfThePlaneAndTheLastAsk)
{
    // Each packet on a flow of its own: the receiver counts the plane's packets across flows,
    // so only the first has no company.
    HandDrivenPair pair(Config());
    pair.a->PostSend(Write(1, 4 * 1024), 0);
    EXPECT_EQ(AckRequests(PullAllPackets(*pair.a, 0, 0)),
              (std::vector<bool>{true, false, false, true}));
}

TEST(MetaRoceLoneAck, PlanesAreLoneApart)
{
    MetaRoceConfig c = Config();
    c.ports = 2;
    HandDrivenPair pair(c);
    pair.a->PostSend(Write(1, 6 * 1024), 0);
    std::vector<bool> asks;
    for (int k = 0; k < 2; ++k)
    {
        for (uint16_t port = 0; port < 2; ++port)
        {
            asks.push_back(AsksAck(*pair.a->PullPacket(port, 100)));
        }
    }
    EXPECT_EQ(asks, (std::vector<bool>{true, true, false, false})) << "the first on each plane";
}

TEST(MetaRoceLoneAck, AMessagesLastPacketOnEachPlaneAsks)
{
    MetaRoceConfig c = Config();
    c.ports = 2;
    HandDrivenPair pair(c);
    pair.a->PostSend(Write(1, 8 * 1024), 0);
    std::vector<bool> asks;
    for (int k = 0; k < 4; ++k)
    {
        for (uint16_t port = 0; port < 2; ++port)
        {
            asks.push_back(AsksAck(*pair.a->PullPacket(port, 100)));
        }
    }
    // The first on each plane is lone; the last two, one per plane, end the message there.
    EXPECT_EQ(asks, (std::vector<bool>{true, true, false, false, false, false, true, true}));
}

TEST(MetaRoceLoneAck, APacketRightBehindAnotherOnItsFlowDoesNotAsk)
{
    HandDrivenPair pair(Config(1));
    pair.a->PostSend(Write(1, 3 * 1024), 0);
    std::vector<bool> asks;
    for (TimeNs now : {0, 100, 200})
    {
        asks.push_back(AsksAck(*pair.a->PullPacket(0, now)));
    }
    EXPECT_EQ(asks, (std::vector<bool>{true, false, true})) << "the first, then the last";
    // After a pause longer than the ACK delay the flow's next packet is lone again; one sent
    // within the delay of the one before is not.
    pair.a->PostSend(Write(2, 3 * 1024), 0);
    EXPECT_FALSE(AsksAck(*pair.a->PullPacket(0, 2'200))) << "2,000 ns after the last: not lone";
    EXPECT_TRUE(AsksAck(*pair.a->PullPacket(0, 4'201))) << "2,001 ns after the one before";
}

TEST(MetaRoceLoneAck, TheFirstPacketOfABurstDoesNotAsk)
{
    HandDrivenPair pair(Config(8, 2));
    const TimeNs now = pair.TimeEveryFlow(); // bursts start on timed flows only (6.2)
    pair.a->PostSend(Write(1, 6 * 1024), now);
    // The second of each burst follows at once and is acknowledged with the first
    // (ackEveryPackets); only the message's last packet asks.
    EXPECT_EQ(AckRequests(PullAllPackets(*pair.a, 0, now)),
              (std::vector<bool>{false, false, false, false, false, true}));
}

TEST(MetaRoceLoneAck, TheReceiverAnswersALonePacketAtOnce)
{
    // The first packet asks; the second, in company, waits for the ACK delay or a partner.
    HandDrivenPair pair(Config());
    pair.a->PostSend(Write(1, 4 * 1024), 0);
    const OutPacket first = *pair.a->PullPacket(0, 0);
    ASSERT_TRUE(AsksAck(first));
    ASSERT_TRUE(DeliverPacket(*pair.b, first, 1'000).accepted);
    EXPECT_TRUE(pair.b->HasWork(0));
    EXPECT_EQ(pair.b->NextTimeout(), kNever);
    ASSERT_TRUE(pair.b->PullPacket(0, 1'000));
    const OutPacket second = *pair.a->PullPacket(0, 0);
    ASSERT_FALSE(AsksAck(second));
    ASSERT_TRUE(DeliverPacket(*pair.b, second, 1'100).accepted);
    EXPECT_FALSE(pair.b->HasWork(0));
    EXPECT_EQ(pair.b->NextTimeout(), 3'100u);
}

} // namespace
} // namespace metaroce
