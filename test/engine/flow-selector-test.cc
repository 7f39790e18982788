// Flow selection (spec 6.2): spraying round-robin, and with entropy recycling (the default)
// over the flows whose packets came back without a mark first.
#include "flow-recovery.h"
#include "flow-selector.h"
#include "flow-table.h"
#include "metaroce-hand-driven.h"

#include <gtest/gtest.h>
#include <map>

namespace metaroce
{
namespace
{

MetaRoceConfig
OnePortOfFour(bool recycling = true)
{
    MetaRoceConfig config;
    config.ports = 1;
    config.flowsPerPort = 4;
    config.entropyRecycling = recycling;
    return config;
}

/// A connection's flow table, made, with the recovery that drew its entropies.
struct Table
{
    explicit Table(const MetaRoceConfig& c)
        : config(c)
        , recovery(config, counters, IdsOf(config))
        , flows(config, 0)
    {
        flows.Make(recovery);
    }

    MetaRoceConfig config;
    Counters counters;
    FlowRecovery recovery;
    FlowTable flows;
};

constexpr uint32_t kBytes = 4160;

TEST(FlowSelector, WithoutRecyclingSprayIsRoundRobinOverClearFlowsFirst)
{
    Table t(OnePortOfFour(false));
    SprayFlowSelector spray;
    EXPECT_STREQ(spray.Name(), "spray");
    EXPECT_EQ(spray.Select(t.flows, 0, kBytes, 256), 0);
    EXPECT_EQ(spray.Select(t.flows, 0, kBytes, 256), 1);
    spray.OnAck(t.flows, t.flows[0], 2, 0); // earns nothing without recycling
    EXPECT_EQ(spray.Credits(0), 0u);
    t.flows[2].markedRounds = 1; // marked: only in the second pass
    EXPECT_EQ(spray.Select(t.flows, 0, kBytes, 256), 3);
    EXPECT_EQ(spray.Select(t.flows, 0, kBytes, 256), 0);
}

TEST(FlowSelector, RecyclingReusesFlowsThatCameBackClean)
{
    Table t(OnePortOfFour());
    SprayFlowSelector recycle;
    // No credits yet: round-robin, as spraying.
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 0);
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 1);
    // Flow 3 delivered two packets clean, flow 1 one with a mark.
    recycle.OnAck(t.flows, t.flows[3], 2, 0);
    recycle.OnAck(t.flows, t.flows[1], 1, 1);
    EXPECT_EQ(recycle.Credits(3), 2u);
    EXPECT_EQ(recycle.Credits(1), 0u);
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 3);
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 3);
    EXPECT_EQ(recycle.Credits(3), 0u);
    // Credits spent: back to round-robin from past the last choice.
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 0);
}

TEST(FlowSelector, AMarkOrANewRouteVoidsAFlowsCredits)
{
    Table t(OnePortOfFour());
    SprayFlowSelector recycle;
    recycle.OnAck(t.flows, t.flows[2], 3, 0);
    recycle.OnAck(t.flows, t.flows[3], 3, 0);
    EXPECT_EQ(recycle.Credits(2), 3u);
    recycle.OnAck(t.flows, t.flows[2], 1, 1); // a marked ACK: its route queues
    EXPECT_EQ(recycle.Credits(2), 0u);
    t.flows[3].Redraw(60000); // a new route: what the old one delivered says nothing of it
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 0) << "flow 3's credits are void";
    EXPECT_EQ(recycle.Credits(3), 0u);
    recycle.OnAck(t.flows, t.flows[3], 1, 0); // the new route delivered
    EXPECT_EQ(recycle.Credits(3), 1u);
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 3);
}

TEST(FlowSelector, ACreditedFlowWithoutRoomKeepsItsCreditsForLater)
{
    MetaRoceConfig c = OnePortOfFour();
    Table t(c);
    SprayFlowSelector recycle;
    recycle.OnAck(t.flows, t.flows[2], 2, 0);
    // Flow 2 at the end of its SACK span: no room now.
    t.flows[2].nextFsn = 300;
    t.flows[2].outstanding.push_back(SentPacket{});
    t.flows[2].outstanding.front().fsn = 0;
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 0);
    EXPECT_EQ(recycle.Credits(2), 2u);
    t.flows[2].outstanding.clear();
    EXPECT_EQ(recycle.Select(t.flows, 0, kBytes, 256), 2);
    EXPECT_EQ(recycle.Credits(2), 1u);
}

