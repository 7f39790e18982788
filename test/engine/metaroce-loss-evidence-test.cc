// The reorder floor chosen by the NIC's loss evidence (spec 4.6, A47): the wide floor until a
// connection proves a loss by rule 1, the narrow one for LossMemory after any proof of any
// connection sharing the evidence, and the wide one again once the proof is that old.
#include "loss-evidence.h"
#include "metaroce-loss-evidence-fixtures.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

TEST(LossEvidence, IsRecentForTheMemoryAfterAProofAndNeverBeforeOne)
{
    LossEvidence e;
    EXPECT_FALSE(e.Recent(0, 1'000)) << "no proof yet";
    EXPECT_FALSE(e.Recent(kNever - 1, kNever));
    e.Record(5'000);
    EXPECT_TRUE(e.Recent(5'000, 1'000));
    EXPECT_TRUE(e.Recent(5'999, 1'000));
    EXPECT_FALSE(e.Recent(6'000, 1'000)) << "exactly the memory later: forgotten";
    EXPECT_FALSE(e.Recent(4'999, 1'000)) << "a time before the proof";
    EXPECT_FALSE(e.Recent(5'000, 0)) << "no memory: never recent";
    e.Record(7'000);
    EXPECT_TRUE(e.Recent(7'500, 1'000)) << "the latest proof counts";
}

/// Two connections of one NIC, sharing its loss evidence: one judges, the other proves.
struct TwoConnectionsOfANic
{
    explicit TwoConnectionsOfANic(const MetaRoceConfig& c)
        : judged(c)
        , prover(c)
    {
        judged.a->ShareLossEvidence(evidence);
        prover.a->ShareLossEvidence(evidence);
    }

    LossEvidence evidence;
    HandDrivenPair judged;
    HandDrivenPair prover;
};

// Before any lateness sample the measured window is min(2 us + 4 x 1 us, srtt 4 us) = 4 us; the
// floor is 2 us + q x 4 us / 4: 5 us with three quarters, 3 us with one. The rule declares the
// lost packet (sent at 1 us) at 1 us + 4 us + max(floor, 4 us).
constexpr TimeNs kQuietDeadline = 1'000 + 4'000 + 5'000;
constexpr TimeNs kNarrowDeadline = 1'000 + 4'000 + 4'000;

TEST(MetaRoceLossEvidence, WithoutAProvenLossALatePacketIsJudgedWithTheWideFloor)
{
    HandDrivenPair m(TwoPlanes(1'000'000));
    EXPECT_EQ(TimeRuleDeadline(m, 0), kQuietDeadline);
    m.a->OnTimeout(kQuietDeadline - 1);
    EXPECT_FALSE(m.a->PullPacket(0, kQuietDeadline - 1)) << "not yet lost";
    m.a->OnTimeout(kQuietDeadline);
    auto retx = m.a->PullPacket(0, kQuietDeadline);
    ASSERT_TRUE(retx);
    const MrHeader h = *MrParse(retx->header.data(), retx->header.size(), retx->WireSize()).header;
    EXPECT_EQ(h.offset, 0u) << "the lost packet";
    EXPECT_TRUE(h.flags & kMrFlagRetx);
}

TEST(MetaRoceLossEvidence, OneFloorWhenBothAreEqual)
{
    MetaRoceConfig c = TwoPlanes(1'000'000);
    c.quietReorderFloorRttQuarters = c.reorderFloorRttQuarters;
    HandDrivenPair m(c);
    EXPECT_EQ(TimeRuleDeadline(m, 0), kNarrowDeadline);
}

TEST(MetaRoceLossEvidence, AProofOfAnotherConnectionOfTheNicNarrowsTheFloor)
{
    TwoConnectionsOfANic nic(TwoPlanes(1'000'000));
    ProveLoss(nic.prover, 5'000);
    EXPECT_EQ(TimeRuleDeadline(nic.judged, 0), kNarrowDeadline)
        << "taken at its ACK, after the proof";
    nic.judged.a->OnTimeout(kNarrowDeadline);
    EXPECT_TRUE(nic.judged.a->PullPacket(0, kNarrowDeadline)) << "the lost packet goes again";
}

TEST(MetaRoceLossEvidence, ConnectionsWithEvidenceOfTheirOwnDoNotShareIt)
{
    const MetaRoceConfig c = TwoPlanes(1'000'000);
    HandDrivenPair judged(c);
    HandDrivenPair prover(c); // evidence of its own: a connection outside a NIC
    ProveLoss(prover, 5'000);
    EXPECT_EQ(TimeRuleDeadline(judged, 0), kQuietDeadline);
}

TEST(MetaRoceLossEvidence, AProofOlderThanTheMemoryIsForgotten)
{
    TwoConnectionsOfANic nic(TwoPlanes(1'000));
    ProveLoss(nic.prover, 4'000); // recent until 5 us; the judged connection's ACK comes at 5.1 us
    EXPECT_EQ(TimeRuleDeadline(nic.judged, 0), kQuietDeadline);
}

/// The time rule's deadline for A's lost packet after a second ACK at 7 us, with a proof of
/// another connection of the NIC at 6 us or none; `before` gets the deadline after the first.
TimeNs
DeadlineAfterASecondAck(bool proof, TimeNs& before)
{
    TwoConnectionsOfANic nic(TwoPlanes(1'000'000));
    HandDrivenPair& judged = nic.judged;
    judged.a->PostSend(WorkRequest{1, Opcode::Write, 0, 3072}, 0);
    auto lost = judged.a->PullPacket(0, 1'000);
    auto first = judged.a->PullPacket(1, 1'100);
    auto second = judged.a->PullPacket(1, 1'200);
    EXPECT_TRUE(lost && first && second);
    RoundTrip(*judged.a, *judged.b, *first, 3'000, 5'100);
    before = judged.a->NextTimeout();
    if (proof)
    {
        ProveLoss(nic.prover, 6'000);
    }
    EXPECT_EQ(judged.a->NextTimeout(), before) << "a proof elsewhere moves no deadline at once";
    RoundTrip(*judged.a, *judged.b, *second, 3'200, 7'000);
    return judged.a->NextTimeout();
}

TEST(MetaRoceLossEvidence, AConnectionFollowsTheEvidenceAtItsNextEvent)
{
    TimeNs before = 0;
    TimeNs beforeWithProof = 0;
    const TimeNs without = DeadlineAfterASecondAck(false, before);
    const TimeNs with = DeadlineAfterASecondAck(true, beforeWithProof);
    EXPECT_EQ(before, kQuietDeadline);
    EXPECT_EQ(beforeWithProof, kQuietDeadline);
    // Second ACK: rack.rtt 5.8 us, srtt 4.225 us, minimum RTT 4 us; the window is the wide
    // floor of 5 us without the proof, the measured 4.225 us above the narrow floor with it.
    EXPECT_EQ(without, TimeNs{1'000 + 5'800 + 5'000});
    EXPECT_EQ(with, TimeNs{1'000 + 5'800 + 4'225});
}

} // namespace
} // namespace metaroce
