// Bursts on one flow (spec 6.2, sprayBurstPackets): a connection sends that many packets in a
// row on one flow of a port before spraying on, so that a burst comes back in one ACK.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace metaroce
{
namespace
{

MetaRoceConfig
Config(uint32_t burst, uint16_t ports = 1)
{
    MetaRoceConfig c;
    c.ports = ports;
    c.flowsPerPort = 8;
    c.mtu = 1024;
    c.ackEveryPackets = 2;
    c.initialFlowWindowPackets = 64;
    c.tailMarkers = false; // the markers have tests of their own
    c.sprayBurstPackets = burst;
    return c;
}

uint16_t
FlowOf(const OutPacket& p)
{
    return MrParse(p.header.data(), p.header.size(), p.WireSize()).header->flowId;
}

std::vector<uint16_t>
FlowsOf(const std::vector<OutPacket>& packets)
{
    return EachHeader(packets, [](const MrHeader& h) { return h.flowId; });
}

WorkRequest
Write(uint64_t id, uint64_t length)
{
    return WorkRequest{id, Opcode::Write, 0, length};
}

TEST(MetaRoceSprayBurst, ABurstOfTwoTakesOneFlowThenTheNext)
{
    HandDrivenPair one(Config(1));
    one.a->PostSend(Write(1, 8 * 1024), 0);
    EXPECT_EQ(FlowsOf(PullAllPackets(*one.a, 0, 0)),
              (std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7}));

    HandDrivenPair two(Config(2));
    const TimeNs now = two.TimeEveryFlow();
    two.a->PostSend(Write(1, 8 * 1024), now);
    std::vector<uint16_t> flows;
    std::vector<bool> again; // what the NIC is told after each packet (ContinuesBurst)
    while (auto p = two.a->PullPacket(0, now))
    {
        flows.push_back(FlowOf(*p));
        again.push_back(two.a->ContinuesBurst(0));
    }
    EXPECT_EQ(flows, (std::vector<uint16_t>{0, 0, 1, 1, 2, 2, 3, 3}));
    EXPECT_EQ(again, (std::vector<bool>{true, false, true, false, true, false, true, false}));
    EXPECT_FALSE(one.a->ContinuesBurst(0)) << "single packets never ask for the port again";
}

TEST(MetaRoceSprayBurst, AFlowNotYetTimedSendsAlone)
{
    // Before its first ACK a flow's route may hold a first-round queue nobody has measured:
    // a pair there would double its share and arrive later than the time rule expects (4.2).
    HandDrivenPair pair(Config(2));
    pair.a->PostSend(Write(1, 12 * 1024), 10);
    std::vector<OutPacket> first;
    std::vector<bool> again;
    for (int k = 0; k < 8; ++k)
    {
        first.push_back(*pair.a->PullPacket(0, 10));
        again.push_back(pair.a->ContinuesBurst(0));
    }
    EXPECT_EQ(FlowsOf(first), (std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(again, std::vector<bool>(8, false));
    // Flow 0 acknowledged, so timed: it takes the next two packets; flow 1 is not, and sends one.
    pair.Deliver({first[0]}, 100, 200);
    std::vector<uint16_t> flows;
    again.clear();
    while (auto p = pair.a->PullPacket(0, 300))
    {
        flows.push_back(FlowOf(*p));
        again.push_back(pair.a->ContinuesBurst(0));
    }
    EXPECT_EQ(flows, (std::vector<uint16_t>{0, 0, 1, 2}));
    EXPECT_EQ(again, (std::vector<bool>{true, false, false, false}));
}

TEST(MetaRoceSprayBurst, ABurstAsksForThePortAgainOnlyWhileDataWaits)
{
    HandDrivenPair pair(Config(4));
    const TimeNs now = pair.TimeEveryFlow();
    pair.a->PostSend(Write(1, 2 * 1024), now);
    ASSERT_TRUE(pair.a->PullPacket(0, now).has_value());
    EXPECT_TRUE(pair.a->ContinuesBurst(0));
    ASSERT_TRUE(pair.a->PullPacket(0, now).has_value());
    EXPECT_FALSE(pair.a->ContinuesBurst(0)) << "nothing left to send";
    pair.a->PostSend(Write(2, 1024), now);
    EXPECT_TRUE(pair.a->ContinuesBurst(0)) << "the burst has room for two more";
    EXPECT_FALSE(pair.a->ContinuesBurst(1)) << "a port the connection does not have";
}

TEST(MetaRoceSprayBurst, EachPortHasItsOwnBurst)
{
    HandDrivenPair pair(Config(2, 2));
    const TimeNs now = pair.TimeEveryFlow(2);
    pair.a->PostSend(Write(1, 8 * 1024), now);
    std::vector<uint16_t> flows;
    for (int k = 0; k < 4; ++k)
    {
        for (uint16_t port = 0; port < 2; ++port)
        {
            flows.push_back(FlowOf(*pair.a->PullPacket(port, now)));
        }
    }
    // Port 1's flows are 8-15 (spec 6.1); the ports' pulls interleave, their bursts do not mix.
    EXPECT_EQ(flows, (std::vector<uint16_t>{0, 8, 0, 8, 1, 9, 1, 9}));
}

TEST(MetaRoceSprayBurst, ABurstEndsWhereTheFlowHasNoRoom)
{
    MetaRoceConfig c = Config(2);
    c.initialFlowWindowPackets = 1;   // room for one packet at a time (spec 6.2) ...
    c.aimd.additiveIncreaseBytes = 1; // ... still after the ACKs that time the flows
    HandDrivenPair pair(c);
    const TimeNs now = pair.TimeEveryFlow();
    pair.a->PostSend(Write(1, 4 * 1024), now);
    std::vector<uint16_t> flows;
    std::vector<bool> again;
    while (auto p = pair.a->PullPacket(0, now))
    {
        flows.push_back(FlowOf(*p));
        again.push_back(pair.a->ContinuesBurst(0));
    }
    EXPECT_EQ(flows, (std::vector<uint16_t>{0, 1, 2, 3}));
    // A burst cut short ends the NIC's turn with its one packet on another flow, so that a
    // turn never takes more than a burst (spec 6.2).
    EXPECT_EQ(again, (std::vector<bool>{true, false, true, false}));
}

TEST(MetaRoceSprayBurst, ABurstIsAcknowledgedInOneAck)
{
    HandDrivenPair pair(Config(2));
    const TimeNs now = pair.TimeEveryFlow();
    pair.a->PostSend(Write(1, 8 * 1024), now);
    const std::vector<OutPacket> data = PullAllPackets(*pair.a, 0, now);
    ASSERT_TRUE(DeliverPacket(*pair.b, data[0], now + 1'000).accepted);
    EXPECT_FALSE(pair.b->HasWork(0)) << "the first of the burst waits for the second";
    ASSERT_TRUE(DeliverPacket(*pair.b, data[1], now + 1'100).accepted);
    ASSERT_TRUE(pair.b->HasWork(0)) << "ackEveryPackets reached: the ACK goes now";
    const std::optional<OutPacket> ack = pair.b->PullPacket(0, now + 1'100);
    ASSERT_TRUE(ack.has_value());
    const MrHeader h = *MrParse(ack->header.data(), ack->header.size(), ack->WireSize()).header;
    EXPECT_EQ(h.opcode, MrOpcode::Ack);
    EXPECT_EQ(h.flowId, 0);
    EXPECT_EQ(h.cumulativeFsn, 3u) << "one ACK for both packets of the burst (FSN 0 timed it)";
    EXPECT_FALSE(pair.b->HasWork(0));
}

TEST(MetaRoceSprayBurst, ThePacingBucketHoldsABurstPerPort)
{
    // Two ports each give the connection four pulls in a row after an idle spell: all eight go,
    // and the one due (spec 9.4), where a bucket of one packet per port would hold four.
    MetaRoceConfig c = Config(4, 2);
    HandDrivenPair pair(c);
    const TimeNs now = pair.TimeEveryFlow(2);
    pair.b->SetFairShare(10'000'000'000);
    pair.a->PostSend(Write(1, 64 * 1024), now);
    const OutPacket first = *pair.a->PullPacket(0, now);
    pair.Deliver({first, *pair.a->PullPacket(0, now)}, now + 100, now + 200); // a pair: one ACK
    ASSERT_EQ(pair.a->Requester().RateHintBps(), 10'000'000'000u);
    const TimeNs idle = 100'000;
    std::size_t sent = 0;
    for (uint16_t port = 0; port < 2; ++port)
    {
        for (int k = 0; k < 4; ++k)
        {
            sent += pair.a->PullPacket(port, idle).has_value() ? 1 : 0;
        }
    }
    EXPECT_EQ(sent, 8u);
    EXPECT_TRUE(pair.a->PullPacket(0, idle).has_value()) << "the one due";
    EXPECT_FALSE(pair.a->PullPacket(1, idle).has_value()) << "the bucket is empty";
}

TEST(MetaRoceSprayBurst, ABurstLongerThanAFlowWindowIsRefused)
{
    MetaRoceConfig c = Config(1);
    c.sprayBurstPackets = 0;
    EXPECT_THROW(c.Validate(), std::invalid_argument);
    c.sprayBurstPackets = c.maxFlowWindowPackets + 1;
    EXPECT_THROW(c.Validate(), std::invalid_argument);
    c.sprayBurstPackets = c.maxFlowWindowPackets;
    EXPECT_NO_THROW(c.Validate());
}

} // namespace
} // namespace metaroce
