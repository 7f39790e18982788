/*
 * RoceV2QueuePair driven packet by packet: receive checks that change nothing, request
 * validation, UDP addressing, ACK coalescing, the port, and DCQCN's CNPs and pacing
 * (spec: RoCEv2 baseline).
 */
#include "rocev2-queue-pair.h"
#include "rocev2-test-loop.h"
#include "rocev2-wire.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

namespace metaroce
{
namespace
{

using test::LoggedPacket;
using test::LoopConfig;
using test::RoceV2Loop;

WorkRequest
Write(uint64_t id, uint64_t length)
{
    WorkRequest wr;
    wr.id = id;
    wr.op = Opcode::Write;
    wr.length = length;
    return wr;
}

/// Counters with the receive totals and drops cleared, to compare "nothing else changed".
Counters
WithoutRx(Counters c)
{
    c.rxPackets = 0;
    c.rxBytes = 0;
    c.drops = {};
    return c;
}

bool
operator==(const Counters& a, const Counters& b)
{
    return a.txPackets == b.txPackets && a.txBytes == b.txBytes &&
           a.txDataPackets == b.txDataPackets && a.txControlPackets == b.txControlPackets &&
           a.retransmittedPackets == b.retransmittedPackets && a.rxPackets == b.rxPackets &&
           a.rxBytes == b.rxBytes && a.rxDataPackets == b.rxDataPackets &&
           a.rxControlPackets == b.rxControlPackets && a.rxEcnMarked == b.rxEcnMarked &&
           a.placedBytes == b.placedBytes && a.timeouts == b.timeouts &&
           a.fastRetransmits == b.fastRetransmits && a.entropyRedraws == b.entropyRedraws &&
           a.flowsDown == b.flowsDown && a.completions == b.completions && a.drops == b.drops;
}

TEST(RoceV2QueuePair, MalformedPacketsAreRefusedAndChangeNothing)
{
    RoceV2Loop l;
    l.qpA.PostSend(Write(1, 4096), 0);
    const OutPacket first = *l.qpA.PullPacket(0, 0);
    std::vector<uint8_t> good = first.header.ToVector();
    ASSERT_EQ(good.size(), 28u);
    const Counters before = l.qpB.GetCounters();

    struct Case
    {
        const char* name;
        std::vector<uint8_t> bytes;
        std::size_t size;
        std::size_t wire;
        uint16_t port;
        DropReason reason;
    };

    auto with = [&good](std::size_t at, uint8_t value) {
        std::vector<uint8_t> b = good;
        b[at] = value;
        return b;
    };
    const std::size_t wire = first.WireSize();
    const Case cases[] = {
        {"truncated", good, 10, wire, 0, DropReason::Truncated},
        {"RETH cut", good, 20, wire, 0, DropReason::Truncated},
        {"bad opcode", with(0, 0x0C), 28, wire, 0, DropReason::BadOpcode},
        {"bad version", with(1, 0x01), 28, wire, 0, DropReason::BadVersion},
        {"wrong dest QPN", with(7, 0x33), 28, wire, 0, DropReason::WrongConnection},
        {"wrong P_Key", with(2, 0x12), 28, wire, 0, DropReason::BadField},
        {"pad on FIRST", with(1, 0x10), 28, wire, 0, DropReason::BadField},
        {"FIRST shorter than MTU", good, 28, 28 + 512 + 4, 0, DropReason::BadField},
        {"other port", good, 28, wire, 1, DropReason::WrongConnection},
    };
    uint64_t refused = 0;
    for (const Case& c : cases)
    {
        SCOPED_TRACE(c.name);
        const RxResult r =
            l.qpB.OnPacket(RxPacket{c.bytes.data(), c.size, c.wire, c.port, true, 0});
        EXPECT_FALSE(r.accepted);
        EXPECT_EQ(r.reason, c.reason);
        ++refused;
        EXPECT_EQ(l.qpB.GetCounters().TotalDrops(), refused);
        EXPECT_EQ(l.qpB.GetResponder().ExpectedPsn(), 0u);
        EXPECT_FALSE(l.qpB.HasWork(0));
        EXPECT_TRUE(WithoutRx(l.qpB.GetCounters()) == WithoutRx(before));
    }
    EXPECT_EQ(l.qpB.GetCounters().rxPackets, refused);
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::BadField), 3u);

    const RxResult ok = l.qpB.OnPacket(RxPacket{good.data(), 28, wire, 0, false, 0});
    EXPECT_TRUE(ok.accepted);
    EXPECT_EQ(l.qpB.GetResponder().ExpectedPsn(), 1u);
    EXPECT_EQ(l.qpB.GetCounters().rxDataPackets, 1u);
}

