// A NIC's injection rate (doc/spec.md 9.7, A58): DCTCP's control law over the ACKs of all its
// connections, one change per round of the NIC's smoothed RTT (at least 8 us).
#include "injection-rate.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

constexpr TimeNs kUs = 1000;

TEST(InjectionRate, StartsAtTheLineRateAndStaysThereWithoutMarks)
{
    InjectionRate rate;
    for (TimeNs t = 0; t < 1000 * kUs; t += kUs)
    {
        rate.OnAck(4, 0, t, 10 * kUs);
    }
    EXPECT_DOUBLE_EQ(rate.Share(), 1.0);
    EXPECT_EQ(rate.Cuts(), 0u);
    EXPECT_DOUBLE_EQ(rate.Alpha(), 0.0);
}

TEST(InjectionRate, ARoundWithMarksCutsByHalfOfAlphaThenAddsTheIncreaseOnceAtItsEnd)
{
    InjectionRate rate;
    rate.OnAck(1, 1, 0, 10 * kUs); // opens the first round, which ends at 10 us
    rate.OnAck(1, 1, 5 * kUs, 10 * kUs);
    EXPECT_DOUBLE_EQ(rate.Share(), 1.0) << "nothing changes within a round";
    rate.OnAck(1, 0, 10 * kUs, 10 * kUs); // ends it: 2 of 2 marked
    const double alpha = 1.0 / 16;
    EXPECT_DOUBLE_EQ(rate.Alpha(), alpha);
    EXPECT_DOUBLE_EQ(rate.Share(), (1 - alpha / 2) + 1.0 / 64);
    EXPECT_EQ(rate.Cuts(), 1u);
    // More marked ACKs in the same (second) round change nothing before it ends.
    rate.OnAck(10, 10, 15 * kUs, 10 * kUs);
    EXPECT_DOUBLE_EQ(rate.Share(), (1 - alpha / 2) + 1.0 / 64);
}

TEST(InjectionRate, AFewMarksLeaveTheLineRate)
{
    // 1% of every round's packets marked: alpha settles near 1%, whose half-cut (0.5%) the
    // increase (1/64) more than makes up.
    InjectionRate rate;
    for (TimeNs t = 0; t < 10'000 * kUs; t += 10 * kUs)
    {
        rate.OnAck(99, 0, t, 10 * kUs);
        rate.OnAck(1, 1, t + kUs, 10 * kUs);
    }
    EXPECT_GT(rate.Cuts(), 900u);
    EXPECT_NEAR(rate.Alpha(), 0.01, 1e-3);
    EXPECT_DOUBLE_EQ(rate.Share(), 1.0);
}

TEST(InjectionRate, ManyMarksCutUntilTheIncreaseBalancesThem)
{
    // 8% of every round's packets marked: the share settles where share x alpha / 2 is the
    // increase, 2 x (1/64) / 0.08 = 0.39.
    InjectionRate rate;
    for (TimeNs t = 0; t < 10'000 * kUs; t += 10 * kUs)
    {
        rate.OnAck(24, 1, t, 10 * kUs);
        rate.OnAck(1, 1, t + kUs, 10 * kUs);
    }
    EXPECT_NEAR(rate.Alpha(), 0.08, 1e-3);
    EXPECT_NEAR(rate.Share(), 2 * (1.0 / 64) / 0.08, 0.01);
}

TEST(InjectionRate, CleanRoundsBringBackTheLineRate)
{
    InjectionRate rate;
    TimeNs t = 0;
    for (int round = 0; round < 40; ++round, t += 8 * kUs)
    {
        rate.OnAck(2, 2, t, 0); // every packet marked; no RTT yet: 8 us rounds
    }
    const double cut = rate.Share();
    EXPECT_DOUBLE_EQ(cut, 1.0 / 16) << "at the floor";
    rate.OnAck(2, 0, t, 0);
    const double alpha = rate.Alpha();
    t += 8 * kUs;
    rate.OnAck(2, 0, t, 0); // ends a round without marks
    EXPECT_DOUBLE_EQ(rate.Share(), cut + 1.0 / 64);
    EXPECT_DOUBLE_EQ(rate.Alpha(), alpha * 15 / 16);
    for (int round = 0; round < 256; ++round)
    {
        t += 8 * kUs;
        rate.OnAck(2, 0, t, 0);
    }
    EXPECT_DOUBLE_EQ(rate.Share(), 1.0);
}

TEST(InjectionRate, NeverBelowASixteenthOfTheLineRate)
{
    InjectionRate rate;
    for (TimeNs t = 0; t < 100'000 * kUs; t += 8 * kUs)
    {
        rate.OnAck(1, 1, t, 0);
    }
    EXPECT_DOUBLE_EQ(rate.Share(), 1.0 / 16);
    EXPECT_GT(rate.Alpha(), 0.99);
}

TEST(InjectionRate, RoundsFollowTheNicsRoundTrip)
{
    // With a 100 us RTT, ACKs every 10 us within one round change nothing; at 100 us it ends.
    InjectionRate rate;
    for (TimeNs t = 0; t < 100 * kUs; t += 10 * kUs)
    {
        rate.OnAck(1, 1, t, 100 * kUs);
    }
    EXPECT_EQ(rate.Cuts(), 0u);
    rate.OnAck(1, 1, 100 * kUs, 100 * kUs);
    EXPECT_EQ(rate.Cuts(), 1u);
}

TEST(InjectionRate, MarksBeyondThePacketsAcknowledgedCountOnce)
{
    // A malformed ACK reporting more marks than packets cannot push the share past all marked.
    InjectionRate a;
    InjectionRate b;
    a.OnAck(1, 0, 0, 0);
    b.OnAck(1, 0, 0, 0);
    a.OnAck(2, 2, kUs, 0);
    b.OnAck(2, 60'000, kUs, 0);
    a.OnAck(1, 0, 8 * kUs, 0);
    b.OnAck(1, 0, 8 * kUs, 0);
    EXPECT_DOUBLE_EQ(a.Alpha(), b.Alpha());
    EXPECT_DOUBLE_EQ(a.Share(), b.Share());
}

} // namespace
} // namespace metaroce
