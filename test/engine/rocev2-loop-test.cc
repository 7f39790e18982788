/*
 * Two RoCEv2 queue pairs back to back (rocev2-test-loop.h): byte-exact WRITE and SEND, and
 * recovery from chosen losses with exact retransmission counts (spec: RoCEv2 baseline,
 * "Validation"). Losses are chosen by packet index in one direction, as ns-3's
 * TcpSeqErrorModel does, so every number asserted below follows from the protocol rules.
 */
#include "rocev2-test-loop.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <vector>

namespace metaroce
{
namespace
{

using test::LoggedPacket;
using test::LoopConfig;
using test::RoceV2Loop;

WorkRequest
Request(uint64_t id, Opcode op, uint64_t length)
{
    WorkRequest wr;
    wr.id = id;
    wr.op = op;
    wr.length = length;
    return wr;
}

std::size_t
Naks(const RoceV2Loop& l)
{
    return RoceV2Loop::Count(l.bToA, [](const LoggedPacket& p) { return p.IsNak(); });
}

TEST(RoceV2Loop, WriteIsPlacedByteExact)
{
    RoceV2Loop l;
    const uint8_t* src = l.AddRegion(true, 7, 0x1000, 10243, 3);
    const uint8_t* dst = l.AddRegion(false, 9, 0x200000, 12000, 0);
    WorkRequest wr = Request(1, Opcode::Write, 10243);
    wr.localKey = 7;
    wr.localAddr = 0x1000;
    wr.remoteKey = 9;
    wr.remoteAddr = 0x200000 + 100;
    l.qpA.PostSend(wr, 0);
    ASSERT_TRUE(l.Run());

    const std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].wrId, 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::Success);
    EXPECT_EQ(done[0].bytes, 10243u);
    EXPECT_TRUE(std::equal(src, src + 10243, dst + 100));
    EXPECT_TRUE(std::all_of(dst, dst + 100, [](uint8_t b) { return b == 0; }));
    EXPECT_TRUE(std::all_of(dst + 100 + 10243, dst + 12000, [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(l.qpB.GetCounters().placedBytes, 10243u);
    ASSERT_EQ(l.aToB.size(), 11u);
    EXPECT_EQ(l.aToB.back().pkt.WireSize(), 12u + 3 + 1 + 4); // 3 bytes, 1 pad, ICRC
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 0u);
    EXPECT_EQ(l.qpB.GetCounters().TotalDrops(), 0u);
}

TEST(RoceV2Loop, SendsFillReceivesInPostingOrderByteExact)
{
    RoceV2Loop l;
    const uint8_t* src = l.AddRegion(true, 7, 0, 8000, 5);
    const uint8_t* x = l.AddRegion(false, 20, 0x10000, 5001, 0);
    const uint8_t* y = l.AddRegion(false, 21, 0x20000, 3000, 0);
    WorkRequest r1 = Request(100, Opcode::Recv, 5001);
    r1.localKey = 20;
    r1.localAddr = 0x10000;
    WorkRequest r2 = Request(101, Opcode::Recv, 3000);
    r2.localKey = 21;
    r2.localAddr = 0x20000;
    l.qpB.PostRecv(r1);
    l.qpB.PostRecv(r2);
    WorkRequest s1 = Request(1, Opcode::Send, 5001);
    s1.localKey = 7;
    WorkRequest s2 = Request(2, Opcode::Send, 2500);
    s2.localKey = 7;
    s2.localAddr = 5001;
    l.qpA.PostSend(s1, 0);
    l.qpA.PostSend(s2, 0);
    ASSERT_TRUE(l.Run());

    const std::vector<Completion> sent = l.qpA.TakeCompletions();
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0].wrId, 1u);
    EXPECT_EQ(sent[1].wrId, 2u);
    const std::vector<Completion> received = l.qpB.TakeCompletions();
    ASSERT_EQ(received.size(), 2u);
    EXPECT_EQ(received[0].wrId, 100u);
    EXPECT_EQ(received[0].op, Opcode::Recv);
    EXPECT_EQ(received[0].bytes, 5001u);
    EXPECT_EQ(received[1].wrId, 101u);
    EXPECT_EQ(received[1].bytes, 2500u);
    EXPECT_TRUE(std::equal(src, src + 5001, x));
    EXPECT_TRUE(std::equal(src + 5001, src + 7501, y));
    EXPECT_TRUE(std::all_of(y + 2500, y + 3000, [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(l.qpB.GetResponder().Msn(), 2u);
}

TEST(RoceV2Loop, LostPacketCausesOneNakAndGoBackN)
{
    RoceV2Loop l;
    l.dropAtoB = {5};
    l.qpA.PostSend(Request(1, Opcode::Write, 16 * 1024), 0);
    ASSERT_TRUE(l.Run());

    // All 16 were in flight: the NAK for PSN 5 makes A resend 5..15.
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 11u);
    EXPECT_EQ(l.qpA.GetCounters().fastRetransmits, 1u);
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 0u);
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::OutOfSequence), 10u); // 6..15, first time
    ASSERT_EQ(Naks(l), 1u);
    const auto nak = std::find_if(l.bToA.begin(), l.bToA.end(), [](auto& p) { return p.IsNak(); });
    EXPECT_EQ(nak->Psn(), 5u);
    EXPECT_EQ(nak->Syndrome(), IbNakSyndrome(IbNakCode::PsnSequenceError));
    EXPECT_EQ(l.aToB.size(), 27u);
    EXPECT_EQ(l.qpB.GetCounters().placedBytes, 16u * 1024);
    const std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::Success);
    EXPECT_EQ(done[0].time, 0u); // no timeout was needed
}

