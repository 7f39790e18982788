// Recovery at a connection's tail (doc/spec.md 7.3, 4.5): a marker behind the newest packet of
// every flow once nothing is left to send, and retransmissions in copies from then on.
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"
#include "send-queue.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <map>

namespace metaroce
{
namespace
{

MrHeader
Parse(const OutPacket& p)
{
    return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
}

/// One plane of four flows, ACKs at once, with `tweak` applied.
MetaRoceConfig
SprayedConfig(const std::function<void(MetaRoceConfig&)>& tweak)
{
    MetaRoceConfig c;
    c.flowsPerPort = 4;
    c.mtu = 1024;
    c.ackEveryPackets = 1;
    if (tweak)
    {
        tweak(c);
    }
    return c;
}

/// Two ends with one plane of four flows, ACKs at once, driven by hand.
struct Sprayed : HandDrivenPair
{
    explicit Sprayed(const std::function<void(MetaRoceConfig&)>& tweak = {})
        : HandDrivenPair(SprayedConfig(tweak))
    {
    }
};

/// Per flow: the highest FSN of a DATA packet in `packets`, and how many there were.
std::map<uint16_t, std::pair<uint64_t, int>>
DataByFlow(const std::vector<OutPacket>& packets)
{
    std::map<uint16_t, std::pair<uint64_t, int>> byFlow;
    for (const OutPacket& p : packets)
    {
        const MrHeader h = Parse(p);
        if (h.opcode != MrOpcode::Probe)
        {
            auto& [fsn, count] = byFlow[h.flowId];
            fsn = std::max<uint64_t>(fsn, h.fsn);
            ++count;
        }
    }
    return byFlow;
}

TEST(TailRecovery, EveryFlowWithAnUnansweredTailGetsAMarker)
{
    Sprayed e;
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    const std::vector<OutPacket> sent = PullAllPackets(*e.a, 0, 1'000);
    const auto byFlow = DataByFlow(sent);
    ASSERT_GT(byFlow.size(), 1u) << "the packets were sprayed over several flows";
    std::map<uint16_t, uint64_t> markers;
    for (const OutPacket& p : sent)
    {
        const MrHeader h = Parse(p);
        if (h.opcode == MrOpcode::Probe)
        {
            EXPECT_FALSE(p.isControl) << "in the data class, behind its tail";
            EXPECT_TRUE(markers.emplace(h.flowId, h.fsn).second) << "one per flow";
        }
    }
    ASSERT_EQ(markers.size(), byFlow.size()) << "every flow that carried a tail";
    for (const auto& [flow, data] : byFlow)
    {
        ASSERT_EQ(markers.count(flow), 1u) << "flow " << flow;
        EXPECT_EQ(markers[flow], data.first + 1) << "the next FSN of its flow";
    }
    EXPECT_EQ(e.a->GetCounters().tailMarkers, byFlow.size());
}

TEST(TailRecovery, ALostTailOnAnotherFlowIsFoundOneRoundTripAfterIt)
{
    Sprayed e;
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    const std::vector<OutPacket> sent = PullAllPackets(*e.a, 0, 1'000);
    const auto byFlow = DataByFlow(sent);
    // The first packet alone on its flow: no later packet of its route can expose it, and it is
    // not the connection's last.
    const MrHeader first = Parse(sent[0]);
    ASSERT_EQ(byFlow.at(first.flowId).second, 1) << "choose a seed that sprays 4 flows";
    std::vector<OutPacket> arriving(sent.begin() + 1, sent.end());
    e.Deliver(arriving, 3'000, 5'000);
    // The time rule would wait past sentAt + rack.rtt (4 us) + the window (at least the 2 us
    // ACK delay): only a marker's ACK on its flow, showing the FSN missing, acts by 5 us.
    auto retx = e.a->PullPacket(0, 5'000);
    ASSERT_TRUE(retx);
    const MrHeader h = Parse(*retx);
    EXPECT_TRUE(h.flags & kMrFlagRetx);
    EXPECT_EQ(h.offset, first.offset);
    EXPECT_EQ(e.a->GetCounters().tailProbes, 0u);
    EXPECT_EQ(e.a->GetCounters().fastRetransmits, 1u);
}

TEST(TailRecovery, RetransmissionsGoInCopiesOnceNoNewDataIsLeft)
{
    Sprayed e([](MetaRoceConfig& c) {
        c.flowsPerPort = 1;
        c.tailMarkers = false;
        c.initialFlowWindowPackets = 64; // the loss's window cut holds nothing back here
    });
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 8 * 1024}, 0);
    std::vector<OutPacket> head;
    for (int i = 0; i < 4; ++i)
    {
        auto p = e.a->PullPacket(0, 1'000);
        ASSERT_TRUE(p) << "packet " << i;
        head.push_back(*p);
    }
    // Packet 0 lost while four packets are still to be sent: one retransmission.
    e.Deliver({head[1], head[2], head[3]}, 3'000, 5'000);
    auto retx = e.a->PullPacket(0, 5'000);
    auto next = e.a->PullPacket(0, 5'000);
    ASSERT_TRUE(retx && next);
    EXPECT_EQ(Parse(*retx).offset, 0u);
    EXPECT_FALSE(Parse(*next).flags & kMrFlagRetx) << "new data, not a copy";
    EXPECT_EQ(Parse(*next).offset, 4u * 1024);
    std::vector<OutPacket> tail{*next};
    for (int i = 0; i < 3; ++i)
    {
        auto p = e.a->PullPacket(0, 5'000);
        ASSERT_TRUE(p) << "packet " << 5 + i;
        tail.push_back(*p);
    }
    EXPECT_FALSE(e.a->PullPacket(0, 5'000)) << "everything sent";
    // Packet 5 lost with nothing new left: the retransmission is a tail and goes twice.
    e.Deliver({*retx, tail[0], tail[2], tail[3]}, 7'000, 9'000);
    std::vector<OutPacket> copies = PullAllPackets(*e.a, 0, 9'000);
    ASSERT_EQ(copies.size(), 2u);
    for (const OutPacket& c : copies)
    {
        EXPECT_EQ(Parse(c).offset, 5u * 1024);
        EXPECT_TRUE(Parse(c).flags & kMrFlagRetx);
    }
    EXPECT_NE(Parse(copies[0]).fsn, Parse(copies[1]).fsn);
    EXPECT_EQ(e.a->GetCounters().retransmittedPackets, 3u);
    e.Deliver({copies[0]}, 11'000, 13'000); // the second copy is lost: no matter
    EXPECT_EQ(e.a->TakeCompletions().size(), 1u);
}

TEST(TailRecovery, ARecoveryPullReturnsAProvenLossNeverNewData)
{
    Sprayed e([](MetaRoceConfig& c) {
        c.flowsPerPort = 1;
        c.tailMarkers = false;
        c.initialFlowWindowPackets = 64;
    });
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    auto lost = e.a->PullPacket(0, 1'000);
    auto second = e.a->PullPacket(0, 1'000);
    ASSERT_TRUE(lost && second);
    EXPECT_FALSE(e.a->HasRecoveryWork(0)) << "new data is no recovery";
    EXPECT_FALSE(e.a->PullRecoveryPacket(0, 1'000));
    e.Deliver({*second}, 3'000, 5'000); // the ACK shows FSN 0 missing: rule 1
    EXPECT_TRUE(e.a->HasRecoveryWork(0));
    auto retx = e.a->PullRecoveryPacket(0, 5'000);
    ASSERT_TRUE(retx);
    EXPECT_EQ(Parse(*retx).offset, 0u);
    EXPECT_TRUE(Parse(*retx).flags & kMrFlagRetx);
    EXPECT_FALSE(e.a->HasRecoveryWork(0)) << "one copy: new data is still to be sent";
    EXPECT_FALSE(e.a->PullRecoveryPacket(0, 5'000));
    auto next = e.a->PullPacket(0, 5'000);
    ASSERT_TRUE(next);
    EXPECT_EQ(Parse(*next).offset, 2u * 1024);
    EXPECT_FALSE(Parse(*next).flags & kMrFlagRetx);
}

TEST(TailRecovery, ALossJudgedByTheTimeRuleWaitsItsTurn)
{
    // The time rule may be wrong (the packet only late): its retransmission is no recovery a
    // NIC puts ahead of other queue pairs, which leaves the late ACK time to cancel it.
    Sprayed e([](MetaRoceConfig& c) {
        c.tailMarkers = false;
        c.tailRetransmitCopies = 1;
    });
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2 * 1024}, 0);
    const std::vector<OutPacket> sent = PullAllPackets(*e.a, 0, 1'000);
    ASSERT_EQ(sent.size(), 2u);
    ASSERT_NE(Parse(sent[0]).flowId, Parse(sent[1]).flowId) << "sprayed over two flows";
    e.Deliver({sent[1]}, 3'000, 5'000);
    const TimeNs due = e.a->NextTimeout();
    e.a->OnTimeout(due);
    ASSERT_EQ(e.a->GetCounters().fastRetransmits, 1u);
    EXPECT_FALSE(e.a->HasRecoveryWork(0));
    EXPECT_FALSE(e.a->PullRecoveryPacket(0, due));
    auto retx = e.a->PullPacket(0, due);
    ASSERT_TRUE(retx);
    EXPECT_EQ(Parse(*retx).offset, 0u);
    EXPECT_TRUE(Parse(*retx).flags & kMrFlagRetx);
}

/// Transmits everything `queue` has to send now, as the requester would; returns how many.
int
SendAll(SendQueue& queue)
{
    int sent = 0;
    while (auto next = queue.Next())
    {
        queue.Take(*next);
        ++sent;
    }
    return sent;
}

TEST(TailRecovery, OnlyAFirstRetransmissionGoesInCopies)
{
    MetaRoceConfig c;
    Counters counters;
    std::vector<Completion> completions;
    SendQueue queue(c, counters, completions);
    queue.Post(WorkRequest{1, Opcode::Write, 0, 4096}, 0);
    ASSERT_EQ(SendAll(queue), 1);
    ASSERT_TRUE(queue.Requeue(0, 0, 10, true));
    EXPECT_TRUE(queue.UrgentRetransmissionFirst());
    EXPECT_EQ(SendAll(queue), 2) << "the tail's first retransmission, twice";
    // Both copies lost (a dead route): each goes again once, so the copies do not multiply.
    ASSERT_TRUE(queue.Requeue(0, 0, 20, true));
    ASSERT_TRUE(queue.Requeue(0, 0, 20, true));
    EXPECT_EQ(SendAll(queue), 2);
    ASSERT_TRUE(queue.Requeue(0, 0, 30, false));
    EXPECT_FALSE(queue.UrgentRetransmissionFirst()) << "judged by the time rule: not urgent";
    EXPECT_EQ(SendAll(queue), 1);
    queue.Acknowledge(0, 0, 40);
    EXPECT_FALSE(queue.Requeue(0, 0, 50, true)) << "delivered: nothing to send again";
    EXPECT_EQ(completions.size(), 1u);
}

TEST(TailRecovery, RuleOneProvesALossTheTimeRuleOnlyJudges)
{
    // Flow FSNs 0-2 in flight, 3 acknowledged: 0-2 lost by rule 1 (proven). With a later
    // transmission acknowledged on another flow and the window passed, 4 is lost by the time
    // rule (judged).
    Ring<SentPacket> out;
    for (uint64_t fsn = 0; fsn < 5; ++fsn)
    {
        SentPacket p;
        p.fsn = fsn;
        p.txSeq = fsn;
        p.sentAt = 100 * fsn;
        p.bytes = 1000;
        p.state = fsn == 3 ? SentPacket::State::Acked : SentPacket::State::InFlight;
        out.push_back(p);
    }
    RackState rack;
    SentPacket later;
    later.txSeq = 9;
    later.sentAt = 900;
    rack.OnAcked(later, 1'900);
    const LossVerdict v = DetectLosses(out, 0, TimeRule{rack, 1'000}, 1'000'000);
    ASSERT_EQ(v.lost.size(), 4u);
    ASSERT_EQ(v.proven.size(), v.lost.size());
    for (std::size_t k = 0; k < v.lost.size(); ++k)
    {
        EXPECT_EQ(v.proven[k], v.lost[k] < 3) << "index " << v.lost[k];
    }
}

} // namespace
} // namespace metaroce
