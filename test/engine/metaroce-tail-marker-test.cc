// Tail markers (doc/spec.md 4.5): a data-class PROBE behind every DATA packet after which the
// connection has nothing left to send, whose ACK exposes that packet's loss by rule 1.
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

/// One plane of one flow, ACKs at once; one copy of each retransmission, so that every packet
/// these tests pull is the one they name.
MetaRoceConfig
OneFlowConfig(bool tailMarkers, const std::function<void(MetaRoceConfig&)>& tweak)
{
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    c.initialFlowWindowPackets = 4; // room for four (the default of 8 flows per plane)
    c.mtu = 1024;
    c.ackEveryPackets = 1;
    c.tailMarkers = tailMarkers;
    c.tailRetransmitCopies = 1;
    if (tweak)
    {
        tweak(c);
    }
    return c;
}

/// Two ends of such a connection, driven by hand.
struct Ends : HandDrivenPair
{
    explicit Ends(bool tailMarkers = true, const std::function<void(MetaRoceConfig&)>& tweak = {})
        : HandDrivenPair(OneFlowConfig(tailMarkers, tweak))
    {
    }

    /// Every packet `from` has for port 0 at `now`.
    static std::vector<OutPacket> PullAll(MetaRoceConnection& from, TimeNs now)
    {
        return PullAllPackets(from, 0, now);
    }

    static std::size_t Probes(const std::vector<OutPacket>& packets)
    {
        return static_cast<std::size_t>(
            std::count_if(packets.begin(), packets.end(), [](const OutPacket& p) {
                return Parse(p).opcode == MrOpcode::Probe;
            }));
    }

    static MrHeader Parse(const OutPacket& p)
    {
        return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
    }
};

