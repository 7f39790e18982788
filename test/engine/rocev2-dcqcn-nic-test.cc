/*
 * DCQCN's nic variant (the default, spec 10.5) driven alone with virtual time: the first CNP arms
 * the timers and the cut comes one decrease interval later, CNPs within one interval cut once,
 * alpha on its own timer, the target rate clamped only after an increase, the increase ladder
 * (fast recovery, one additive step, hyper steps), and the variants' defaults.
 */
#include "dcqcn.h"

#include <cmath>
#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

constexpr uint64_t kLine = 100000000000ULL;
constexpr TimeNs kK = 1000;   // alpha period
constexpr TimeNs kD = 4000;   // decrease check
constexpr TimeNs kT = 300000; // increase timer
constexpr double kG = 5.0 / 1024;

/// The nic variant on its timer only (HPCC's simulator: no byte counter).
DcqcnConfig
TimerOnly()
{
    DcqcnConfig c;
    c.byteCounterBytes = kDcqcnNoByteCounter;
    return c;
}

uint64_t
CutOf(uint64_t rate, double alpha)
{
    return static_cast<uint64_t>(static_cast<double>(rate) * (1.0 - alpha / 2.0));
}

TEST(DcqcnNic, DefaultsComeFromTheVariant)
{
    const DcqcnConfig nic = DcqcnConfig{}.Resolved();
    EXPECT_EQ(nic.variant, DcqcnVariant::Nic);
    EXPECT_DOUBLE_EQ(nic.g, kG);
    EXPECT_EQ(nic.alphaTimerNs, kK);
    EXPECT_EQ(nic.rateDecreaseIntervalNs, kD);
    EXPECT_EQ(nic.rateTimerNs, kT);
    EXPECT_EQ(nic.byteCounterBytes, 32767u);
    EXPECT_EQ(nic.fastRecoverySteps, 1u);
    EXPECT_EQ(nic.additiveIncreaseBps, 5000000u);
    EXPECT_EQ(nic.hyperIncreaseBps, 50000000u);
    EXPECT_EQ(nic.minRateBps, 1000000u);
    EXPECT_EQ(nic.cnpIntervalNs, 50000u);

    DcqcnConfig paper;
    paper.variant = DcqcnVariant::Paper;
    paper.rateTimerNs = 70000; // set explicitly: kept
    const DcqcnConfig p = paper.Resolved();
    EXPECT_DOUBLE_EQ(p.g, 1.0 / 256);
    EXPECT_EQ(p.minRateBps, 100000000u);
    EXPECT_EQ(p.alphaTimerNs, 55000u);
    EXPECT_EQ(p.rateTimerNs, 70000u);
    EXPECT_EQ(p.byteCounterBytes, 10000000u);
    EXPECT_EQ(p.fastRecoverySteps, 5u);
    EXPECT_EQ(p.additiveIncreaseBps, 40000000u);
    EXPECT_EQ(p.hyperIncreaseBps, 100000000u);

    EXPECT_STREQ(DcqcnVariantName(DcqcnVariant::Paper), "paper");
    EXPECT_EQ(ParseDcqcnVariant("nic"), DcqcnVariant::Nic);
    EXPECT_THROW(ParseDcqcnVariant("mlx"), std::invalid_argument);
}

TEST(DcqcnNic, FirstCnpArmsTheTimersAndCutsOneDecreaseIntervalLater)
{
    DcqcnReactionPoint rp(DcqcnConfig{}, kLine); // the defaults
    EXPECT_EQ(rp.NextTimer(), kNever);
    rp.OnCnp(10000);
    EXPECT_EQ(rp.RateBps(), kLine); // nothing at once
    EXPECT_EQ(rp.NextTimer(), 10000 + kD);
    rp.OnTimer(10000 + kD - 1);
    EXPECT_EQ(rp.RateBps(), kLine);
    EXPECT_EQ(rp.Cuts(), 0u);

    // Alpha starts at 1 and, the first CNP not counting, decays at each of the four updates.
    rp.OnTimer(10000 + kD);
    const double alpha = std::pow(1.0 - kG, 4);
    EXPECT_DOUBLE_EQ(rp.Alpha(10000 + kD), alpha);
    EXPECT_EQ(rp.RateBps(), CutOf(kLine, alpha));
    EXPECT_EQ(rp.TargetRateBps(), kLine); // no increase before: the target stays
    EXPECT_EQ(rp.Cuts(), 1u);
    EXPECT_EQ(rp.NextTimer(), 10000 + kD + kT); // the increase timer from the cut
}