TEST(RoceV2QueuePair, MalformedRequestsThrowAndChangeNothing)
{
    RoceV2Loop l;
    l.AddRegion(true, 7, 0x1000, 100, 1);
    WorkRequest recv;
    recv.id = 1;
    recv.op = Opcode::Recv;
    recv.length = 10;
    EXPECT_THROW(l.qpA.PostSend(recv, 0), std::invalid_argument);
    EXPECT_THROW(l.qpA.PostSend(Write(2, 0), 0), std::invalid_argument);
    EXPECT_THROW(l.qpA.PostSend(Write(3, (uint64_t{1} << 31) + 1), 0), std::invalid_argument);
    WorkRequest stream = Write(4, 10);
    stream.stream = 1;
    EXPECT_THROW(l.qpA.PostSend(stream, 0), std::invalid_argument);
    WorkRequest badKey = Write(5, 10);
    badKey.localKey = 99;
    EXPECT_THROW(l.qpA.PostSend(badKey, 0), std::invalid_argument);
    WorkRequest outside = Write(6, 101);
    outside.localKey = 7;
    outside.localAddr = 0x1000;
    EXPECT_THROW(l.qpA.PostSend(outside, 0), std::invalid_argument);
    EXPECT_THROW(l.qpB.PostRecv(Write(7, 10)), std::invalid_argument);
    WorkRequest recvStream = recv;
    recvStream.stream = 2;
    EXPECT_THROW(l.qpB.PostRecv(recvStream), std::invalid_argument);
    recv.localKey = 99;
    EXPECT_THROW(l.qpB.PostRecv(recv), std::invalid_argument);

    EXPECT_TRUE(l.qpA.Idle());
    EXPECT_FALSE(l.qpA.PullPacket(0, 0).has_value());
    EXPECT_EQ(l.qpB.GetResponder().PostedRecvs(), 0u);
}

TEST(RoceV2QueuePair, PacketsUseOneUdpFlowAndCountWireBytes)
{
    RoceV2Loop l;
    l.qpA.PostSend(Write(1, 3001), 0);
    uint64_t bytes = 0;
    std::vector<std::size_t> sizes;
    while (std::optional<OutPacket> p = l.qpA.PullPacket(0, 0))
    {
        EXPECT_EQ(p->udpSrcPort, 50000 + 0x11);
        EXPECT_EQ(p->udpDstPort, kRoceV2UdpPort);
        EXPECT_EQ(p->port, 0);
        EXPECT_FALSE(p->isControl);
        sizes.push_back(p->WireSize());
        bytes += p->WireSize();
    }
    // WRITE_FIRST (BTH+RETH), MIDDLE, LAST with 953 bytes + 3 pad; each + 4-byte ICRC.
    EXPECT_EQ(sizes, (std::vector<std::size_t>{28 + 1024 + 4, 12 + 1024 + 4, 12 + 953 + 3 + 4}));
    EXPECT_EQ(l.qpA.GetCounters().txPackets, 3u);
    EXPECT_EQ(l.qpA.GetCounters().txDataPackets, 3u);
    EXPECT_EQ(l.qpA.GetCounters().txBytes, bytes);
    EXPECT_FALSE(l.qpA.PullPacket(1, 0).has_value()); // only its own port
}

/// Sends a 16-packet WRITE one packet at a time and returns the PSNs B acknowledged.
std::vector<uint32_t>
AckPsns(uint32_t ackEvery, uint32_t window)
{
    RoceV2Config a = LoopConfig(0x11, 0x22);
    RoceV2Config b = LoopConfig(0x22, 0x11);
    a.windowPackets = window;
    b.ackEveryPackets = ackEvery;
    RoceV2Loop l(a, b);
    l.qpA.PostSend(Write(1, 16 * 1024), 0);
    std::vector<uint32_t> acks;
    while (std::optional<OutPacket> p = l.qpA.PullPacket(0, 0))
    {
        l.Deliver(l.qpB, *p);
        while (std::optional<OutPacket> r = l.qpB.PullPacket(0, 0))
        {
            acks.push_back(LoggedPacket{*r}.Psn());
            l.Deliver(l.qpA, *r);
        }
    }
    EXPECT_TRUE(l.qpA.Idle());
    return acks;
}