TEST(TailMarker, FollowsTheLastPacketOnItsFlowInTheDataClass)
{
    Ends e;
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    auto first = e.a->PullPacket(0, 1'000);
    ASSERT_TRUE(first);
    EXPECT_EQ(Ends::Parse(*first).opcode, MrOpcode::Write);
    EXPECT_EQ(e.a->GetCounters().tailMarkers, 0u) << "more data queued: no tail yet";
    auto tail = e.a->PullPacket(0, 1'100);
    auto marker = e.a->PullPacket(0, 1'100);
    ASSERT_TRUE(tail && marker);
    const MrHeader m = Ends::Parse(*marker);
    EXPECT_EQ(m.opcode, MrOpcode::Probe);
    EXPECT_FALSE(marker->isControl) << "behind the tail in its queue, not ahead of it";
    EXPECT_EQ(m.flowId, Ends::Parse(*tail).flowId);
    EXPECT_EQ(m.fsn, Ends::Parse(*tail).fsn + 1);
    EXPECT_EQ(m.flags, 0) << "no ACKREQ: the receiver answers at once only above a gap";
    EXPECT_FALSE(e.a->PullPacket(0, 1'200)) << "one marker per tail";
    EXPECT_EQ(e.a->GetCounters().tailMarkers, 1u);
    e.Deliver({*first, *tail, *marker}, 3'000, 5'000);
    EXPECT_EQ(e.a->TakeCompletions().size(), 1u);
    EXPECT_EQ(e.a->GetCounters().retransmittedPackets, 0u);
}

TEST(TailMarker, ItsAckExposesALostTailOneRoundTripAfterIt)
{
    for (bool markers : {false, true})
    {
        Ends e(markers);
        e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
        auto first = e.a->PullPacket(0, 1'000);
        auto tail = e.a->PullPacket(0, 1'100); // lost
        ASSERT_TRUE(first && tail);
        std::vector<OutPacket> arriving{*first};
        if (markers)
        {
            auto marker = e.a->PullPacket(0, 1'100);
            ASSERT_TRUE(marker);
            arriving.push_back(*marker);
        }
        e.Deliver(arriving, 3'000, 5'000);
        auto retx = e.a->PullPacket(0, 5'000);
        if (!markers)
        {
            // Only the tail-loss probe can find it, srtt + 4 rttvar after the tail left.
            EXPECT_FALSE(retx);
            EXPECT_GT(e.a->NextTimeout(), 5'000u);
            continue;
        }
        ASSERT_TRUE(retx) << "the marker's ACK shows the tail's FSN missing (rule 1)";
        const MrHeader h = Ends::Parse(*retx);
        EXPECT_EQ(h.offset, 1024u);
        EXPECT_TRUE(h.flags & kMrFlagRetx);
        EXPECT_EQ(e.a->GetCounters().tailProbes, 0u) << "found by rule 1, not by the probe";
        auto again = e.a->PullPacket(0, 5'000);
        ASSERT_TRUE(again) << "the retransmission is a tail too";
        EXPECT_EQ(Ends::Parse(*again).opcode, MrOpcode::Probe);
        e.Deliver({*retx, *again}, 7'000, 9'000);
        EXPECT_EQ(e.a->TakeCompletions().size(), 1u);
        EXPECT_EQ(e.a->GetCounters().tailMarkers, 2u);
    }
}

TEST(TailMarker, ALostMarkerStartsNoTimerAndHoldsNoWindow)
{
    Ends e;
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 0);
    auto tail = e.a->PullPacket(0, 1'000);
    auto marker = e.a->PullPacket(0, 1'000); // lost
    ASSERT_TRUE(tail && marker);
    e.Deliver({*tail}, 3'000, 5'000);
    EXPECT_EQ(e.a->TakeCompletions().size(), 1u);
    // Only the marker is in flight: no retransmission timeout waits on it, and it holds no
    // window (on a Suspect flow, one packet at a time, it would otherwise block the flow).
    EXPECT_EQ(e.a->Requester().Flows()[0].inflightBytes, 0u);
    EXPECT_EQ(e.a->NextTimeout(), kNever);
    e.a->OnTimeout(10'000'000);
    EXPECT_EQ(e.a->GetCounters().timeouts, 0u);
    EXPECT_EQ(e.a->Requester().Flows()[0].health, FlowHealth::Up);
}

TEST(TailMarker, ItsAckAloneIsNoProgress)
{
    Ends e;
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 0);
    auto tail = e.a->PullPacket(0, 1'000);
    auto marker = e.a->PullPacket(0, 1'000);
    ASSERT_TRUE(tail && marker);
    // Both lost, and no RTT sample for a probe: the RTO fires and makes the flow Suspect.
    const TimeNs rto = e.a->NextTimeout();
    e.a->OnTimeout(rto);
    ASSERT_EQ(e.a->GetCounters().timeouts, 1u);
    ASSERT_EQ(e.a->Requester().Flows()[0].health, FlowHealth::Suspect);
    auto retx = e.a->PullPacket(0, rto);
    auto again = e.a->PullPacket(0, rto);
    ASSERT_TRUE(retx && again);
    ASSERT_EQ(Ends::Parse(*again).opcode, MrOpcode::Probe);
    // Only the marker gets through: the retransmission is lost (rule 1), and the flow, which
    // delivered no data, stays Suspect with its timeout count.
    e.Deliver({*again}, rto + 2'000, rto + 4'000);
    EXPECT_EQ(e.a->Requester().Flows()[0].health, FlowHealth::Suspect);
    EXPECT_EQ(e.a->Requester().Flows()[0].consecutiveTimeouts, 1u);
    EXPECT_GE(e.a->GetCounters().fastRetransmits, 1u);
}

TEST(TailMarker, NoneWhereItCouldNotExposeAnything)
{
    // A full FSN span: the receiver would refuse a FSN 4 above the floor.
    Ends full(true, [](MetaRoceConfig& c) {
        c.maxFlowWindowPackets = 4;
        c.initialFlowWindowPackets = 4;
    });
    full.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    EXPECT_EQ(Ends::Probes(Ends::PullAll(*full.a, 1'000)), 0u) << "the tail took the last FSN";
    // A reorder tolerance: rule 1 needs a hole wider than one FSN.
    Ends tolerant(true, [](MetaRoceConfig& c) { c.reorderTolerancePackets = 1; });
    tolerant.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    EXPECT_EQ(Ends::Probes(Ends::PullAll(*tolerant.a, 1'000)), 0u);
    // Data held back by the receiver's admission is not a tail: the credit releases it.
    Ends admitted(true, [](MetaRoceConfig& c) { c.unscheduledBytes = 1024 + 64; });
    admitted.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    const auto first = Ends::PullAll(*admitted.a, 1'000);
    EXPECT_EQ(first.size(), 1u) << "one packet of unscheduled window, and no marker";
    EXPECT_EQ(admitted.a->GetCounters().tailMarkers, 0u);
}

TEST(TailMarker, ARefusedSendIsMarkedFourTimesThenBacksOff)
{
    // No RECV is posted: the receiver refuses the SEND every time (spec 13) but acknowledges
    // the markers, which would otherwise bring it back every round trip.
    Ends e;
    e.a->PostSend(WorkRequest{1, Opcode::Send, 0, 1024}, 0);
    TimeNs now = 1'000;
    std::vector<std::size_t> probes;
    for (int round = 0; round < 5; ++round)
    {
        auto sent = Ends::PullAll(*e.a, now);
        ASSERT_EQ(sent.size() - Ends::Probes(sent), 1u) << "the SEND, round " << round;
        probes.push_back(Ends::Probes(sent));
        for (const OutPacket& p : sent)
        {
            DeliverPacket(*e.b, p, now + 2'000);
        }
        while (auto ack = e.b->PullPacket(0, now + 2'000))
        {
            DeliverPacket(*e.a, *ack, now + 4'000);
        }
        now += 4'000;
    }
    const std::vector<std::size_t> expected{1, 1, 1, 1, 0};
    EXPECT_EQ(probes, expected) << "the fifth transmission waits for the probe or the RTO";
    EXPECT_EQ(e.a->GetCounters().tailMarkers, 4u);
}

/// Records a packet of `message` as sent on `flow` under its next FSN and current epoch.
void
RecordOn(Flow& flow, uint64_t message, SentPacket::State state = SentPacket::State::InFlight)
{
    SentPacket p;
    p.fsn = flow.nextFsn++;
    p.epoch = flow.epoch;
    p.message = message;
    p.state = state;
    flow.outstanding.push_back(p);
}

/// A flow whose floor is a tail marker sent in epoch 0, with data of a later epoch behind it.
Flow
FlowWithMarkerAtFloor()
{
    Flow flow(0, 0, 4000, 10'000);
    RecordOn(flow, kProbeMessage); // the marker, lost
    flow.Redraw(4001); // a loss elsewhere on the flow moved it: the sequence rule cannot reach
    RecordOn(flow, 7);
    RecordOn(flow, 7);
    return flow;
}

TEST(TailMarker, AMarkerIsGivenUpOnceALaterPacketOfItsFlowIsAcknowledged)
{
    Flow flow = FlowWithMarkerAtFloor();
    flow.PopResolved();
    EXPECT_EQ(flow.Floor(), 0u) << "nothing later acknowledged: the marker may still be answered";
    flow.outstanding[2].state = SentPacket::State::Acked;
    flow.PopResolved();
    EXPECT_EQ(flow.Floor(), 1u) << "given up, while the data before the acknowledged packet waits";
    flow.outstanding[0].state = SentPacket::State::Acked;
    flow.PopResolved();
    EXPECT_EQ(flow.Floor(), flow.nextFsn);
}

TEST(TailMarker, ALostMarkerDoesNotCloseItsFlow)
{
    // Before markers were given up, lost ones held their flows' floors until each flow's
    // 256-FSN span was full and it sent nothing more (spec 4.5, 6.2).
    Flow flow = FlowWithMarkerAtFloor();
    flow.outstanding[1].state = SentPacket::State::Acked;
    flow.outstanding[2].state = SentPacket::State::Acked;
    for (int i = 0; i < 300; ++i)
    {
        RecordOn(flow, 8, SentPacket::State::Acked);
        flow.PopResolved();
        ASSERT_TRUE(flow.HasRoom(1024, kSackBits)) << "after " << i << " packets";
    }
}

} // namespace
} // namespace metaroce