TEST(DcqcnNic, CnpsWithinOneDecreaseIntervalCutOnceAndRaiseAlpha)
{
    DcqcnReactionPoint rp(TimerOnly(), kLine);
    rp.OnCnp(0);
    rp.OnTimer(kD);
    double alpha = std::pow(1.0 - kG, 4);
    uint64_t rate = CutOf(kLine, alpha);
    ASSERT_EQ(rp.RateBps(), rate);

    // CNPs at 9.5 and 10.5 us: the check on the grid at 12 us cuts once. Alpha: plain decay to
    // 9 us, then the periods ending at 10 and 11 us each saw a CNP, the one ending at 12 none.
    rp.OnCnp(9500);
    EXPECT_EQ(rp.NextTimer(), 3 * kD);
    rp.OnCnp(10500);
    EXPECT_EQ(rp.NextTimer(), 3 * kD);
    rp.OnTimer(3 * kD);
    alpha *= std::pow(1.0 - kG, 5);  // 5..9 us
    alpha = (1.0 - kG) * alpha + kG; // 10 us: [9, 10) saw the CNP at 9.5
    alpha = (1.0 - kG) * alpha + kG; // 11 us: [10, 11) saw the CNP at 10.5
    alpha *= 1.0 - kG;               // 12 us
    EXPECT_NEAR(rp.Alpha(3 * kD), alpha, 1e-12);
    EXPECT_EQ(rp.Cuts(), 2u);
    EXPECT_EQ(rp.CnpsReceived(), 3u);
    EXPECT_NEAR(static_cast<double>(rp.RateBps()), static_cast<double>(CutOf(rate, alpha)), 2.0);
    EXPECT_EQ(rp.TargetRateBps(), kLine); // still no increase between the cuts

    // A CNP exactly at a check time belongs to the next check.
    rp.OnCnp(4 * kD);
    EXPECT_EQ(rp.NextTimer(), 5 * kD);
}

TEST(DcqcnNic, OnItsTimerOnlyTheLadderIsFastRecoveryThenOneAdditiveThenHyperSteps)
{
    DcqcnConfig config = TimerOnly();
    config.additiveIncreaseBps = 20000000; // HPCC's run.py at 100 Gb/s
    config.hyperIncreaseBps = 200000000;
    DcqcnReactionPoint rp(config, kLine);
    rp.OnCnp(0);
    rp.OnTimer(kD); // cut 1: Rt = line
    const uint64_t afterCut = rp.RateBps();
    rp.OnTimer(kD + kT); // stage 1 <= F: fast recovery
    EXPECT_EQ(rp.Phase(), DcqcnPhase::FastRecovery);
    const uint64_t recovered = (kLine + afterCut + 1) / 2;
    EXPECT_EQ(rp.RateBps(), recovered);

    // Cut 2 after an increase: the target is clamped to the rate before the cut.
    rp.OnCnp(kD + kT + 100);
    rp.OnTimer(kD + kT + kD);
    EXPECT_EQ(rp.TargetRateBps(), recovered);
    uint64_t rate = rp.RateBps();
    uint64_t target = recovered;
    const TimeNs cut2 = 2 * kD + kT;

    rp.OnTimer(cut2 + kT); // stage 1: fast recovery
    EXPECT_EQ(rp.Phase(), DcqcnPhase::FastRecovery);
    rate = (target + rate + 1) / 2;
    EXPECT_EQ(rp.RateBps(), rate);
    rp.OnTimer(cut2 + 2 * kT); // stage 2 = F + 1: one additive step
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    target += 20000000;
    rate = (target + rate + 1) / 2;
    EXPECT_EQ(rp.TargetRateBps(), target);
    EXPECT_EQ(rp.RateBps(), rate);
    for (int k = 3; k <= 5; ++k) // stages 3.. : hyper steps of R_HAI each
    {
        rp.OnTimer(cut2 + k * kT);
        EXPECT_EQ(rp.Phase(), DcqcnPhase::HyperIncrease);
        target += 200000000;
        rate = (target + rate + 1) / 2;
        EXPECT_EQ(rp.TargetRateBps(), target) << "stage " << k;
        EXPECT_EQ(rp.RateBps(), rate);
    }

    // Back at line rate the increase timer stops; with no CNP pending nothing is due.
    rp.OnTimer(cut2 + 2000 * kT);
    EXPECT_EQ(rp.RateBps(), kLine);
    EXPECT_EQ(rp.NextTimer(), kNever);
    // A later CNP is acted on at the next point of the grid the first CNP laid.
    rp.OnCnp(1000000500);
    EXPECT_EQ(rp.NextTimer(), 1000004000u);
}

