// A flow's due RTO waits for the connection's RTO (spec 4.5, A50): a flow's own samples are
// sparse and lag a growing queue, so the timer stands back until the connection's RTO, from
// every flow's samples, has passed since the packet left.
#include "metaroce-hand-driven.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

MetaRoceConfig
TwoFlows()
{
    MetaRoceConfig c;
    c.ports = 1;
    c.flowsPerPort = 2;
    c.ackEveryPackets = 1;
    c.maxTailProbes = 0;
    c.tailMarkers = false;
    c.entropyRecycling = false; // round-robin: each message on the next flow
    return c;
}

/// Sends one 100-byte message at `at` and acknowledges it after `rtt`.
void
OneMessage(HandDrivenPair& m, uint64_t id, TimeNs at, TimeNs rtt)
{
    m.a->PostSend(WorkRequest{id, Opcode::Write, 0, 100}, at);
    auto p = m.a->PullPacket(0, at);
    ASSERT_TRUE(p);
    ASSERT_TRUE(DeliverPacket(*m.b, *p, at + rtt / 2).accepted);
    auto ack = m.b->PullPacket(0, at + rtt / 2);
    ASSERT_TRUE(ack);
    ASSERT_TRUE(DeliverPacket(*m.a, *ack, at + rtt).accepted);
}

/// Flow 0 samples 2 us, flow 1 then 90 us (connection RTO 104 us, flow 0's 60 us); a third
/// message leaves on flow 0 at 100 us and is never acknowledged. Returns when it times out.
TimeNs
TimeoutOfALostPacket(uint64_t& deferrals)
{
    HandDrivenPair m(TwoFlows());
    OneMessage(m, 1, 1'000, 2'000);
    OneMessage(m, 2, 5'000, 90'000);
    m.a->PostSend(WorkRequest{3, Opcode::Write, 0, 100}, 100'000);
    EXPECT_TRUE(m.a->PullPacket(0, 100'000));
    for (TimeNs t = m.a->NextTimeout(); t != kNever; t = m.a->NextTimeout())
    {
        m.a->OnTimeout(t);
        if (m.a->GetCounters().timeouts > 0)
        {
            deferrals = m.a->GetCounters().rtoDeferrals;
            return t;
        }
    }
    return kNever;
}

TEST(MetaRoceRtoFloor, ADueRtoWaitsForTheConnectionsRto)
{
    uint64_t deferrals = 0;
    EXPECT_EQ(TimeoutOfALostPacket(deferrals), TimeNs{100'000 + 104'000})
        << "not at 100 + 60 us, the flow's own RTO";
    EXPECT_EQ(deferrals, 1u);
}

} // namespace
} // namespace metaroce
