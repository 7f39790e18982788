// A flow's due RTO waits for the connection's RTO (spec 4.5, A50) and, with judgeByNicRtt while
// no loss was proven lately, for its NIC's (A57): a flow's own samples are sparse and lag a growing
// queue, and so are those of a connection that hears from its peer rarely, so the timer stands back
// until the RTO from every flow's samples, or from every sample of the NIC's connections, has
// passed since the packet left.
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

/// How a connection sharing its NIC's evidence is judged (A57).
enum class Nic
{
    Apart,       ///< evidence of its own: a connection outside a NIC
    Shared,      ///< shared, judgeByNicRtt, no loss proven
    SharedProof, ///< shared, judgeByNicRtt, a loss proven at 99 us
    SharedOff,   ///< shared, judgeByNicRtt off
};

/// One flow; connection `judged` samples 2 us (its RTO and its flow's: the 60 us floor), then
/// `other` 90 us. Sharing the evidence, the NIC's samples, 2 and 90 us, give an RTO of 104 us.
/// Returns when `judged`'s packet sent at 100 us and never acknowledged times out.
TimeNs
TimeoutBesideASlowConnection(Nic nic)
{
    MetaRoceConfig c = TwoFlows();
    c.flowsPerPort = 1;
    c.judgeByNicRtt = nic != Nic::SharedOff;
    LossEvidence evidence;
    HandDrivenPair judged(c);
    HandDrivenPair other(c);
    if (nic != Nic::Apart)
    {
        judged.a->ShareLossEvidence(evidence);
        other.a->ShareLossEvidence(evidence);
    }
    OneMessage(judged, 1, 1'000, 2'000);
    OneMessage(other, 1, 5'000, 90'000);
    if (nic == Nic::SharedProof)
    {
        evidence.Record(99'000);
    }
    judged.a->PostSend(WorkRequest{2, Opcode::Write, 0, 100}, 100'000);
    EXPECT_TRUE(judged.a->PullPacket(0, 100'000));
    for (TimeNs t = judged.a->NextTimeout(); t != kNever; t = judged.a->NextTimeout())
    {
        judged.a->OnTimeout(t);
        if (judged.a->GetCounters().timeouts > 0)
        {
            return t;
        }
    }
    return kNever;
}

TEST(MetaRoceRtoFloor, WithoutAProvenLossADueRtoWaitsForTheNicsRto)
{
    EXPECT_EQ(TimeoutBesideASlowConnection(Nic::Shared), TimeNs{100'000 + 104'000})
        << "the NIC's samples, 2 and 90 us, not the connection's 2 us";
    EXPECT_EQ(TimeoutBesideASlowConnection(Nic::SharedProof), TimeNs{100'000 + 60'000})
        << "a recent proof: the fabric drops packets, the connection's own RTO";
    EXPECT_EQ(TimeoutBesideASlowConnection(Nic::SharedOff), TimeNs{100'000 + 60'000})
        << "judgeByNicRtt off";
    EXPECT_EQ(TimeoutBesideASlowConnection(Nic::Apart), TimeNs{100'000 + 60'000})
        << "a connection outside a NIC";
}

} // namespace
} // namespace metaroce
