// Unit tests of SwiftCongestionControl on bare window state (spec 9.6): growth below the target
// delay, a cut proportional to the excess above it (capped, once per RTT) on both windows, loss
// and timeout on the path only, ECN ignored.
#include "swift-congestion-control.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace metaroce
{
namespace
{

constexpr TimeNs kTarget = 10'000;
constexpr TimeNs kSrtt = 10'000;

SwiftConfig
Config()
{
    SwiftConfig c;
    c.targetDelayNs = kTarget;
    c.additiveIncreaseBytes = 4096;
    c.beta = 0.8;
    c.connectionBeta = 0.4;
    c.maxDecrease = 0.5;
    return c;
}

/// An ACK of 8000 bytes (2 packets) whose own RTT sample is `rtt`.
AckSample
Ack(TimeNs rtt, uint32_t ce = 0)
{
    AckSample s{8'000, 2, ce, kSrtt};
    s.rtt = rtt;
    return s;
}

struct Windows
{
    WindowState path{40'000, 4'000, 1'000'000};
    WindowState conn{400'000, 8'000, 10'000'000};
};

TEST(Swift, BelowTargetGrowsBothWindowsAdditively)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    cc.OnAck(w.path, w.conn, Ack(kTarget - 1), 100);
    EXPECT_DOUBLE_EQ(w.path.window, 40'000 + 4096.0 * 8'000 / 40'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000 + 4096.0 * 8'000 / 400'000);
}

TEST(Swift, AboveTargetCutsInProportionToTheExcess)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    // delay 12.5 us, target 10 us: excess / delay = 0.2; path x (1 - 0.8 * 0.2), conn x
    // (1 - 0.4 * 0.2).
    cc.OnAck(w.path, w.conn, Ack(12'500), 100);
    EXPECT_DOUBLE_EQ(w.path.window, 40'000 * (1 - 0.8 * 0.2));
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000 * (1 - 0.4 * 0.2));
    EXPECT_TRUE(w.path.Decreased());
    EXPECT_EQ(w.path.lastDecrease, 100);
}

TEST(Swift, AtTargetCutsNothingButDoesNotGrow)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    cc.OnAck(w.path, w.conn, Ack(kTarget), 100);
    EXPECT_DOUBLE_EQ(w.path.window, 40'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000);
}

TEST(Swift, CutIsCappedByMaxDecrease)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    // delay 100 us: 1 - 0.8 * 0.9 = 0.28 would remove 72%; the cap keeps half.
    cc.OnAck(w.path, w.conn, Ack(100'000), 100);
    EXPECT_DOUBLE_EQ(w.path.window, 20'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000 * (1 - 0.4 * 0.9));
    EXPECT_DOUBLE_EQ(cc.DecreaseFactor(0.8, 100'000), 0.5);
}

TEST(Swift, AtMostOneCutPerRtt)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    cc.OnAck(w.path, w.conn, Ack(20'000), 1'000);
    const double afterFirst = w.path.window;
    EXPECT_DOUBLE_EQ(afterFirst, 40'000 * (1 - 0.8 * 0.5));
    cc.OnAck(w.path, w.conn, Ack(20'000), 1'000 + kSrtt - 1); // same RTT: no cut, no growth
    EXPECT_DOUBLE_EQ(w.path.window, afterFirst);
    cc.OnAck(w.path, w.conn, Ack(20'000), 1'000 + kSrtt); // next RTT
    EXPECT_DOUBLE_EQ(w.path.window, afterFirst * (1 - 0.8 * 0.5));
}

TEST(Swift, FallsBackToSrttWithoutAnRttSampleAndIgnoresEcn)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    AckSample marked{8'000, 2, 2, kTarget / 2}; // CE marks, srtt below target, no sample
    cc.OnAck(w.path, w.conn, marked, 100);
    EXPECT_GT(w.path.window, 40'000); // marks alone do not cut a delay-based algorithm
    AckSample slow{8'000, 2, 0, 2 * kTarget};
    const double before = w.path.window;
    cc.OnAck(w.path, w.conn, slow, 200);
    EXPECT_DOUBLE_EQ(w.path.window, before * (1 - 0.8 * 0.5));
}

TEST(Swift, ConnectionBetaZeroLeavesTheConnectionWindowOnDelay)
{
    SwiftConfig c = Config();
    c.connectionBeta = 0;
    SwiftCongestionControl cc(c);
    Windows w;
    cc.OnAck(w.path, w.conn, Ack(20'000), 100);
    EXPECT_LT(w.path.window, 40'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000);
}

TEST(Swift, LossCutsTheFlowByMaxDecreaseAndTimeoutResetsIt)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    cc.OnLoss(w.path, w.conn, kSrtt, 1);
    EXPECT_DOUBLE_EQ(w.path.window, 20'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000);
    cc.OnLoss(w.path, w.conn, kSrtt, 2); // same RTT
    EXPECT_DOUBLE_EQ(w.path.window, 20'000);
    cc.OnTimeout(w.path, w.conn, 3);
    EXPECT_DOUBLE_EQ(w.path.window, 4'000);
    EXPECT_DOUBLE_EQ(w.conn.window, 400'000);
}

TEST(Swift, WindowsStayWithinTheirBounds)
{
    SwiftCongestionControl cc(Config());
    Windows w;
    w.path.window = 4'100;
    cc.OnAck(w.path, w.conn, Ack(1'000'000), 100);
    EXPECT_DOUBLE_EQ(w.path.window, 4'000);
    w.path.window = 1'000'000;
    cc.OnAck(w.path, w.conn, Ack(1'000), 1'000'000);
    EXPECT_DOUBLE_EQ(w.path.window, 1'000'000);
}

TEST(Swift, CloneKeepsTheParametersAndBadOnesAreRefused)
{
    SwiftCongestionControl cc(Config());
    const auto copy = cc.Clone();
    EXPECT_STREQ(copy->Name(), "swift");
    Windows a;
    Windows b;
    cc.OnAck(a.path, a.conn, Ack(12'500), 100);
    copy->OnAck(b.path, b.conn, Ack(12'500), 100);
    EXPECT_DOUBLE_EQ(a.path.window, b.path.window);
    SwiftConfig bad = Config();
    bad.maxDecrease = 1;
    EXPECT_THROW(SwiftCongestionControl{bad}, std::invalid_argument);
    bad = Config();
    bad.targetDelayNs = 0;
    EXPECT_THROW(SwiftCongestionControl{bad}, std::invalid_argument);
}

} // namespace
} // namespace metaroce