TEST(DcqcnNic, ClampTargetRateClampsOnEveryCut)
{
    DcqcnConfig config;
    config.clampTargetRate = true;
    DcqcnReactionPoint rp(config, kLine);
    rp.OnCnp(0);
    rp.OnTimer(kD);
    const uint64_t first = rp.RateBps();
    rp.OnCnp(kD + 1);
    rp.OnTimer(2 * kD);
    EXPECT_EQ(rp.TargetRateBps(), first);
    EXPECT_LT(rp.RateBps(), first);
}

TEST(DcqcnNic, WithTheByteCounterTheStagesFollowThePaper)
{
    DcqcnReactionPoint rp(DcqcnConfig{}, kLine); // B = 32767 bytes, F = 1
    rp.OnCnp(0);
    rp.OnTimer(kD);
    const uint64_t afterCut = rp.RateBps();
    rp.OnBytesSent(32767, kD + 1); // BC = 1 <= F
    EXPECT_EQ(rp.ByteStage(), 1u);
    EXPECT_EQ(rp.Phase(), DcqcnPhase::FastRecovery);
    EXPECT_EQ(rp.RateBps(), (kLine + afterCut + 1) / 2);
    rp.OnBytesSent(2 * 32767, kD + 2); // BC = 3, T = 0: additive, and the target is capped
    EXPECT_EQ(rp.ByteStage(), 3u);
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    EXPECT_EQ(rp.TargetRateBps(), kLine);
    rp.OnTimer(kD + kT); // T = 1: still additive (min(T, BC) = F)
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    rp.OnTimer(kD + 2 * kT); // T = 2, BC = 3: hyper
    EXPECT_EQ(rp.Phase(), DcqcnPhase::HyperIncrease);

    // A cut after that timer increase clamps the target; one after byte increases only does
    // not (NVIDIA's clamp_tgt_rate_after_time_inc).
    const uint64_t before = rp.RateBps();
    rp.OnCnp(kD + 2 * kT + 1);
    rp.OnTimer(kD + 2 * kT + kD);
    EXPECT_EQ(rp.TargetRateBps(), before);
    const uint64_t target = rp.TargetRateBps();
    rp.OnBytesSent(32767, kD + 2 * kT + kD + 1);
    rp.OnCnp(kD + 2 * kT + kD + 2);
    rp.OnTimer(kD + 2 * kT + 2 * kD);
    EXPECT_EQ(rp.TargetRateBps(), target);
}

TEST(DcqcnNic, RateNeverFallsBelowTheMinimum)
{
    DcqcnConfig config;
    config.minRateBps = 40000000000ULL;
    DcqcnReactionPoint rp(config, kLine);
    rp.OnCnp(0);
    rp.OnTimer(kD);
    rp.OnCnp(kD + 1);
    rp.OnTimer(2 * kD);
    EXPECT_EQ(rp.RateBps(), 40000000000ULL);
}

} // namespace
} // namespace metaroce
