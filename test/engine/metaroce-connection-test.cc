// MetaRoCE connection behaviour packet by packet (spec 5, 7, 8): validation, direct placement,
// per-stream order, ACK policy, exact retransmission, timeouts, NAKs, entropy moves.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <functional>
#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

/// Two connection ends driven by hand: packets are pulled and delivered explicitly.
struct Manual
{
    explicit Manual(uint16_t ports = 1,
                    uint16_t flows = 1,
                    const std::function<void(MetaRoceConfig&)>& tweak = {})
    {
        MetaRoceConfig c;
        c.ports = ports;
        c.flowsPerPort = flows;
        c.streams = 4;
        c.mtu = 1024;
        c.ackEveryPackets = 4;
        c.initialFlowWindowPackets = 64;
        // These tests hand over exactly the packets they expect; the PROBE a tail marker adds
        // behind each tail has tests of its own (metaroce-tail-marker-test.cc).
        c.tailMarkers = false;
        if (tweak)
        {
            tweak(c);
        }
        std::tie(a, b) = ConnectedEnds(c);
    }

    static std::vector<OutPacket> PullAll(MetaRoceConnection& e, uint16_t port, TimeNs now)
    {
        return PullAllPackets(e, port, now);
    }

    static RxResult Deliver(MetaRoceConnection& e, const OutPacket& p, TimeNs now, bool ce = false)
    {
        return DeliverPacket(e, p, now, ce);
    }

    static MrHeader Parse(const OutPacket& p)
    {
        return *MrParse(p.header.data(), p.header.size(), p.WireSize()).header;
    }

    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

WorkRequest
Write(uint64_t id, uint64_t length, uint16_t stream = 0)
{
    return WorkRequest{id, Opcode::Write, stream, length};
}

TEST(MetaRoceConnection, RefusedPacketsChangeNothingButTheirCounter)
{
    Manual m;
    m.a->PostSend(Write(1, 4096), 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    ASSERT_EQ(data.size(), 4u);

    // Wrong destination connection.
    OutPacket wrong = data[0];
    wrong.header[7] ^= 0xff;
    EXPECT_EQ(Manual::Deliver(*m.b, wrong, 10).reason, DropReason::WrongConnection);
    // FSN beyond the 256-packet window above the floor.
    MrHeader h = Manual::Parse(data[1]);
    h.fsn = h.ackFloor + 256;
    OutPacket far = data[1];
    MrSerialize(h, far.header.data());
    EXPECT_EQ(Manual::Deliver(*m.b, far, 10).reason, DropReason::FsnOutOfWindow);
    // A flow id that does not exist.
    h = Manual::Parse(data[1]);
    h.flowId = 5;
    OutPacket badFlow = data[1];
    MrSerialize(h, badFlow.header.data());
    EXPECT_EQ(Manual::Deliver(*m.b, badFlow, 10).reason, DropReason::BadField);
    // Nothing of it was acknowledged or placed.
    EXPECT_FALSE(m.b->HasWork(0));
    EXPECT_EQ(m.b->GetCounters().placedBytes, 0u);
    EXPECT_EQ(m.b->GetCounters().TotalDrops(), 3u);
    EXPECT_EQ(m.b->Responder().Window(0).Cumulative(), 0u);

    for (const auto& p : data)
    {
        EXPECT_TRUE(Manual::Deliver(*m.b, p, 20).accepted);
    }
    EXPECT_EQ(m.b->GetCounters().placedBytes, 4096u);
}

TEST(MetaRoceConnection, AcksNamingUnsentFsnsAreRefused)
{
    Manual m;
    m.a->PostSend(Write(1, 2048), 0);
    auto data = Manual::PullAll(*m.a, 0, 0); // FSNs 0 and 1
    MrHeader ack;
    ack.opcode = MrOpcode::Ack;
    ack.connection = 7;
    ack.cumulativeFsn = 3; // beyond nextFsn = 2
    OutPacket p;
    p.header.resize(ack.Size());
    MrSerialize(ack, p.header.data());
    EXPECT_EQ(Manual::Deliver(*m.a, p, 5).reason, DropReason::AckOutOfWindow);
    ack.cumulativeFsn = 1;
    ack.sack.set(0); // FSN 2: never sent
    MrSerialize(ack, p.header.data());
    EXPECT_EQ(Manual::Deliver(*m.a, p, 5).reason, DropReason::AckOutOfWindow);
    ack.sack.reset();
    MrSerialize(ack, p.header.data());
    EXPECT_TRUE(Manual::Deliver(*m.a, p, 5).accepted);
    EXPECT_EQ(m.a->GetCounters().Drops(DropReason::AckOutOfWindow), 2u);
}

TEST(MetaRoceConnection, LaterSendIsPlacedFirstButCompletesInOrder)
{
    Manual m;
    m.b->PostRecv(WorkRequest{100, Opcode::Recv, 0, 2048});
    m.b->PostRecv(WorkRequest{101, Opcode::Recv, 0, 2048});
    m.a->PostSend(WorkRequest{1, Opcode::Send, 0, 2048}, 0);
    m.a->PostSend(WorkRequest{2, Opcode::Send, 0, 2048}, 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    ASSERT_EQ(data.size(), 4u);
    // The second message arrives first: placed at once, no completion yet.
    Manual::Deliver(*m.b, data[2], 10);
    Manual::Deliver(*m.b, data[3], 10);
    EXPECT_EQ(m.b->GetCounters().placedBytes, 2048u);
    EXPECT_TRUE(m.b->TakeCompletions().empty());
    Manual::Deliver(*m.b, data[0], 11);
    Manual::Deliver(*m.b, data[1], 11);
    const auto done = m.b->TakeCompletions();
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].wrId, 100u);
    EXPECT_EQ(done[1].wrId, 101u);
}

TEST(MetaRoceConnection, StreamsAreIndependent)
{
    Manual m;
    m.b->PostRecv(WorkRequest{100, Opcode::Recv, 0, 1024});
    m.b->PostRecv(WorkRequest{200, Opcode::Recv, 1, 1024});
    m.a->PostSend(WorkRequest{1, Opcode::Send, 0, 1024}, 0);
    m.a->PostSend(WorkRequest{2, Opcode::Send, 1, 1024}, 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    Manual::Deliver(*m.b, data[1], 10); // stream 1 completes although stream 0 has nothing
    const auto done = m.b->TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].wrId, 200u);
}