TEST(FlowSelector, CreditsAreCappedAtTheSackSpan)
{
    Table t(OnePortOfFour());
    SprayFlowSelector recycle;
    for (int k = 0; k < 10; ++k)
    {
        recycle.OnAck(t.flows, t.flows[1], 100, 0);
    }
    EXPECT_EQ(recycle.Credits(1), 256u);
}

/// Sends `messages` one-packet WRITEs, one at a time; each packet's ACK echoes a mark when it
/// went on flow `marked`. Returns the packets each flow carried.
std::map<uint16_t, int>
PacketsPerFlow(bool recycling, uint16_t marked, int messages)
{
    MetaRoceConfig c = OnePortOfFour(recycling);
    c.ackEveryPackets = 1;
    c.tailMarkers = false;
    c.entropyRedrawMarks = 1000; // keep every flow on its route
    HandDrivenPair m(c);
    std::map<uint16_t, int> carried;
    TimeNs now = 1'000;
    for (int k = 0; k < messages; ++k, now += 20'000)
    {
        m.a->PostSend(WorkRequest{static_cast<uint64_t>(k + 1), Opcode::Write, 0, 100}, now);
        const auto p = m.a->PullPacket(0, now);
        EXPECT_TRUE(p);
        if (!p)
        {
            break;
        }
        const uint16_t flow =
            MrParse(p->header.data(), p->header.size(), p->WireSize()).header->flowId;
        ++carried[flow];
        const bool ce = flow == marked;
        EXPECT_TRUE(DeliverPacket(*m.b, *p, now + 4'000, ce).accepted);
        const auto ack = m.b->PullPacket(0, now + 4'000);
        EXPECT_TRUE(ack);
        if (ack)
        {
            EXPECT_TRUE(DeliverPacket(*m.a, *ack, now + 8'000).accepted);
        }
    }
    return carried;
}

TEST(FlowSelector, AConnectionKeepsToTheRoutesThatCameBackClean)
{
    // Both leave the marked flow after its first packet. Round-robin then spreads the rest
    // evenly over the clear flows; recycling sends each packet where the last one came back
    // clean, so one packet in flight at a time stays on one clean route.
    const auto spray = PacketsPerFlow(false, 0, 40);
    EXPECT_EQ(spray.at(0), 1);
    EXPECT_EQ(spray.at(1), 13);
    EXPECT_EQ(spray.at(3), 13);
    const auto recycle = PacketsPerFlow(true, 0, 40);
    EXPECT_EQ(recycle.at(0), 1);
    EXPECT_EQ(recycle.at(1), 39);
}

} // namespace
} // namespace metaroce

namespace metaroce
{
namespace
{

/// Two planes of one flow; one packet is lost to timeouts on plane 0 twice. Returns the ports
/// its three transmissions left on (0xff: none), pulling port 0 before port 1 each time.
std::vector<uint16_t>
PortsOfAPacketLostTwice(bool otherPlane)
{
    MetaRoceConfig c;
    c.ports = 2;
    c.flowsPerPort = 1;
    c.ackEveryPackets = 1;
    c.maxTailProbes = 0;
    c.tailMarkers = false;
    c.tailRetransmitCopies = 1; // one transmission per loss
    c.retransmitOtherPlane = otherPlane;
    HandDrivenPair m(c);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 100}, 0);
    std::vector<uint16_t> ports;
    TimeNs now = 0;
    for (int transmission = 0; transmission < 3; ++transmission)
    {
        if (transmission > 0)
        {
            now = m.a->NextTimeout();
            m.a->OnTimeout(now); // the last transmission is lost
        }
        uint16_t port = 0xff;
        for (uint16_t p : {uint16_t{0}, uint16_t{1}})
        {
            if (m.a->PullPacket(p, now))
            {
                port = p;
                break;
            }
        }
        ports.push_back(port);
    }
    return ports;
}

TEST(RetransmitOtherPlane, APacketLostTwiceKeepsOffThePlaneOfItsLastLoss)
{
    // Spec 7.3, A54: lost once, the packet goes again on any plane (port 0 pulls first); lost
    // again there, port 0 leaves it to port 1.
    EXPECT_EQ(PortsOfAPacketLostTwice(true), (std::vector<uint16_t>{0, 0, 1}));
    EXPECT_EQ(PortsOfAPacketLostTwice(false), (std::vector<uint16_t>{0, 0, 0}));
}

} // namespace
} // namespace metaroce