TEST(RoceV2QueuePair, AcksAreCoalescedEveryNPacketsAndOnAckReq)
{
    EXPECT_EQ(AckPsns(4, 16), (std::vector<uint32_t>{3, 7, 11, 15}));
    // No count trigger: only the packet that fills the window and the last one ask for an ACK.
    EXPECT_EQ(AckPsns(100, 8), (std::vector<uint32_t>{7, 15}));
}

TEST(RoceV2QueuePair, OutOfSequencePacketsGetOneNakPerGap)
{
    RoceV2Loop l;
    l.qpA.PostSend(Write(1, 16 * 1024), 0);
    std::vector<OutPacket> sent;
    while (std::optional<OutPacket> p = l.qpA.PullPacket(0, 0))
    {
        sent.push_back(*p);
    }
    ASSERT_EQ(sent.size(), 16u);
    std::vector<uint32_t> naks;
    // Gap at 5 (four packets behind it), filled; then a gap at 8 (two packets behind it).
    for (std::size_t index : {0, 1, 2, 3, 4, 6, 7, 8, 9, 5, 6, 7, 9, 10})
    {
        l.Deliver(l.qpB, sent[index]);
        while (std::optional<OutPacket> r = l.qpB.PullPacket(0, 0))
        {
            if (LoggedPacket{*r}.IsNak())
            {
                naks.push_back(LoggedPacket{*r}.Psn());
            }
        }
    }
    EXPECT_EQ(naks, (std::vector<uint32_t>{5, 8}));
    EXPECT_EQ(l.qpB.GetCounters().Drops(DropReason::OutOfSequence), 6u);
    EXPECT_EQ(l.qpB.GetResponder().ExpectedPsn(), 8u);
}

TEST(RoceV2QueuePair, PortDownStopsTransmissionAndTheTimeoutRecoversAfterUp)
{
    RoceV2Loop l;
    l.qpA.PostSend(Write(1, 4096), 0);
    l.qpA.OnPortState(0, false, 0);
    EXPECT_FALSE(l.qpA.PullPacket(0, 0).has_value());
    EXPECT_FALSE(l.qpA.HasWork(0));
    EXPECT_EQ(l.qpA.NextTimeout(), kNever); // nothing in flight: no timer
    EXPECT_EQ(l.qpA.GetCounters().flowsDown, 1u);

    l.qpA.OnPortState(0, true, 0);
    int sent = 0;
    while (l.qpA.PullPacket(0, 0))
    {
        ++sent; // lost with the link, which fails right after
    }
    EXPECT_EQ(sent, 4);
    l.qpA.OnPortState(0, false, 0);
    IbBth bth;
    bth.opcode = IbOpcode::RcAcknowledge;
    bth.destQpn = 0x11;
    const HeaderBytes ack = IbSerializeHeader(bth, IbReth{}, IbAeth{IbAckSyndrome(), 0});
    EXPECT_EQ(l.qpA.OnPacket(RxPacket{ack.data(), 16, 20, 0, false, 0}).reason,
              DropReason::PortDown);

    l.now = 100000;
    ASSERT_EQ(l.qpA.NextTimeout(), l.now);
    l.qpA.OnTimeout(l.now);
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 1u);
    EXPECT_FALSE(l.qpA.PullPacket(0, l.now).has_value());

    l.now = 150000;
    l.qpA.OnPortState(0, true, l.now);
    ASSERT_TRUE(l.Run());
    const std::vector<Completion> done = l.qpA.TakeCompletions();
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, CompletionStatus::Success);
    EXPECT_EQ(done[0].time, 150000u); // resent as soon as the port came back
    EXPECT_EQ(l.qpA.GetCounters().retransmittedPackets, 4u);
    EXPECT_EQ(l.qpA.GetCounters().timeouts, 1u);
}