TEST(MetaRoceConnection, AckIsCoalescedUnlessThereIsAGapOrAMark)
{
    // The responder's coalescing: the first packet's ACK request (it is lone on its plane,
    // metaroce-lone-ack-test.cc) is taken off, so that no packet asks for its ACK.
    Manual m(1, 1);
    m.a->PostSend(Write(1, 8 * 1024), 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    ASSERT_EQ(data.size(), 8u);
    MrHeader first = Manual::Parse(data[0]);
    ASSERT_TRUE(first.flags & kMrFlagAckReq);
    first.flags &= ~kMrFlagAckReq;
    MrSerialize(first, data[0].header.data());
    Manual::Deliver(*m.b, data[0], 10);
    EXPECT_FALSE(m.b->HasWork(0)) << "one packet: the ACK waits for more or for the delay";
    EXPECT_EQ(m.b->NextTimeout(), 10 + MetaRoceConfig{}.ackDelayNs);
    Manual::Deliver(*m.b, data[2], 11); // FSN 1 missing: immediate
    ASSERT_TRUE(m.b->HasWork(0));
    const MrHeader ack = Manual::Parse(*m.b->PullPacket(0, 11));
    EXPECT_EQ(ack.opcode, MrOpcode::Ack);
    EXPECT_EQ(ack.cumulativeFsn, 1u);
    EXPECT_TRUE(ack.sack[0]); // FSN 2
    EXPECT_EQ(ack.sack.count(), 1u);
    Manual::Deliver(*m.b, data[1], 12);
    Manual::Deliver(*m.b, data[3], 12, true); // CE: immediate, ECE set
    const MrHeader marked = Manual::Parse(*m.b->PullPacket(0, 12));
    EXPECT_TRUE(marked.flags & kMrFlagEce);
    EXPECT_EQ(marked.ceCount, 1);
    EXPECT_EQ(marked.cumulativeFsn, 4u);
}

TEST(MetaRoceConnection, AnAckLeavesItsSackOutOnlyWhenItIsEmpty)
{
    for (const bool compact : {true, false})
    {
        Manual m(1, 1, [compact](MetaRoceConfig& c) { c.compactAcks = compact; });
        m.a->PostSend(Write(1, 8 * 1024), 0);
        auto data = Manual::PullAll(*m.a, 0, 0);
        Manual::Deliver(*m.b, data[0], 10);
        Manual::Deliver(*m.b, data[2], 11); // FSN 1 missing: a SACK bit to carry
        const OutPacket gap = *m.b->PullPacket(0, 11);
        EXPECT_EQ(gap.header.size(), kMrAckHeaderSize) << compact;
        EXPECT_TRUE(Manual::Parse(gap).sack[0]);
        Manual::Deliver(*m.b, data[1], 12, true); // fills the gap, CE: immediate, SACK empty
        const OutPacket filled = *m.b->PullPacket(0, 12);
        const MrHeader ack = Manual::Parse(filled);
        EXPECT_EQ(filled.header.size(), compact ? kMrAckNoSackSize : kMrAckHeaderSize);
        EXPECT_EQ((ack.flags & kMrFlagNoSack) != 0, compact);
        EXPECT_EQ(ack.cumulativeFsn, 3u);
        EXPECT_TRUE(ack.sack.none());
        EXPECT_EQ(ack.ceCount, 1);
        // The sender reads both forms alike.
        EXPECT_TRUE(Manual::Deliver(*m.a, gap, 20).accepted);
        EXPECT_TRUE(Manual::Deliver(*m.a, filled, 21).accepted);
    }
}

TEST(MetaRoceConnection, GapRetransmitsExactlyTheMissingPacketUnderAFreshFsn)
{
    Manual m;
    m.a->PostSend(Write(1, 6 * 1024), 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    ASSERT_EQ(data.size(), 6u);
    for (std::size_t i = 0; i < data.size(); ++i)
    {
        if (i != 2)
        {
            Manual::Deliver(*m.b, data[i], 10);
        }
    }
    for (const auto& ack : Manual::PullAll(*m.b, 0, 10))
    {
        Manual::Deliver(*m.a, ack, 20);
    }
    // Nothing new is left to send, so the retransmission is a tail and goes in two copies
    // (TailRetransmitCopies, spec 7.3), each under a fresh FSN (no markers in these tests).
    auto retx = Manual::PullAll(*m.a, 0, 20);
    ASSERT_EQ(retx.size(), 2u);
    const MrHeader lost = Manual::Parse(data[2]);
    const MrHeader h = Manual::Parse(retx[0]);
    const MrHeader copy = Manual::Parse(retx[1]);
    for (const MrHeader& r : {h, copy})
    {
        EXPECT_TRUE(r.flags & kMrFlagRetx);
        EXPECT_EQ(r.offset, lost.offset);
    }
    EXPECT_EQ(h.fsn, 6u) << "a retransmission never reuses a FSN";
    EXPECT_EQ(copy.fsn, 7u) << "nor does its copy";
    EXPECT_EQ(h.ackFloor, 6u) << "the floor moved past the abandoned FSN 2";
    EXPECT_EQ(m.a->GetCounters().retransmittedPackets, 2u);
    Manual::Deliver(*m.b, retx[0], 30);
    for (const auto& ack : Manual::PullAll(*m.b, 0, 30))
    {
        Manual::Deliver(*m.a, ack, 40);
    }
    const auto done = m.a->TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::Success);
    EXPECT_EQ(m.b->Responder().Window(0).Cumulative(), 7u);
}

TEST(MetaRoceConnection, DuplicateIsAcknowledgedNotPlacedTwice)
{
    Manual m;
    m.a->PostSend(Write(1, 1024), 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    Manual::Deliver(*m.b, data[0], 10);
    Manual::PullAll(*m.b, 0, 10);
    EXPECT_TRUE(Manual::Deliver(*m.b, data[0], 11).accepted);
    EXPECT_EQ(m.b->GetCounters().Drops(DropReason::Duplicate), 1u);
    EXPECT_EQ(m.b->GetCounters().placedBytes, 1024u);
    EXPECT_TRUE(m.b->HasWork(0)) << "a duplicate is re-acknowledged at once";
}

TEST(MetaRoceConnection, TimeoutsBackOffThenTakeTheFlowDown)
{
    Manual m(1, 1, [](MetaRoceConfig& c) { c.maxTailProbes = 0; });
    m.a->PostSend(Write(1, 1024), 0);
    TimeNs now = 0;
    std::vector<TimeNs> sends;
    for (int round = 0; round < 4; ++round)
    {
        auto out = Manual::PullAll(*m.a, 0, now);
        if (!out.empty())
        {
            sends.push_back(now);
        }
        now = m.a->NextTimeout();
        m.a->OnTimeout(now);
    }
    ASSERT_GE(sends.size(), 3u);
    const TimeNs first = sends[1] - sends[0];
    const TimeNs second = sends[2] - sends[1];
    EXPECT_EQ(second, 2 * first) << "exponential backoff";
    EXPECT_EQ(m.a->GetCounters().timeouts, 3u);
    EXPECT_EQ(m.a->Requester().Flows()[0].health, FlowHealth::Down);
    EXPECT_GE(m.a->GetCounters().entropyRedraws, 1u);
}

TEST(MetaRoceConnection, ATimeoutAtTheEndOfTimeArmsNoProbe)
{
    // A lost packet retransmitted on the other plane and acknowledged there leaves nothing to
    // probe. OnTimeout(kNever) once took "no probe due" (kNever) for due and read a tail that
    // does not exist.
    Manual m(2, 1, [](MetaRoceConfig& c) { c.maxTailProbes = 0; });
    m.a->PostSend(Write(1, 1024), 0);
    Manual::PullAll(*m.a, 0, 0); // lost
    TimeNs now = m.a->NextTimeout();
    m.a->OnTimeout(now);
    for (const OutPacket& data : Manual::PullAll(*m.a, 1, now))
    {
        Manual::Deliver(*m.b, data, now + 1'000);
    }
    for (const OutPacket& ack : Manual::PullAll(*m.b, 1, now + 1'000))
    {
        Manual::Deliver(*m.a, ack, now + 2'000);
    }
    ASSERT_TRUE(m.a->Idle());
    m.a->OnTimeout(kNever);
    EXPECT_FALSE(m.a->HasWork(0));
    EXPECT_FALSE(m.a->HasWork(1));
    EXPECT_TRUE(Manual::PullAll(*m.a, 0, now + 3'000).empty());
    EXPECT_TRUE(Manual::PullAll(*m.a, 1, now + 3'000).empty());
}

TEST(MetaRoceConnection, NakOnBadKeyFailsTheRequestAndFlushesTheRest)
{
    MemoryRegistry memory;
    std::vector<uint8_t> buf(4096);
    memory.Register({5, 0x1000, buf.size(), buf.data()});
    MetaRoceConfig c;
    c.localConnection = 9;
    c.remoteConnection = 7;
    c.mtu = 1024;
    MetaRoceConnection b(c, &memory);
    Manual m;
    m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024, 0, 0, 0x1000, 6}, 0); // key 6: unknown
    m.a->PostSend(Write(2, 1024), 0);
    auto data = Manual::PullAll(*m.a, 0, 0);
    EXPECT_EQ(Manual::Deliver(b, data[0], 10).reason, DropReason::AccessError);
    auto nak = Manual::PullAll(b, 0, 10);
    ASSERT_EQ(nak.size(), 1u);
    EXPECT_EQ(Manual::Parse(nak[0]).opcode, MrOpcode::Nak);
    Manual::Deliver(*m.a, nak[0], 20);
    const auto done = m.a->TakeCompletions();
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, CompletionStatus::RemoteAccessError);
    EXPECT_EQ(done[1].status, CompletionStatus::Flushed);
}

TEST(MetaRoceConnection, InvalidWorkRequestsThrowAndChangeNothing)
{
    Manual m;
    EXPECT_THROW(m.a->PostSend(Write(1, 0), 0), std::invalid_argument);
    EXPECT_THROW(m.a->PostSend(Write(1, 10, 99), 0), std::invalid_argument);
    EXPECT_THROW(m.a->PostSend(WorkRequest{1, Opcode::Recv, 0, 10}, 0), std::invalid_argument);
    EXPECT_THROW(m.a->PostRecv(Write(1, 10)), std::invalid_argument);
    EXPECT_THROW(m.a->PostSend(WorkRequest{1, Opcode::Write, 0, 10, 0, 3}, 0),
                 std::invalid_argument); // local key without memory
    EXPECT_TRUE(m.a->Idle());
    EXPECT_FALSE(m.a->PullPacket(0, 0));
}

TEST(MetaRoceConnection, ReceiverRateHintPacesTheSender)
{
    Manual m;
    m.b->SetFairShare(10'000'000'000);      // 10 Gb/s of a 100 Gb/s port
    m.a->PostSend(Write(1, 256 * 1024), 0); // more than the 64-packet window
    auto first = Manual::PullAll(*m.a, 0, 0);
    for (const auto& p : first)
    {
        Manual::Deliver(*m.b, p, 100);
    }
    for (const auto& ack : Manual::PullAll(*m.b, 0, 100))
    {
        Manual::Deliver(*m.a, ack, 200);
    }
    EXPECT_EQ(m.a->Requester().RateHintBps(), 10'000'000'000u);
    // At 10 Gb/s a ~1.1 KB packet takes ~870 ns: one packet may leave now, the next a gap after
    // the last unpaced one (at 0): a sender that has been sending has an empty bucket (9.4).
    auto paced = Manual::PullAll(*m.a, 0, 200);
    EXPECT_EQ(paced.size(), 1u);
    const TimeNs gap = m.a->NextTimeout();
    EXPECT_GT(gap, 800u);
    EXPECT_LT(gap, 1000u);

    // Served ten gaps late (the NIC busy elsewhere), it catches up by the bucket's four packets
    // (one port) plus the one due, then keeps the gap again (spec 9.4).
    const TimeNs late = 200 + 10 * gap;
    EXPECT_EQ(Manual::PullAll(*m.a, 0, late).size(), 5u);
    EXPECT_EQ(m.a->NextTimeout(), late + gap);
}

TEST(MetaRoceConnection, ThePacingBucketHoldsOnePacketPerPort)
{
    // Eight ports, each offering the connection one packet in the same round-robin turn: after
    // an idle spell all eight go, not four, and the one due (spec 9.4).
    Manual m(8);
    m.b->SetFairShare(10'000'000'000);
    m.a->PostSend(Write(1, 4 * 1024 * 1024), 0); // more than eight 64-packet windows
    for (uint16_t port = 0; port < 8; ++port)
    {
        for (const auto& p : Manual::PullAll(*m.a, port, 0))
        {
            Manual::Deliver(*m.b, p, 100);
        }
    }
    for (uint16_t port = 0; port < 8; ++port)
    {
        for (const auto& ack : Manual::PullAll(*m.b, port, 100))
        {
            Manual::Deliver(*m.a, ack, 200);
        }
    }
    ASSERT_EQ(m.a->Requester().RateHintBps(), 10'000'000'000u);
    const TimeNs idle = 100'000; // 100 us: far more than eight gaps of ~870 ns
    std::size_t sent = 0;
    for (uint16_t port = 0; port < 8; ++port)
    {
        auto one = m.a->PullPacket(port, idle);
        sent += one.has_value() ? 1 : 0;
    }
    EXPECT_EQ(sent, 8u);
    EXPECT_TRUE(m.a->PullPacket(0, idle).has_value()) << "the one due, as with one port";
    EXPECT_FALSE(m.a->PullPacket(1, idle).has_value()) << "the bucket is empty";
}

} // namespace
} // namespace metaroce

namespace metaroce
{
namespace
{

TEST(MetaRoceConnection, TailLossIsRepairedByAProbeBeforeTheTimeout)
{
    Manual m;
    m.a->PostSend(Write(1, 4 * 1024), 1);
    auto data = Manual::PullAll(*m.a, 0, 1); // at t = 1: a timestamp of 0 means "none"
    ASSERT_EQ(data.size(), 4u);
    for (std::size_t i = 0; i < 3; ++i) // the last packet is lost
    {
        Manual::Deliver(*m.b, data[i], 10);
    }
    m.b->OnTimeout(m.b->NextTimeout());
    for (const auto& ack : Manual::PullAll(*m.b, 0, 3000))
    {
        Manual::Deliver(*m.a, ack, 3000);
    }
    const TimeNs probeAt = m.a->NextTimeout();
    // The tail was sent at t = 1; with one sample of 2999 ns (rttvar half of it), the wait is
    // srtt + 4 rttvar, longer than the time rule's rack.rtt + reorder window (2999 + 2749).
    EXPECT_EQ(probeAt, 1u + 2999 + 4 * 1499) << "the tail's ACK overdue by srtt + 4 rttvar (4.5)";
    m.a->OnTimeout(probeAt);
    auto probe = Manual::PullAll(*m.a, 0, probeAt);
    ASSERT_EQ(probe.size(), 2u) << "the tail and a copy of it (a tail retransmission)";
    for (std::size_t i = 0; i < 2; ++i)
    {
        const MrHeader h = Manual::Parse(probe[i]);
        EXPECT_EQ(h.offset, 3u * 1024) << "the tail goes again";
        EXPECT_TRUE(h.flags & kMrFlagRetx);
    }
    Manual::Deliver(*m.b, probe[0], probeAt + 10);
    for (const auto& ack : Manual::PullAll(*m.b, 0, probeAt + 10))
    {
        Manual::Deliver(*m.a, ack, probeAt + 20);
    }
    ASSERT_EQ(m.a->TakeCompletions().size(), 1u);
    EXPECT_EQ(m.a->GetCounters().timeouts, 0u);
}

TEST(MetaRoceConnection, AcceptedDataSaysSoWhateverItsSizeAndAcksDoNot)
{
    // The NIC counts active senders for the fair share by this flag (spec 8.3): an 8-byte SEND
    // is shorter than an ACK, yet it is data; the ACK it causes is not.
    Manual m;
    m.b->PostRecv(WorkRequest{1, Opcode::Recv, 0, 8});
    m.a->PostSend(WorkRequest{2, Opcode::Send, 0, 8}, 0);
    auto sent = Manual::PullAll(*m.a, 0, 0);
    ASSERT_EQ(sent.size(), 1u);
    const RxResult data = Manual::Deliver(*m.b, sent[0], 100);
    EXPECT_TRUE(data.accepted);
    EXPECT_TRUE(data.carriedData);
    EXPECT_TRUE(Manual::Deliver(*m.b, sent[0], 150).carriedData) << "a duplicate is data too";
    auto acks = Manual::PullAll(*m.b, 0, 200);
    ASSERT_FALSE(acks.empty());
    const RxResult ack = Manual::Deliver(*m.a, acks[0], 300);
    EXPECT_TRUE(ack.accepted);
    EXPECT_FALSE(ack.carriedData);
}

} // namespace
} // namespace metaroce