TEST(RoceV2Loop, TailLossIsRecoveredByTheTimeout)
{
    RoceV2Loop l;
    l.dropAtoB = {15};
    l.qpA.PostSend(Request(1, Opcode::Write, 16 * 1024), 0);
    ASSERT_TRUE(l.Run());

    // Nothing follows the lost packet, so no NAK: only the timeout finds it.
    EXPECT_EQ(Naks(l), 0u);
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 1u);
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 1u);
    ASSERT_EQ(l.aToB.size(), 17u);
    EXPECT_EQ(l.aToB.back().Psn(), 15u);
    EXPECT_EQ(l.aToB.back().time, 100000u);
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).time, 100000u);
}

TEST(RoceV2Loop, LostAckMakesDuplicatesThatAreAcknowledgedNotPlacedAgain)
{
    RoceV2Loop l;
    l.dropBtoA = {0};
    l.qpA.PostSend(Request(1, Opcode::Write, 16 * 1024), 0);
    ASSERT_TRUE(l.Run());

    EXPECT_EQ(l.qpA.GetCounters().timeouts, 1u);
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 16u);
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::Duplicate), 16u);
    EXPECT_EQ(l.qpB.GetCounters().placedBytes, 16u * 1024);
    EXPECT_EQ(l.bToA.size(), 2u); // the lost ACK and one ACK for all the duplicates
    EXPECT_EQ(l.bToA.back().Psn(), 15u);
}

TEST(RoceV2Loop, RetryLimitFailsTheOldestRequestAndFlushesTheRest)
{
    RoceV2Loop l;
    l.dropAtoBIf = [](std::size_t, const OutPacket&) { return true; };
    l.qpA.PostSend(Request(1, Opcode::Write, 16 * 1024), 0);
    l.qpA.PostSend(Request(2, Opcode::Write, 4 * 1024), 0);
    ASSERT_TRUE(l.Run());

    // retryLimit 3: timeouts at 1, 1+2, 1+2+4 and 1+2+4+8 RTOs; the fourth gives up.
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 4u);
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 48u);
    EXPECT_EQ(l.aToB.size(), 64u);
    std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].wrId, 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::RetryExceeded);
    EXPECT_EQ(done[0].time, 1500000u);
    EXPECT_EQ(done[1].wrId, 2u);
    EXPECT_EQ(done[1].status, CompletionStatus::Flushed);
    EXPECT_EQ(l.qpA.GetRequester().State(), RoceV2RequesterState::Error);

    l.qpA.PostSend(Request(3, Opcode::Send, 10), l.now);
    done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::Flushed);
    EXPECT_FALSE(l.qpA.PullPacket(0, l.now).has_value());
}

TEST(RoceV2Loop, BadRemoteKeyCompletesWithRemoteAccessError)
{
    RoceV2Loop l;
    l.AddRegion(false, 9, 0, 4096, 0);
    WorkRequest bad = Request(1, Opcode::Write, 4096);
    bad.remoteKey = 10;
    WorkRequest good = Request(2, Opcode::Write, 2048);
    good.remoteKey = 9;
    l.qpA.PostSend(bad, 0);
    l.qpA.PostSend(good, 0);
    ASSERT_TRUE(l.Run());

    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::AccessError), 1u);
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::OutOfSequence), 5u); // silent behind the NAK
    ASSERT_EQ(Naks(l), 1u);
    EXPECT_EQ(l.bToA[0].Syndrome(), IbNakSyndrome(IbNakCode::RemoteAccessError));
    EXPECT_EQ(l.bToA[0].Psn(), 0u);
    const std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, CompletionStatus::RemoteAccessError);
    EXPECT_EQ(done[1].status, CompletionStatus::Flushed);
    EXPECT_EQ(l.qpB.GetCounters().placedBytes, 0u);
}