TEST(RoceV2QueuePair, CeMarksMakeRateLimitedCnpsThatCutThePacingRate)
{
    RoceV2Config a = LoopConfig(0x11, 0x22);
    RoceV2Config b = LoopConfig(0x22, 0x11);
    a.dcqcn.enabled = b.dcqcn.enabled = true;
    a.dcqcn.variant = b.dcqcn.variant = DcqcnVariant::Paper; // a cut on every CNP
    RoceV2Loop l(a, b);
    l.qpA.PostSend(Write(1, 200 * 1024), 0);
    int cnps = 0;
    int delivered = 0;
    for (TimeNs t = 0; t < 120000; t += 1000)
    {
        l.now = t;
        l.qpA.OnTimeout(t);
        l.qpB.OnTimeout(t);
        if (std::optional<OutPacket> p = l.qpA.PullPacket(0, t))
        {
            l.Deliver(l.qpB, *p, true);
            ++delivered;
        }
        while (std::optional<OutPacket> r = l.qpB.PullPacket(0, t))
        {
            cnps += LoggedPacket{*r}.Op() == IbOpcode::Cnp ? 1 : 0;
            l.Deliver(l.qpA, *r);
        }
    }
    EXPECT_EQ(delivered, 120);
    EXPECT_EQ(l.qpB.GetCounters().rxEcnMarked, 120u);
    EXPECT_EQ(cnps, 3); // at 0, 50 and 100 us: one per 50 us interval
    EXPECT_EQ(l.qpB.GetNotificationPoint().CnpsGenerated(), 3u);
    EXPECT_EQ(l.qpA.GetReactionPoint().CnpsReceived(), 3u);
    EXPECT_EQ(l.qpA.GetReactionPoint().RateBps(), 12500000000ULL); // 100 -> 50 -> 25 -> 12.5

    // Paced: one MIDDLE packet (1040 bytes + 46 of framing) takes ceil(8688 / 12.5) ns.
    ASSERT_TRUE(l.qpA.PullPacket(0, 120000).has_value());
    EXPECT_FALSE(l.qpA.PullPacket(0, 120000).has_value());
    EXPECT_TRUE(l.qpA.HasWork(0));
    EXPECT_EQ(l.qpA.NextSendTime(), 120696u);
    EXPECT_EQ(l.qpA.NextTimeout(), 120696u);
    EXPECT_TRUE(l.qpA.PullPacket(0, 120696).has_value());
}

TEST(RoceV2QueuePair, NicDcqcnCutsAtTheDecreaseCheckAfterEachCnp)
{
    RoceV2Config a = LoopConfig(0x11, 0x22);
    RoceV2Config b = LoopConfig(0x22, 0x11);
    a.dcqcn.enabled = b.dcqcn.enabled = true;       // the default variant: nic
    a.dcqcn.byteCounterBytes = kDcqcnNoByteCounter; // its timers only
    RoceV2Loop l(a, b);
    l.qpA.PostSend(Write(1, 200 * 1024), 0);
    DcqcnReactionPoint reference(a.dcqcn, a.lineRateBps);
    std::vector<uint64_t> rates;
    for (TimeNs t = 0; t < 120000; t += 1000)
    {
        l.now = t;
        l.qpA.OnTimeout(t);
        l.qpB.OnTimeout(t);
        rates.push_back(l.qpA.GetReactionPoint().RateBps());
        if (std::optional<OutPacket> p = l.qpA.PullPacket(0, t))
        {
            l.Deliver(l.qpB, *p, true);
        }
        while (std::optional<OutPacket> r = l.qpB.PullPacket(0, t))
        {
            if (LoggedPacket{*r}.Op() == IbOpcode::Cnp)
            {
                reference.OnCnp(t);
            }
            l.Deliver(l.qpA, *r);
        }
    }
    reference.OnTimer(119000);
    // One CNP per 50 us interval (NP), each cut at the next 4 us check: 4, 52 and 104 us.
    EXPECT_EQ(l.qpB.GetNotificationPoint().CnpsGenerated(), 3u);
    EXPECT_EQ(l.qpA.GetReactionPoint().Cuts(), 3u);
    EXPECT_EQ(rates[3], a.lineRateBps); // at 3 us: the first CNP (0 us) has cut nothing yet
    EXPECT_LT(rates[4], a.lineRateBps);
    EXPECT_EQ(rates[51], rates[5]);
    EXPECT_LT(rates[52], rates[51]);
    EXPECT_EQ(l.qpA.GetReactionPoint().RateBps(), reference.RateBps());
}

TEST(RoceV2QueuePair, WithDcqcnDisabledCeMarksMakeNoCnpAndNothingIsPaced)
{
    RoceV2Loop l; // the loop's default configuration disables DCQCN
    l.markAtoB = [](std::size_t, const OutPacket&) { return true; };
    l.qpA.PostSend(Write(1, 16 * 1024), 0);
    ASSERT_TRUE(l.Run());
    EXPECT_EQ(
        RoceV2Loop::Count(l.bToA, [](const LoggedPacket& p) { return p.Op() == IbOpcode::Cnp; }),
        0u);
    EXPECT_EQ(l.qpB.GetCounters().rxEcnMarked, 16u);
    EXPECT_EQ(l.qpA.TakeCompletions().at(0).time, 0u); // all 16 left at once
}

} // namespace
} // namespace metaroce
