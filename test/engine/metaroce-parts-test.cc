// Unit tests of the MetaRoCE parts on bare state: receive window, loss detection, congestion
// control, flow health, configuration validation.
#include "congestion-control.h"
#include "loss-detection.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"
#include "flow-receive-window.h"
#include "flow-recovery.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

using Verdict = FlowReceiveWindow::Verdict;

TEST(FlowRecovery, ReleasedGeneratorContinuesTheSameSequence)
{
    MetaRoceConfig config;
    config.entropyCount = 60000;
    Counters counters;
    FlowRecovery kept(config, counters, IdsOf(config));
    FlowRecovery released(config, counters, IdsOf(config));
    for (int i = 0; i < 70; ++i)
    {
        ASSERT_EQ(kept.DrawEntropy(), released.DrawEntropy()) << "draw " << i;
        if (i % 7 == 0)
        {
            released.ReleaseGenerator(); // rebuilt from the seed and 1 + i draws
        }
    }
}

TEST(FlowReceiveWindow, InOrderAdvancesCumulative)
{
    FlowReceiveWindow w;
    for (uint64_t fsn = 0; fsn < 1000; ++fsn)
    {
        ASSERT_EQ(w.Observe(fsn, fsn), Verdict::New);
    }
    EXPECT_EQ(w.Cumulative(), 1000u);
    EXPECT_FALSE(w.HasGap());
    EXPECT_TRUE(w.Sack().none());
}

TEST(FlowReceiveWindow, GapShowsInSackAndFillsIn)
{
    FlowReceiveWindow w;
    EXPECT_EQ(w.Observe(0, 0), Verdict::New);
    EXPECT_EQ(w.Observe(2, 0), Verdict::New);
    EXPECT_EQ(w.Observe(3, 0), Verdict::New);
    EXPECT_EQ(w.Cumulative(), 1u);
    EXPECT_TRUE(w.HasGap());
    auto sack = w.Sack();
    EXPECT_TRUE(sack[0]); // FSN 2
    EXPECT_TRUE(sack[1]); // FSN 3
    EXPECT_EQ(sack.count(), 2u);
    EXPECT_EQ(w.Observe(3, 0), Verdict::Duplicate);
    EXPECT_EQ(w.Observe(1, 0), Verdict::New);
    EXPECT_EQ(w.Cumulative(), 4u);
    EXPECT_FALSE(w.HasGap());
}

TEST(FlowReceiveWindow, FloorSkipsAbandonedFsns)
{
    FlowReceiveWindow w;
    w.Observe(0, 0);
    w.Observe(5, 0); // 1..4 missing
    EXPECT_EQ(w.Cumulative(), 1u);
    // The sender gave up on 1..4 (retransmitted their data elsewhere): floor 6.
    EXPECT_EQ(w.Observe(6, 6), Verdict::New);
    EXPECT_EQ(w.Cumulative(), 7u);
    EXPECT_EQ(w.Observe(3, 6), Verdict::OutOfWindow); // below its own floor: nonsense
}

TEST(FlowReceiveWindow, SackBoundaryAt256)
{
    FlowReceiveWindow w;
    EXPECT_EQ(w.Observe(255, 0), Verdict::New); // the last FSN the bitvector can show
    EXPECT_TRUE(w.Sack()[254]);
    EXPECT_EQ(w.Observe(256, 0), Verdict::OutOfWindow); // beyond the sender's window
    EXPECT_EQ(w.Cumulative(), 0u);
    for (uint64_t fsn = 0; fsn < 255; ++fsn)
    {
        w.Observe(fsn, 0);
    }
    EXPECT_EQ(w.Cumulative(), 256u);
}

SentPacket
Sent(uint64_t fsn, uint32_t epoch, TimeNs at, SentPacket::State s = SentPacket::State::InFlight)
{
    SentPacket p;
    p.fsn = fsn;
    p.txSeq = fsn;
    p.epoch = epoch;
    p.sentAt = at;
    p.state = s;
    return p;
}