TEST(RoceV2Loop, SendWithoutReceiveGetsRnrNakAndIsRetriedAfterTheRnrTimer)
{
    RoceV2Loop l;
    l.qpA.PostSend(Request(1, Opcode::Send, 4096), 0);
    l.Exchange(); // B has no RECV: RNR NAK for PSN 0, the rest out of sequence
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::NoReceivePosted), 1u);
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::OutOfSequence), 3u);
    l.qpB.PostRecv(Request(100, Opcode::Recv, 4096));
    ASSERT_TRUE(l.Run());

    EXPECT_EQ(l.bToA[0].Syndrome(), IbRnrNakSyndrome(12));
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 4u);
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 0u);            // the RTO waits for the RNR delay
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).time, 640000u); // code 12 = 0.64 ms
    const std::vector<Completion> received = l.qpB.TakeCompletions();
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].status, CompletionStatus::Success);
    EXPECT_EQ(received[0].bytes, 4096u);
}

TEST(RoceV2Loop, SendLongerThanItsReceiveIsALocalLengthError)
{
    RoceV2Loop l;
    l.qpB.PostRecv(Request(100, Opcode::Recv, 2000));
    l.qpA.PostSend(Request(1, Opcode::Send, 3000), 0);
    ASSERT_TRUE(l.Run());

    const std::vector<Completion> received = l.qpB.TakeCompletions();
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].status, CompletionStatus::LocalLengthError);
    EXPECT_EQ(l.bToA[0].Syndrome(), IbNakSyndrome(IbNakCode::InvalidRequest));
    EXPECT_EQ(l.bToA[0].Psn(), 1u);
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).status, CompletionStatus::RemoteAccessError);
}

TEST(RoceV2Loop, PsnsWrapAt24BitsOnTheWireOnly)
{
    RoceV2Config a = LoopConfig(0x11, 0x22);
    RoceV2Config b = LoopConfig(0x22, 0x11);
    a.initialPsn = b.remoteInitialPsn = 0xFFFFF8;
    RoceV2Loop l(a, b);
    l.dropAtoB = {10};
    l.qpA.PostSend(Request(1, Opcode::Write, 16 * 1024), 0);
    ASSERT_TRUE(l.Run());

    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 6u);
    ASSERT_EQ(Naks(l), 1u);
    EXPECT_EQ(std::find_if(l.bToA.begin(), l.bToA.end(), [](auto& p) { return p.IsNak(); })->Psn(),
              0x000002u);
    EXPECT_EQ(l.qpB.GetResponder().ExpectedPsn(), 0xFFFFF8u + 16);
    EXPECT_EQ(l.qpA.GetRequester().UnackedPsn(), 0xFFFFF8u + 16);
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).status, CompletionStatus::Success);
}

TEST(RoceV2Loop, CompletionsComeInPostingOrderDespiteLosses)
{
    RoceV2Loop l;
    l.dropAtoB = {2, 7, 12};
    l.qpB.PostRecv(Request(100, Opcode::Recv, 5000));
    const uint64_t sizes[] = {1, 1024, 3000, 1, 5000};
    for (uint64_t i = 0; i < 5; ++i)
    {
        l.qpA.PostSend(Request(i + 1, i == 3 ? Opcode::Send : Opcode::Write, sizes[i]), 0);
    }
    ASSERT_TRUE(l.Run());
    // NAK(2) rewinds over PSNs 2..10; the resent PSN 3 is lost too, NAK(3) rewinds over 3..10.
    EXPECT_EQ(Naks(l), 2u);
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 9u + 8u);
    const std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 5u);
    for (uint64_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(done[i].wrId, i + 1);
        EXPECT_EQ(done[i].status, CompletionStatus::Success);
    }
}

TEST(RoceV2Loop, OneCnpSlowsTheSenderToPacedRateAndTheRateRecovers)
{
    RoceV2Config a = LoopConfig(0x11, 0x22);
    RoceV2Config b = LoopConfig(0x22, 0x11);
    a.dcqcn.enabled = b.dcqcn.enabled = true;
    a.dcqcn.variant = b.dcqcn.variant = DcqcnVariant::Paper; // the cut at once
    RoceV2Loop l(a, b);
    l.markAtoB = [](std::size_t index, const OutPacket&) { return index == 0; };
    l.qpA.PostSend(Request(1, Opcode::Write, 64 * 1024), 0);
    ASSERT_TRUE(l.Run());

    // The first window leaves at line rate; the CNP halves the rate before packet 16, and the
    // other 48 leave one per ceil((1040 + 46) * 8 / 50) = 174 ns.
    EXPECT_EQ(
        RoceV2Loop::Count(l.bToA, [](const LoggedPacket& p) { return p.Op() == IbOpcode::Cnp; }),
        1u);
    EXPECT_EQ(l.qpA.GetReactionPoint().RateBps(), 50000000000ULL);
    EXPECT_EQ(l.aToB[16].time, 0u);
    EXPECT_EQ(l.aToB[17].time, 174u);
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).time, 47u * 174);

    // No more marks: fast recovery brings the rate back to line rate, then the timer stops.
    l.qpA.OnTimeout(10000000);
    EXPECT_EQ(l.qpA.GetReactionPoint().RateBps(), a.lineRateBps);
    EXPECT_EQ(l.qpA.GetReactionPoint().NextTimer(), kNever);
}

} // namespace
} // namespace metaroce
