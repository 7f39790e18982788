// Connection-wide loss detection, reorder window, tail-loss probe and spurious losses
// (spec 4.6, 4.5, 7.5): the pure parts alone, then a requester packet by packet.
#include "loss-detection.h"
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"
#include "reorder-window.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

SentPacket
Sent(uint64_t txSeq, TimeNs at, SentPacket::State s = SentPacket::State::InFlight)
{
    SentPacket p;
    p.fsn = txSeq;
    p.txSeq = txSeq;
    p.sentAt = at;
    p.message = 1;
    p.state = s;
    return p;
}

TEST(RackState, HoldsTheNewestTransmissionAcknowledged)
{
    RackState rack;
    EXPECT_FALSE(rack.SentAfter(Sent(0, 0)));
    rack.OnAcked(Sent(5, 1'000), 6'000);
    EXPECT_TRUE(rack.valid);
    EXPECT_EQ(rack.txSeq, 5u);
    EXPECT_EQ(rack.rtt, 5'000u);
    rack.OnAcked(Sent(3, 900), 9'000); // older: a late ACK does not move it back
    EXPECT_EQ(rack.txSeq, 5u);
    EXPECT_EQ(rack.rtt, 5'000u);
    EXPECT_TRUE(rack.SentAfter(Sent(4, 950)));
    EXPECT_FALSE(rack.SentAfter(Sent(5, 1'000)));
    EXPECT_FALSE(rack.SentAfter(Sent(6, 1'000))) << "same send time, sent later: not judged";
}

TEST(LossDetection, APacketAckedOnAnotherFlowDeclaresThisOneLostAfterItsRttAndTheWindow)
{
    // This flow's only packet (tx 3) is outstanding; tx 5 went on another flow and came back
    // after 4 us. Rule 1 has nothing to compare with; rule 2 uses the connection's state.
    Ring<SentPacket> out{Sent(3, 1'000)};
    RackState rack;
    rack.OnAcked(Sent(5, 1'200), 5'200);
    const TimeNs window = 2'500;
    const TimeNs deadline = 1'000 + 4'000 + window;
    EXPECT_EQ(LossDeadline(out[0], rack, window), deadline);
    LossVerdict v = DetectLosses(out, 0, TimeRule{rack, window}, deadline - 1);
    EXPECT_TRUE(v.lost.empty());
    EXPECT_EQ(v.nextCheck, deadline);
    v = DetectLosses(out, 0, TimeRule{rack, window}, deadline);
    ASSERT_EQ(v.lost.size(), 1u);
    EXPECT_EQ(v.lost[0], 0u);
    EXPECT_EQ(v.nextCheck, kNever);
}

TEST(LossDetection, APacketOnASlowerFlowIsExpectedBackAfterItsFlowsRtt)
{
    // Spec 4.6, A44: the same packet, but its own flow's smoothed RTT is 9 us (a standing queue
    // on its route) against the 4 us of the later packet's: lost at 1 + 9 us + the window, not
    // at 1 + 4 us + the window. A flow RTT below the RACK round trip changes nothing.
    Ring<SentPacket> out{Sent(3, 1'000)};
    RackState rack;
    rack.OnAcked(Sent(5, 1'200), 5'200);
    const TimeNs window = 2'500;
    TimeRule slow{rack, window};
    slow.flowRtt = 9'000;
    EXPECT_EQ(slow.Deadline(out[0]), 1'000 + 9'000 + window);
    EXPECT_TRUE(DetectLosses(out, 0, slow, 1'000 + 9'000 + window - 1).lost.empty());
    EXPECT_EQ(DetectLosses(out, 0, slow, 1'000 + 9'000 + window).lost.size(), 1u);
    TimeRule fast{rack, window};
    fast.flowRtt = 3'000;
    EXPECT_EQ(fast.Deadline(out[0]), 1'000 + 4'000 + window);
    EXPECT_EQ(LossDeadline(out[0], rack, window, 9'000), 1'000 + 9'000 + window);
}

TEST(LossDetection, OnlyPacketsSentBeforeTheAcknowledgedOneAreJudged)
{
    Ring<SentPacket> out{Sent(2, 100), Sent(7, 700), Sent(9, 900)};
    RackState rack;
    rack.OnAcked(Sent(8, 800), 4'800);
    const LossVerdict v = DetectLosses(out, 0, TimeRule{rack, 1'000}, 1'000'000);
    ASSERT_EQ(v.lost.size(), 2u);
    EXPECT_EQ(v.lost[0], 0u);
    EXPECT_EQ(v.lost[1], 1u) << "tx 9 was sent after tx 8: a tail, left to the probe";
}

TEST(LossDetection, ProbesAreNotJudgedByTime)
{
    SentPacket probe = Sent(1, 0);
    probe.message = kProbeMessage;
    RackState rack;
    rack.OnAcked(Sent(2, 10), 1'000);
    EXPECT_EQ(LossDeadline(probe, rack, 0), kNever);
    EXPECT_TRUE(
        DetectLosses(Ring<SentPacket>{probe}, 0, TimeRule{rack, 0}, 1'000'000).lost.empty());
}

TEST(ReorderWindow, StartsFromTheAckDelayAndNeverGoesBelowItPlusAQuarterOfTheMinimumRtt)
{
    ReorderWindow w(2'000);
    // smoothed 2 us + 4 x 1 us deviation, below srtt
    EXPECT_EQ(w.Window(4'000, 8'000), 6'000u);
    for (int i = 0; i < 200; ++i)
    {
        w.Sample(500); // ACKs barely late: the floor holds
    }
    EXPECT_EQ(w.Window(4'000, 8'000), 2'000u + 1'000u);
}

TEST(ReorderWindow, AFloorOfSeveralQuartersOfTheMinimumRttHoldsAboveSmallLateness)
{
    ReorderWindow one(2'000, 1);
    ReorderWindow three(2'000, 3);
    for (int i = 0; i < 200; ++i)
    {
        one.Sample(500);
        three.Sample(500);
    }
    EXPECT_EQ(one.Window(8'000, 16'000), 2'000u + 2'000u);
    EXPECT_EQ(three.Window(8'000, 16'000), 2'000u + 6'000u) << "three quarters of 8 us";
    EXPECT_EQ(ReorderWindow(2'000, 0).Window(8'000, 1'000), 2'000u) << "the ACK delay alone";
    EXPECT_EQ(three.Window(8'000, 1'000), 8'000u) << "the floor is not capped by srtt";
}

TEST(ReorderWindow, FollowsMeasuredLatenessUpToTheSmoothedRtt)
{
    ReorderWindow w(2'000);
    for (int i = 0; i < 200; ++i)
    {
        w.Sample(i % 2 == 0 ? 4'000 : 12'000); // an incast: planes differ by up to 12 us
    }
    const TimeNs window = w.Window(4'000, 100'000);
    EXPECT_GT(window, 12'000u) << "covers the late samples";
    EXPECT_LT(window, 30'000u);
    EXPECT_EQ(w.Window(4'000, 10'000), 10'000u) << "capped by srtt";
}

/// Two connection ends with `ports` planes of one flow each, driven by hand.
struct Pair
{
    /// Tail markers off, and one reorder floor whatever the loss evidence: the tests here
    /// follow other rules packet by packet (the markers' own are in
    /// metaroce-tail-marker-test.cc, the floor's choice in metaroce-loss-evidence-test.cc).
    explicit Pair(uint16_t ports, uint32_t retransmitCopies = 1, uint32_t ackRepeats = 0)
    {
        MetaRoceConfig c;
        c.retransmitCopies = retransmitCopies;
        c.ackRepeats = ackRepeats;
        c.ports = ports;
        c.flowsPerPort = 1;
        c.initialFlowWindowPackets = 4; // room for four (the default of 8 flows per plane)
        c.retransmitOtherPlane = false; // a retransmission may go on the plane of its loss
        c.mtu = 1024;
        c.ackEveryPackets = 1;
        c.ackDelayNs = 2'000;
        c.tailMarkers = false;
        c.quietReorderFloorRttQuarters = c.reorderFloorRttQuarters;
        std::tie(a, b) = ConnectedEnds(c);
    }

    static std::optional<OutPacket> Pull(MetaRoceConnection& e, uint16_t port, TimeNs now)
    {
        return e.PullPacket(port, now);
    }

    static void Deliver(MetaRoceConnection& e, const OutPacket& p, TimeNs now)
    {
        ASSERT_TRUE(DeliverPacket(e, p, now).accepted);
    }

    /// Delivers `p` to b at `arrive` and b's ACK for it back to a at `ackBack`.
    void RoundTrip(const OutPacket& p, TimeNs arrive, TimeNs ackBack)
    {
        Deliver(*b, p, arrive);
        auto ack = b->PullPacket(p.port, arrive);
        ASSERT_TRUE(ack.has_value());
        Deliver(*a, *ack, ackBack);
    }

    static MrHeader Parse(const OutPacket& p)
    {
        return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
    }

    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

TEST(MetaRoceLossRecovery, LossOnOneFlowIsFoundByALaterPacketOnAnother)
{
    Pair m(2);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    auto first = Pair::Pull(*m.a, 0, 1'000);  // plane 0: lost
    auto second = Pair::Pull(*m.a, 1, 1'100); // plane 1: delivered
    ASSERT_TRUE(first && second);
    m.RoundTrip(*second, 3'000, 5'100); // round trip 4 us
    // sentAt + rack.rtt + window; before any lateness sample the window is min(2 us ACK delay
    // + 4 x 1 us, srtt = 4 us) = 4 us, above its floor of 2 us + 4 us / 4.
    const TimeNs deadline = 1'000 + 4'000 + 4'000;
    EXPECT_EQ(m.a->NextTimeout(), deadline);
    m.a->OnTimeout(deadline - 1);
    EXPECT_FALSE(Pair::Pull(*m.a, 0, deadline - 1));
    m.a->OnTimeout(deadline);
    auto retx = Pair::Pull(*m.a, 0, deadline);
    ASSERT_TRUE(retx);
    const MrHeader h = Pair::Parse(*retx);
    EXPECT_EQ(h.offset, 0u) << "exactly the lost packet";
    EXPECT_TRUE(h.flags & kMrFlagRetx);
    EXPECT_EQ(m.a->GetCounters().fastRetransmits, 1u);
    EXPECT_EQ(m.a->GetCounters().timeouts, 0u);
    EXPECT_EQ(m.a->GetCounters().tailProbes, 0u);
    m.RoundTrip(*retx, deadline + 2'000, deadline + 4'000);
    EXPECT_EQ(m.a->TakeCompletions().size(), 1u);
}

TEST(MetaRoceLossRecovery, AFlowThatRunsSlowIsJudgedByItsOwnRtt)
{
    // Spec 4.6, A44: flow 0's first packet came back after 9 us (a standing queue on its
    // route), so its next one is expected no sooner than 9 us, not after the 4 us of a later
    // packet on the faster flow 1.
    Pair m(2);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 3072}, 0);
    auto slowFirst = Pair::Pull(*m.a, 0, 1'000);
    ASSERT_TRUE(slowFirst);
    m.RoundTrip(*slowFirst, 5'000, 10'000); // flow 0: 9 us
    auto late = Pair::Pull(*m.a, 0, 10'000);
    auto fast = Pair::Pull(*m.a, 1, 10'100);
    ASSERT_TRUE(late && fast);
    m.RoundTrip(*fast, 12'000, 14'100); // flow 1: 4 us
    // Window before any lateness sample: min(2 us ACK delay + 4 x 1 us, srtt) = 6 us.
    const TimeNs window = 6'000;
    const TimeNs deadline = 10'000 + 9'000 + window;
    EXPECT_EQ(m.a->NextTimeout(), deadline) << "not 10 + 4 + 6 us, by the faster flow's RTT";
    m.a->OnTimeout(deadline - 1);
    EXPECT_FALSE(Pair::Pull(*m.a, 0, deadline - 1));
    m.RoundTrip(*late, deadline - 2'000, deadline - 1); // 14.9 us: only late
    EXPECT_EQ(m.a->GetCounters().fastRetransmits, 0u);
    EXPECT_EQ(m.a->TakeCompletions().size(), 1u);
}

TEST(MetaRoceLossRecovery, AYoungerPacketOnAFasterFlowIsDueFirstAndDeclaredThen)
{
    // Spec 4.6, A44: three planes of one flow. Flow 0 ran 9 us; then the oldest packet goes on
    // it (10 us), a younger one on flow 1 (no sample of its own, 10.1 us) and the youngest on
    // flow 2, which comes back after 4 us. The younger packet is due first, at 10.1 + 4 us +
    // the window, before the oldest at 10 + 9 us + the window: NextTimeout() answers the
    // younger one's deadline and OnTimeout() then declares it alone.
    Pair m(3);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 0);
    auto first = Pair::Pull(*m.a, 0, 1'000);
    ASSERT_TRUE(first);
    m.RoundTrip(*first, 5'000, 10'000); // flow 0: 9 us
    m.a->PostSend(WorkRequest{2, Opcode::Write, 0, 3072}, 10'000);
    auto oldest = Pair::Pull(*m.a, 0, 10'000);
    auto younger = Pair::Pull(*m.a, 1, 10'100);
    auto youngest = Pair::Pull(*m.a, 2, 10'200);
    ASSERT_TRUE(oldest && younger && youngest);
    m.RoundTrip(*youngest, 12'000, 14'200); // flow 2: 4 us
    const TimeNs window = 6'000;            // as in the test above: no lateness sample yet
    const TimeNs youngerDue = 10'100 + 4'000 + window;
    EXPECT_EQ(m.a->NextTimeout(), youngerDue);
    m.a->OnTimeout(youngerDue);
    auto retx = Pair::Pull(*m.a, 1, youngerDue);
    ASSERT_TRUE(retx);
    EXPECT_EQ(Pair::Parse(*retx).offset, 1024u) << "the younger packet, not the oldest";
    EXPECT_EQ(m.a->GetCounters().fastRetransmits, 1u);
    EXPECT_EQ(m.a->NextTimeout(), TimeNs{10'000 + 9'000 + window}) << "the oldest's turn next";
}

TEST(MetaRoceLossRecovery, ALateOriginalMakesTheLossSpuriousAndUndoesTheCut)
{
    Pair m(2);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4096}, 0);
    auto lost = Pair::Pull(*m.a, 0, 1'000); // flow 0, FSN 0: really lost
    auto p1 = Pair::Pull(*m.a, 1, 1'100);   // flow 1, FSN 0
    auto late = Pair::Pull(*m.a, 0, 1'200); // flow 0, FSN 1: only late
    auto p1b = Pair::Pull(*m.a, 1, 1'300);  // flow 1, FSN 1
    ASSERT_TRUE(lost && p1 && late && p1b);
    m.RoundTrip(*p1, 3'000, 5'100);
    m.RoundTrip(*p1b, 3'300, 5'300); // rack: the packet sent at 1.3 us, round trip 4 us
    const double windowBefore = m.a->Requester().Flows()[0].window.window;
    m.a->OnTimeout(9'200); // both flow-0 packets past sentAt + 4 us + 4 us
    EXPECT_EQ(m.a->GetCounters().fastRetransmits, 2u);
    EXPECT_LT(m.a->Requester().Flows()[0].window.window, windowBefore) << "loss cuts the flow";
    // The late original arrives above the hole of FSN 0: its SACK bit proves delivery.
    m.RoundTrip(*late, 9'300, 9'500);
    EXPECT_EQ(m.a->GetCounters().spuriousLosses, 1u);
    EXPECT_EQ(m.a->Requester().Flows()[0].window.window, windowBefore) << "cut undone";
    // Nothing new is left to send: each loss was queued in two copies (spec 7.3).
    auto retx = Pair::Pull(*m.a, 0, 9'500);
    auto copy = Pair::Pull(*m.a, 0, 9'500);
    ASSERT_TRUE(retx && copy);
    EXPECT_EQ(Pair::Parse(*retx).offset, 0u) << "the really lost packet goes again";
    EXPECT_EQ(Pair::Parse(*copy).offset, 0u) << "and its copy";
    auto next = Pair::Pull(*m.a, 0, 9'500);
    EXPECT_TRUE(!next || Pair::Parse(*next).opcode == MrOpcode::Probe)
        << "the late one's queued copies are dropped";
    EXPECT_EQ(m.a->GetCounters().retransmittedPackets, 2u);
    m.RoundTrip(*retx, 11'000, 13'000);
    EXPECT_EQ(m.a->TakeCompletions().size(), 1u);
}

TEST(MetaRoceLossRecovery, LostTailIsProbedOnceItsAckIsOverdue)
{
    Pair m(1);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    auto first = Pair::Pull(*m.a, 0, 1'000);
    auto tail = Pair::Pull(*m.a, 0, 1'100); // lost
    ASSERT_TRUE(first && tail);
    EXPECT_FALSE(Pair::Pull(*m.a, 0, 1'200)) << "nothing left to send: a true tail";
    m.RoundTrip(*first, 3'000, 11'000); // srtt 10 us, rttvar 5 us
    // From the tail's own transmission, srtt + 4 rttvar (the time rule would wait less).
    const TimeNs probeAt = 1'100 + 10'000 + 4 * 5'000;
    EXPECT_EQ(m.a->NextTimeout(), probeAt);
    m.a->OnTimeout(probeAt);
    auto probe = Pair::Pull(*m.a, 0, probeAt);
    ASSERT_TRUE(probe);
    EXPECT_EQ(Pair::Parse(*probe).offset, 1024u) << "the tail again";
    EXPECT_EQ(m.a->GetCounters().tailProbes, 1u);
    m.RoundTrip(*probe, probeAt + 2'000, probeAt + 4'000);
    EXPECT_EQ(m.a->TakeCompletions().size(), 1u);
    EXPECT_EQ(m.a->GetCounters().timeouts, 0u);
}

TEST(MetaRoceLossRecovery, ARetransmissionGoesInCopiesOfWhichOneSuffices)
{
    Pair m(2, 2);
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    auto first = Pair::Pull(*m.a, 0, 1'000);  // plane 0: lost
    auto second = Pair::Pull(*m.a, 1, 1'100); // plane 1: delivered
    ASSERT_TRUE(first && second);
    m.RoundTrip(*second, 3'000, 5'100);
    const TimeNs deadline = 1'000 + 4'000 + 4'000; // as in the single-copy test above
    m.a->OnTimeout(deadline);
    auto copy0 = Pair::Pull(*m.a, 0, deadline);
    auto copy1 = Pair::Pull(*m.a, 1, deadline);
    ASSERT_TRUE(copy0 && copy1) << "two copies, one on each plane";
    EXPECT_EQ(Pair::Parse(*copy0).offset, 0u);
    EXPECT_EQ(Pair::Parse(*copy1).offset, 0u);
    EXPECT_TRUE(Pair::Parse(*copy1).flags & kMrFlagRetx);
    EXPECT_FALSE(Pair::Pull(*m.a, 0, deadline)) << "no third";
    EXPECT_EQ(m.a->GetCounters().retransmittedPackets, 2u);
    // The first copy is lost; the second completes the WRITE, with no further recovery.
    m.RoundTrip(*copy1, deadline + 2'000, deadline + 4'000);
    EXPECT_EQ(m.a->TakeCompletions().size(), 1u);
    m.a->OnTimeout(deadline + 1'000'000);
    EXPECT_FALSE(Pair::Pull(*m.a, 0, deadline + 1'000'000)) << "the lost copy is not resent";
    EXPECT_EQ(m.a->GetCounters().retransmittedPackets, 2u);
}

TEST(MetaRoceLossRecovery, ALostAckIsRepeatedByTheNextAckOfAnotherFlow)
{
    for (uint32_t repeats : {0u, 1u})
    {
        Pair m(2, 1, repeats);
        m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
        auto first = Pair::Pull(*m.a, 0, 1'000);  // plane 0: its ACK is lost
        auto second = Pair::Pull(*m.a, 1, 1'100); // plane 1
        ASSERT_TRUE(first && second);
        Pair::Deliver(*m.b, *first, 3'000);
        auto lostAck = m.b->PullPacket(0, 3'000);
        ASSERT_TRUE(lostAck);
        EXPECT_EQ(Pair::Parse(*lostAck).repeatCount, 0) << "no ACK before it to repeat";
        m.RoundTrip(*second, 3'100, 5'100);
        m.a->OnTimeout(1'000'000);
        const Counters& c = m.a->GetCounters();
        if (repeats == 0)
        {
            EXPECT_EQ(c.fastRetransmits, 1u) << "the packet whose ACK was lost goes again";
            continue;
        }
        EXPECT_EQ(c.ackRepeatHits, 1u) << "plane 1's ACK repeated plane 0's";
        EXPECT_EQ(c.retransmittedPackets, 0u);
        EXPECT_EQ(m.a->TakeCompletions().size(), 1u) << "both packets acknowledged";
    }
}

TEST(MetaRoceLossRecovery, ARepeatProvesNoDeliveryWithSackBitsItCannotCarry)
{
    MetaRoceConfig c;
    c.flowsPerPort = 2;
    c.mtu = 1024;
    c.ackEveryPackets = 1;
    c.initialFlowWindowPackets = 64;
    c.maxTailProbes = 0;
    auto [a, b] = ConnectedEnds(c);
    a->PostSend(WorkRequest{1, Opcode::Write, 0, 64 * 1024}, 0);
    std::vector<OutPacket> flow0;
    std::optional<OutPacket> onFlow1;
    for (TimeNs t = 1'000; flow0.size() < 26; t += 10)
    {
        auto p = a->PullPacket(0, t);
        ASSERT_TRUE(p);
        (Pair::Parse(*p).flowId == 0 ? flow0.push_back(*p) : (void)(onFlow1 = *p));
    }
    // FSNs 1-3 of flow 0 arrive, FSN 0 does not: its gap declares it lost (L = next FSN, 26).
    for (int fsn = 1; fsn <= 3; ++fsn)
    {
        Pair::Deliver(*b, flow0[fsn], 2'000);
    }
    auto sack = b->PullPacket(0, 2'000);
    ASSERT_TRUE(sack);
    Pair::Deliver(*a, *sack, 3'000);
    ASSERT_EQ(a->GetCounters().fastRetransmits, 1u);
    // A new packet of flow 0 (FSN >= 26) carries the floor past FSN 0: the receiver's cumulative
    // point jumps to 4 and the new FSN sits 22 above it - beyond a repeat's 16 SACK bits.
    std::optional<OutPacket> later;
    for (TimeNs t = 3'000; !later; t += 10)
    {
        auto p = a->PullPacket(0, t);
        ASSERT_TRUE(p);
        const MrHeader h = Pair::Parse(*p);
        if (h.flowId == 0 && !(h.flags & kMrFlagRetx))
        {
            later = *p;
        }
    }
    Pair::Deliver(*b, *later, 4'000);
    ASSERT_TRUE(b->PullPacket(0, 4'000)) << "flow 0's ACK (cumulative 4, SACK bit 21): lost";
    Pair::Deliver(*b, *onFlow1, 4'100);
    auto ack1 = b->PullPacket(0, 4'100);
    ASSERT_TRUE(ack1);
    const MrHeader h1 = Pair::Parse(*ack1);
    ASSERT_EQ(h1.repeatCount, 1);
    EXPECT_EQ(h1.repeats[0].cumulativeFsn, 4u);
    EXPECT_EQ(h1.repeats[0].sack, 0) << "FSN 26's bit does not fit";
    Pair::Deliver(*a, *ack1, 5'000);
    // By the full SACK FSN 0 is not proven delivered; the repeat must not guess otherwise.
    EXPECT_EQ(a->GetCounters().spuriousLosses, 0u);
}

} // namespace
} // namespace metaroce
