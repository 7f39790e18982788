// The time rule's window after a spurious loss (spec 4.6, A49): while a connection of the NIC
// has found a loss of the time rule spurious and none has proven a loss within LossMemory, the
// reorder window is at least SpuriousWindowSrttHalves halves of the smoothed RTT; a recent
// proof outranks it.
#include "loss-evidence.h"
#include "metaroce-loss-evidence-fixtures.h"
#include "reorder-window.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

TEST(LossEvidence, OnlySpuriousRecentNeedsARecentSpuriousLossAndNoRecentProof)
{
    LossEvidence e;
    EXPECT_FALSE(e.OnlySpuriousRecent(0, 1'000)) << "nothing recorded";
    e.RecordSpurious(5'000);
    EXPECT_TRUE(e.OnlySpuriousRecent(5'000, 1'000));
    EXPECT_TRUE(e.OnlySpuriousRecent(5'999, 1'000));
    EXPECT_FALSE(e.OnlySpuriousRecent(6'000, 1'000)) << "exactly the memory later: forgotten";
    EXPECT_FALSE(e.OnlySpuriousRecent(4'999, 1'000)) << "a time before it";
    EXPECT_FALSE(e.OnlySpuriousRecent(5'000, 0)) << "no memory: never recent";
    e.Record(5'500);
    EXPECT_FALSE(e.OnlySpuriousRecent(5'600, 1'000)) << "a recent proof outranks it";
    EXPECT_FALSE(e.Recent(6'600, 1'000));
    e.RecordSpurious(6'000);
    EXPECT_TRUE(e.OnlySpuriousRecent(6'600, 1'000)) << "the proof is forgotten, the loss is not";
}

TEST(ReorderWindow, IsAtLeastTheGivenHalvesOfTheSmoothedRtt)
{
    ReorderWindow w(2'000, 3);
    // Before any sample: measured min(2 us + 4 x 1 us, srtt), floor 2 us + 3 x minRtt / 4.
    EXPECT_EQ(w.Window(4'000, 4'000), TimeNs{5'000});
    w.SetSrttHalvesAtLeast(3);
    EXPECT_EQ(w.SrttHalvesAtLeast(), 3u);
    EXPECT_EQ(w.Window(4'000, 4'000), TimeNs{6'000}) << "1.5 srtt, above the cap of one srtt";
    EXPECT_EQ(w.Window(40'000, 4'000), TimeNs{32'000}) << "a higher floor still wins";
    w.SetSrttHalvesAtLeast(0);
    EXPECT_EQ(w.Window(4'000, 4'000), TimeNs{5'000}) << "0: no such bound";
}

/// Two planes, one flow each (metaroce-loss-evidence-fixtures.h), with `halves`.
MetaRoceConfig
TwoPlanesWidening(uint32_t halves)
{
    MetaRoceConfig c = TwoPlanes();
    c.spuriousWindowSrttHalves = halves;
    c.judgeByNicRtt = false; // each connection by its own RTT, unless a test says otherwise
    return c;
}

/// The time rule declares a packet of A lost at its deadline, which then arrives after all:
/// a spurious loss, found at `start` + 14 us.
void
FindSpuriousLoss(HandDrivenPair& m, TimeNs start)
{
    std::optional<OutPacket> late;
    const TimeNs deadline = TimeRuleDeadline(m, start, &late);
    m.a->OnTimeout(deadline);
    ASSERT_TRUE(m.a->PullPacket(0, deadline)) << "the copy";
    RoundTrip(*m.a, *m.b, *late, start + 12'000, start + 14'000);
    ASSERT_EQ(m.a->GetCounters().spuriousLosses, 1u);
}

/// Three connections of one NIC sharing its evidence: one finds a spurious loss, one may prove
/// a loss, and the third is judged.
struct ThreeConnectionsOfANic
{
    explicit ThreeConnectionsOfANic(const MetaRoceConfig& c)
        : spurious(c)
        , prover(c)
        , judged(c)
    {
        spurious.a->ShareLossEvidence(evidence);
        prover.a->ShareLossEvidence(evidence);
        judged.a->ShareLossEvidence(evidence);
    }

    LossEvidence evidence;
    HandDrivenPair spurious;
    HandDrivenPair prover;
    HandDrivenPair judged;
};

// The judged connection's lost packet leaves at 21 us and the rule's RACK packet comes back in
// 4 us, its one RTT sample (srtt 4 us): the window is the quiet floor of 5 us, 1.5 x 4 us after
// a spurious loss, and the measured 4 us above the narrow floor (3 us) after a proof.
constexpr TimeNs kJudgedAt = 20'000;
constexpr TimeNs kQuiet = kJudgedAt + 1'000 + 4'000 + 5'000;
constexpr TimeNs kWide = kJudgedAt + 1'000 + 4'000 + 6'000;
constexpr TimeNs kNarrow = kJudgedAt + 1'000 + 4'000 + 4'000;

TEST(MetaRoceSpuriousWindow, ASpuriousLossOfAnotherConnectionWidensTheWindow)
{
    ThreeConnectionsOfANic nic(TwoPlanesWidening(3));
    FindSpuriousLoss(nic.spurious, 0);
    EXPECT_EQ(TimeRuleDeadline(nic.judged, kJudgedAt), kWide);
    nic.judged.a->OnTimeout(kWide - 1);
    EXPECT_FALSE(nic.judged.a->PullPacket(0, kWide - 1)) << "not lost before the wide deadline";
    nic.judged.a->OnTimeout(kWide);
    EXPECT_TRUE(nic.judged.a->PullPacket(0, kWide)) << "lost at it";
}

TEST(MetaRoceSpuriousWindow, JudgedByTheNicsLongerRttTheWindowWidensFurther)
{
    // The spurious connection's late packet came back after 14 us: the NIC's smoothed RTT is
    // above the judged connection's 4 us, and 1.5 x that is the window (A57).
    MetaRoceConfig c = TwoPlanesWidening(3);
    c.judgeByNicRtt = true;
    ThreeConnectionsOfANic nic(c);
    FindSpuriousLoss(nic.spurious, 0);
    const TimeNs deadline = TimeRuleDeadline(nic.judged, kJudgedAt);
    EXPECT_GT(deadline, kWide);
    nic.judged.a->OnTimeout(deadline - 1);
    EXPECT_FALSE(nic.judged.a->PullPacket(0, deadline - 1)) << "not lost before it";
    nic.judged.a->OnTimeout(deadline);
    EXPECT_TRUE(nic.judged.a->PullPacket(0, deadline)) << "lost at it";
}

TEST(MetaRoceSpuriousWindow, NoWideningWithoutASpuriousLossOrWhenTurnedOff)
{
    ThreeConnectionsOfANic nic(TwoPlanesWidening(3));
    EXPECT_EQ(TimeRuleDeadline(nic.judged, kJudgedAt), kQuiet);
    ThreeConnectionsOfANic off(TwoPlanesWidening(0));
    FindSpuriousLoss(off.spurious, 0);
    EXPECT_EQ(TimeRuleDeadline(off.judged, kJudgedAt), kQuiet);
}

TEST(MetaRoceSpuriousWindow, ARecentProofOutranksASpuriousLoss)
{
    ThreeConnectionsOfANic nic(TwoPlanesWidening(3));
    FindSpuriousLoss(nic.spurious, 0);
    ProveLoss(nic.prover, 16'000);
    EXPECT_EQ(TimeRuleDeadline(nic.judged, kJudgedAt), kNarrow);
}

/// The deadline of a connection outside a NIC (evidence of its own) that found a spurious loss
/// itself before it is judged.
TimeNs
DeadlineAfterItsOwnSpuriousLoss(uint32_t halves)
{
    HandDrivenPair m(TwoPlanesWidening(halves));
    FindSpuriousLoss(m, 0);
    return TimeRuleDeadline(m, kJudgedAt);
}

TEST(MetaRoceSpuriousWindow, ASpuriousLossOfItsOwnWidensTheNextJudgement)
{
    // The late packet's own ACK made the srtt 5.1 us, the next sample 4.98 us: 1.5 x srtt is
    // above both the quiet floor and the measured window, which the run without reaches.
    EXPECT_GT(DeadlineAfterItsOwnSpuriousLoss(3), DeadlineAfterItsOwnSpuriousLoss(0));
}

} // namespace
} // namespace metaroce
