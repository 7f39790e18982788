// Recovery at a connection's tail (doc/spec.md 5.4, 5.5): a marker behind the newest packet of
// every path once nothing is left to send, and retransmissions in copies from then on.
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

/// One plane of four paths, ACKs at once, with `tweak` applied.
MetaRoceConfig
SprayedConfig(const std::function<void(MetaRoceConfig&)>& tweak)
{
    MetaRoceConfig c;
    c.pathsPerPort = 4;
    c.mtu = 1024;
    c.ackEveryPackets = 1;
    if (tweak)
    {
        tweak(c);
    }
    return c;
}

/// Two ends with one plane of four paths, ACKs at once, driven by hand.
struct Sprayed : HandDrivenPair
{
    explicit Sprayed(const std::function<void(MetaRoceConfig&)>& tweak = {})
        : HandDrivenPair(SprayedConfig(tweak))
    {
    }
};

/// Per path: the highest PSN of a DATA packet in `packets`, and how many there were.
std::map<uint16_t, std::pair<uint64_t, int>>
DataByPath(const std::vector<OutPacket>& packets)
{
    std::map<uint16_t, std::pair<uint64_t, int>> byPath;
    for (const OutPacket& p : packets)
    {
        const MrHeader h = Parse(p);
        if (h.opcode != MrOpcode::Probe)
        {
            auto& [psn, count] = byPath[h.pathId];
            psn = std::max<uint64_t>(psn, h.psn);
            ++count;
        }
    }
    return byPath;
}

TEST(TailRecovery, EveryPathWithAnUnansweredTailGetsAMarker)
{
    for (bool everyPath : {false, true})
    {
        Sprayed e([&](MetaRoceConfig& c) { c.tailMarkersEveryPath = everyPath; });
        e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
        const std::vector<OutPacket> sent = PullAllPackets(*e.a, 0, 1'000);
        const auto byPath = DataByPath(sent);
        ASSERT_GT(byPath.size(), 1u) << "the packets were sprayed over several paths";
        std::map<uint16_t, uint64_t> markers;
        for (const OutPacket& p : sent)
        {
            const MrHeader h = Parse(p);
            if (h.opcode == MrOpcode::Probe)
            {
                EXPECT_FALSE(p.isControl) << "in the data class, behind its tail";
                EXPECT_TRUE(markers.emplace(h.pathId, h.psn).second) << "one per path";
            }
        }
        if (!everyPath)
        {
            ASSERT_EQ(markers.size(), 1u) << "only the last packet's path";
            EXPECT_EQ(markers.begin()->first, Parse(sent[sent.size() - 2]).pathId);
            continue;
        }
        ASSERT_EQ(markers.size(), byPath.size()) << "every path that carried a tail";
        for (const auto& [path, data] : byPath)
        {
            ASSERT_EQ(markers.count(path), 1u) << "path " << path;
            EXPECT_EQ(markers[path], data.first + 1) << "the next PSN of its path";
        }
        EXPECT_EQ(e.a->GetCounters().tailMarkers, byPath.size());
    }
}

TEST(TailRecovery, ALostTailOnAnotherPathIsFoundOneRoundTripAfterIt)
{
    for (bool everyPath : {false, true})
    {
        Sprayed e([&](MetaRoceConfig& c) { c.tailMarkersEveryPath = everyPath; });
        e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
        const std::vector<OutPacket> sent = PullAllPackets(*e.a, 0, 1'000);
        const auto byPath = DataByPath(sent);
        // The first packet alone on its path: no later packet of its route can expose it, and
        // it is not the connection's last, whose marker exists either way.
        const MrHeader first = Parse(sent[0]);
        ASSERT_EQ(byPath.at(first.pathId).second, 1) << "choose a seed that sprays 4 paths";
        std::vector<OutPacket> arriving(sent.begin() + 1, sent.end());
        e.Deliver(arriving, 3'000, 5'000);
        // The time rule would wait past sentAt + rack.rtt (4 us) + the window (at least the
        // 2 us ACK delay): only a marker's ACK, showing the PSN missing, acts by 5 us.
        auto retx = e.a->PullPacket(0, 5'000);
        if (!everyPath)
        {
            EXPECT_FALSE(retx) << "no evidence yet without a marker on its path";
            continue;
        }
        ASSERT_TRUE(retx);
        const MrHeader h = Parse(*retx);
        EXPECT_TRUE(h.flags & kMrFlagRetx);
        EXPECT_EQ(h.offset, first.offset);
        EXPECT_EQ(e.a->GetCounters().tailProbes, 0u);
        EXPECT_EQ(e.a->GetCounters().fastRetransmits, 1u);
    }
}

TEST(TailRecovery, RetransmissionsGoInCopiesOnceNoNewDataIsLeft)
{
    Sprayed e([](MetaRoceConfig& c) {
        c.pathsPerPort = 1;
        c.tailMarkers = false;
        c.initialPathWindowPackets = 64; // the loss's window cut holds nothing back here
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
    EXPECT_NE(Parse(copies[0]).psn, Parse(copies[1]).psn);
    EXPECT_EQ(e.a->GetCounters().retransmittedPackets, 3u);
    e.Deliver({copies[0]}, 11'000, 13'000); // the second copy is lost: no matter
    EXPECT_EQ(e.a->TakeCompletions().size(), 1u);
}

TEST(TailRecovery, ARecoveryPullReturnsAProvenLossNeverNewData)
{
    Sprayed e([](MetaRoceConfig& c) {
        c.pathsPerPort = 1;
        c.tailMarkers = false;
        c.initialPathWindowPackets = 64;
    });
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 4 * 1024}, 0);
    auto lost = e.a->PullPacket(0, 1'000);
    auto second = e.a->PullPacket(0, 1'000);
    ASSERT_TRUE(lost && second);
    EXPECT_FALSE(e.a->HasRecoveryWork(0)) << "new data is no recovery";
    EXPECT_FALSE(e.a->PullRecoveryPacket(0, 1'000));
    e.Deliver({*second}, 3'000, 5'000); // the ACK shows PSN 0 missing: rule 1
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
    ASSERT_NE(Parse(sent[0]).pathId, Parse(sent[1]).pathId) << "sprayed over two paths";
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
    // Path PSNs 0-2 in flight, 3 acknowledged: 0-2 lost by rule 1 (proven). With a later
    // transmission acknowledged on another path and the window passed, 4 is lost by the time
    // rule (judged).
    Ring<SentPacket> out;
    for (uint64_t psn = 0; psn < 5; ++psn)
    {
        SentPacket p;
        p.psn = psn;
        p.txSeq = psn;
        p.sentAt = 100 * psn;
        p.bytes = 1000;
        p.state = psn == 3 ? SentPacket::State::Acked : SentPacket::State::InFlight;
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