TEST(LossDetection, GapInTheSameEpochIsLossAtOnce)
{
    Ring<SentPacket> out{Sent(0, 0, 0),
                         Sent(1, 0, 1),
                         Sent(2, 0, 2, SentPacket::State::Acked),
                         Sent(3, 0, 3)};
    const LossVerdict v = DetectLosses(out, 0, TimeRule{RackState{}, 10'000}, 5);
    ASSERT_EQ(v.lost.size(), 2u);
    EXPECT_EQ(v.lost[0], 0u);
    EXPECT_EQ(v.lost[1], 1u);
    EXPECT_EQ(v.nextCheck, kNever);
}

TEST(LossDetection, ToleranceAllowsSmallReordering)
{
    Ring<SentPacket> out{Sent(0, 0, 0), Sent(1, 0, 1, SentPacket::State::Acked)};
    EXPECT_TRUE(DetectLosses(out, 1, TimeRule{RackState{}, 10'000}, 5).lost.empty());
    EXPECT_EQ(DetectLosses(out, 0, TimeRule{RackState{}, 10'000}, 5).lost.size(), 1u);
}

TEST(LossDetection, AcrossEpochsWaitsForTheRoundTripAndTheReorderWindow)
{
    // FSN 0 went on the old route, FSN 1 on the new one and overtook it.
    Ring<SentPacket> out{Sent(0, 0, 100), Sent(1, 1, 200, SentPacket::State::Acked)};
    RackState rack;
    rack.OnAcked(out[1], 5'200); // its round trip: 5 us
    const TimeNs window = 1'000;
    LossVerdict v = DetectLosses(out, 0, TimeRule{rack, window}, 1'000);
    EXPECT_TRUE(v.lost.empty());
    EXPECT_EQ(v.nextCheck, 100 + 5'000 + window);
    v = DetectLosses(out, 0, TimeRule{rack, window}, v.nextCheck - 1);
    EXPECT_TRUE(v.lost.empty());
    v = DetectLosses(out, 0, TimeRule{rack, window}, 100 + 5'000 + window);
    ASSERT_EQ(v.lost.size(), 1u);
}

TEST(LossDetection, TailWithoutLaterAckIsLeftToTheTimer)
{
    Ring<SentPacket> out{Sent(0, 0, 0, SentPacket::State::Acked), Sent(1, 0, 1)};
    RackState rack;
    rack.OnAcked(out[0], 5'000);
    const LossVerdict v = DetectLosses(out, 0, TimeRule{rack, 1'000}, 1'000'000);
    EXPECT_TRUE(v.lost.empty());
    EXPECT_EQ(v.nextCheck, kNever);
}

TEST(Aimd, MarksCutOncePerRttAndClearAcksGrow)
{
    AimdCongestionControl cc(AimdConfig{4096, 0.5, 0.25, false});
    WindowState flow{40'000, 4'000, 1'000'000};
    WindowState conn{400'000, 8'000, 10'000'000};
    AckSample marked{8'000, 2, 1, 10'000};
    cc.OnAck(flow, conn, marked, 100);
    EXPECT_DOUBLE_EQ(flow.window, 20'000);
    EXPECT_DOUBLE_EQ(conn.window, 300'000);
    cc.OnAck(flow, conn, marked, 5'000); // same RTT: no second cut
    EXPECT_DOUBLE_EQ(flow.window, 20'000);
    cc.OnAck(flow, conn, marked, 10'200); // next RTT
    EXPECT_DOUBLE_EQ(flow.window, 10'000);
    AckSample clear{10'000, 2, 0, 10'000};
    cc.OnAck(flow, conn, clear, 20'000);
    EXPECT_DOUBLE_EQ(flow.window, 10'000 + 4096.0 * 10'000 / 10'000);
}

TEST(Aimd, TheConnectionLosesItsShareOfMarkedBytes)
{
    // connectionCutByShare (the default): every marked ACK takes connectionDecrease x its
    // marked bytes off the connection, with no once-per-RTT rule; the flow halves once per RTT.
    AimdCongestionControl cc(AimdConfig{4096, 0.5, 0.25});
    WindowState flow{40'000, 4'000, 1'000'000};
    WindowState conn{400'000, 8'000, 10'000'000};
    AckSample oneOfTwo{8'000, 2, 1, 10'000};
    cc.OnAck(flow, conn, oneOfTwo, 100);
    EXPECT_DOUBLE_EQ(flow.window, 20'000);
    EXPECT_DOUBLE_EQ(conn.window, 400'000 - 0.25 * 4'000);
    cc.OnAck(flow, conn, oneOfTwo, 200); // same RTT: the flow keeps its window, not the connection
    EXPECT_DOUBLE_EQ(flow.window, 20'000);
    EXPECT_DOUBLE_EQ(conn.window, 400'000 - 0.25 * 8'000);
    // A window of marks takes a quarter of the window over its round trip, as the event rule.
    WindowState all{400'000, 8'000, 10'000'000};
    AckSample everything{4'000, 1, 1, 10'000};
    for (int k = 0; k < 100; ++k)
    {
        cc.OnAck(flow, all, everything, 300 + k);
    }
    EXPECT_DOUBLE_EQ(all.window, 300'000);
    // A marked ACK that acknowledged nothing counts its marks as full packets (the flow's
    // minimum window), and more marks than packets count as the packets.
    WindowState w{400'000, 8'000, 10'000'000};
    cc.OnAck(flow, w, AckSample{0, 0, 2, 10'000}, 1'000);
    EXPECT_DOUBLE_EQ(w.window, 400'000 - 0.25 * 2 * 4'000);
    cc.OnAck(flow, w, AckSample{4'000, 1, 3, 10'000}, 1'100);
    EXPECT_DOUBLE_EQ(w.window, 400'000 - 0.25 * 3 * 4'000);
}

TEST(Aimd, LossCutsTheFlowOnlyAndTimeoutResetsIt)
{
    AimdCongestionControl cc(AimdConfig{4096, 0.5, 0.25});
    WindowState flow{40'000, 4'000, 1'000'000};
    WindowState conn{400'000, 8'000, 10'000'000};
    cc.OnLoss(flow, conn, 10'000, 1);
    EXPECT_DOUBLE_EQ(flow.window, 20'000);
    EXPECT_DOUBLE_EQ(conn.window, 400'000);
    cc.OnTimeout(flow, conn, 2);
    EXPECT_DOUBLE_EQ(flow.window, 4'000);
}

TEST(FlowHealth, OnlyLegalTransitions)
{
    Flow p(0, 0, 50000, 8'000);
    p.SetHealth(FlowHealth::Suspect);
    p.SetHealth(FlowHealth::Down);
    EXPECT_THROW(p.SetHealth(FlowHealth::Suspect), std::logic_error);
    p.SetHealth(FlowHealth::Up);
    const uint32_t epoch = p.epoch;
    p.Redraw(50001);
    EXPECT_EQ(p.entropy, 50001);
    EXPECT_EQ(p.epoch, epoch + 1);
}

TEST(FlowWindow, RoomRespectsWindowAndSackSpan)
{
    Flow p(0, 0, 50000, 8'000);
    p.window = WindowState{8'000, 4'000, 1'000'000};
    EXPECT_TRUE(p.HasRoom(4'000, 256));
    p.inflightBytes = 6'000;
    EXPECT_FALSE(p.HasRoom(4'000, 256));
    p.inflightBytes = 0;
    p.nextFsn = 256; // 256 FSNs outstanding above floor 0 would overflow the bitvector
    p.outstanding.push_back(SentPacket{});
    EXPECT_FALSE(p.HasRoom(100, 256));
}

TEST(MetaRoceConfig, DefaultsAreValid)
{
    EXPECT_NO_THROW(MetaRoceConfig{}.Validate());
}

TEST(MetaRoceConfig, BadValuesNameTheirField)
{
    auto expectBad = [](auto mutate, const std::string& field) {
        MetaRoceConfig c;
        mutate(c);
        try
        {
            c.Validate();
            ADD_FAILURE() << field << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    expectBad([](MetaRoceConfig& c) { c.mtu = 100; }, "mtu");
    expectBad([](MetaRoceConfig& c) { c.ports = 0; }, "ports");
    expectBad([](MetaRoceConfig& c) { c.maxFlowWindowPackets = 300; }, "maxFlowWindowPackets");
    expectBad([](MetaRoceConfig& c) { c.aimd.flowDecrease = 1.5; }, "flowDecrease");
    expectBad([](MetaRoceConfig& c) { c.rtoMaxNs = 1; }, "rtoMaxNs");
    expectBad([](MetaRoceConfig& c) { c.entropyCount = 0; }, "entropyCount");
    expectBad([](MetaRoceConfig& c) { c.flowDownTimeouts = 0; }, "flowDownTimeouts");
    expectBad([](MetaRoceConfig& c) { c.maxTailProbes = 65; }, "maxTailProbes");
}

} // namespace
} // namespace metaroce
