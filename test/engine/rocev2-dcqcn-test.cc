/*
 * DCQCN's paper variant driven alone with virtual time (spec 10.5; the nic variant is
 * rocev2-dcqcn-nic-test.cc), and the validation of RoceV2Config. Rates are integers, so the
 * expected values are exact.
 */
#include "dcqcn.h"
#include "engine-memory.h"
#include "rocev2-config.h"
#include "rocev2-queue-pair.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>

namespace metaroce
{
namespace
{

constexpr uint64_t kLine = 100000000000ULL;
constexpr TimeNs kT = 55000;

/// The paper variant with its defaults (K = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s).
DcqcnConfig
Paper()
{
    DcqcnConfig c;
    c.variant = DcqcnVariant::Paper;
    return c;
}

TEST(RoceV2Dcqcn, FirstCnpHalvesTheRateAndFastRecoveryHalvesTheGap)
{
    DcqcnReactionPoint rp(Paper(), kLine);
    EXPECT_EQ(rp.RateBps(), kLine);
    EXPECT_EQ(rp.NextTimer(), kNever);

    rp.OnCnp(0);
    EXPECT_EQ(rp.RateBps(), 50000000000ULL); // alpha = 1: Rc (1 - 1/2)
    EXPECT_EQ(rp.TargetRateBps(), kLine);
    EXPECT_DOUBLE_EQ(rp.Alpha(0), 1.0); // (1 - g) 1 + g
    EXPECT_EQ(rp.NextTimer(), kT);

    const uint64_t expected[] = {75000000000ULL,
                                 87500000000ULL,
                                 93750000000ULL,
                                 96875000000ULL,
                                 98437500000ULL};
    for (int k = 0; k < 5; ++k)
    {
        rp.OnTimer(kT * (k + 1));
        EXPECT_EQ(rp.RateBps(), expected[k]) << "timer " << k + 1;
        EXPECT_EQ(rp.Phase(), DcqcnPhase::FastRecovery);
    }
    rp.OnTimer(kT * 6);
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    EXPECT_EQ(rp.TargetRateBps(), kLine); // capped
    EXPECT_EQ(rp.RateBps(), 99218750000ULL);
}

TEST(RoceV2Dcqcn, AdditiveIncreaseRaisesTheTargetAndTheRateRecovers)
{
    DcqcnReactionPoint rp(Paper(), kLine);
    rp.OnCnp(0);
    rp.OnCnp(10000); // within K: alpha still 1
    EXPECT_EQ(rp.TargetRateBps(), 50000000000ULL);
    EXPECT_EQ(rp.RateBps(), 25000000000ULL);
    rp.OnTimer(10000 + 5 * kT);
    EXPECT_EQ(rp.RateBps(), 49218750000ULL);
    rp.OnTimer(10000 + 6 * kT);
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    EXPECT_EQ(rp.TargetRateBps(), 50040000000ULL); // + R_AI = 40 Mb/s
    EXPECT_EQ(rp.RateBps(), 49629375000ULL);

    // 1250 additive steps of 55 us bring Rt back to line rate near 69 ms; Rc follows.
    rp.OnTimer(60000000);
    EXPECT_LT(rp.RateBps(), kLine);
    EXPECT_NE(rp.NextTimer(), kNever);
    rp.OnTimer(100000000);
    EXPECT_EQ(rp.RateBps(), kLine);
    EXPECT_EQ(rp.TargetRateBps(), kLine);
    EXPECT_EQ(rp.NextTimer(), kNever);
}

TEST(RoceV2Dcqcn, HyperIncreaseNeedsBothCountersPastF)
{
    DcqcnConfig config = Paper();
    config.byteCounterBytes = 1000;
    DcqcnReactionPoint rp(config, kLine);
    rp.OnCnp(0);
    rp.OnCnp(1);
    for (int i = 0; i < 6; ++i)
    {
        rp.OnBytesSent(1000, 2);
    }
    EXPECT_EQ(rp.ByteStage(), 6u);
    EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease); // BC > F but T = 0
    for (int k = 1; k <= 5; ++k)
    {
        rp.OnTimer(1 + k * kT);
        EXPECT_EQ(rp.Phase(), DcqcnPhase::AdditiveIncrease);
    }
    const uint64_t before = rp.TargetRateBps();
    rp.OnTimer(1 + 6 * kT); // T = 6, BC = 6: min - F = 1
    EXPECT_EQ(rp.Phase(), DcqcnPhase::HyperIncrease);
    EXPECT_EQ(rp.TargetRateBps(), before + 100000000ULL);
}

TEST(RoceV2Dcqcn, AlphaDecaysOncePerPeriodWithoutCnp)
{
    const DcqcnConfig config = Paper().Resolved(); // g = 1/256
    DcqcnReactionPoint rp(config, kLine);
    rp.OnCnp(0);
    rp.OnTimer(3 * kT);
    EXPECT_EQ(rp.RateBps(), 93750000000ULL);
    const double decayed = std::pow(1.0 - config.g, 3);
    EXPECT_DOUBLE_EQ(rp.Alpha(3 * kT), decayed);
    EXPECT_DOUBLE_EQ(rp.Alpha(3 * kT + kT - 1), decayed); // whole periods only

    rp.OnCnp(3 * kT);
    EXPECT_EQ(rp.RateBps(), static_cast<uint64_t>(93750000000.0 * (1.0 - decayed / 2)));
    EXPECT_EQ(rp.TargetRateBps(), 93750000000ULL);
    EXPECT_DOUBLE_EQ(rp.Alpha(3 * kT), (1.0 - config.g) * decayed + config.g);
    EXPECT_EQ(rp.CnpsReceived(), 2u);
}

TEST(RoceV2Dcqcn, RateNeverFallsBelowTheMinimum)
{
    DcqcnConfig config = Paper();
    config.minRateBps = 10000000000ULL;
    DcqcnReactionPoint rp(config, kLine);
    const uint64_t expected[] = {50000000000ULL, 25000000000ULL, 12500000000ULL, 10000000000ULL};
    for (int i = 0; i < 4; ++i)
    {
        rp.OnCnp(i);
        EXPECT_EQ(rp.RateBps(), expected[i]);
    }
}

TEST(RoceV2Dcqcn, NotificationPointSendsOneCnpPerInterval)
{
    DcqcnNotificationPoint np(50000);
    int cnps = 0;
    for (TimeNs t = 0; t < 120000; t += 1000)
    {
        cnps += np.OnCeMarked(t) ? 1 : 0;
    }
    EXPECT_EQ(cnps, 3); // at 0, 50 us and 100 us
    EXPECT_FALSE(np.OnCeMarked(149999));
    EXPECT_TRUE(np.OnCeMarked(150000));
    EXPECT_EQ(np.CnpsGenerated(), 4u);
}

void
ExpectInvalid(const std::function<void(RoceV2Config&)>& mutate, const std::string& field)
{
    RoceV2Config config;
    mutate(config);
    try
    {
        config.Validate();
        ADD_FAILURE() << "no exception for " << field;
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("RoceV2Config." + field + ": "), std::string::npos)
            << e.what();
    }
}

TEST(RoceV2Config, DefaultsAreValidAndEveryBadFieldIsNamed)
{
    EXPECT_NO_THROW(RoceV2Config{}.Validate());
    ExpectInvalid([](RoceV2Config& c) { c.localQpn = 1; }, "localQpn");
    ExpectInvalid([](RoceV2Config& c) { c.remoteQpn = 0xFFFFFF; }, "remoteQpn");
    ExpectInvalid([](RoceV2Config& c) { c.pKey = 0x8000; }, "pKey");
    ExpectInvalid([](RoceV2Config& c) { c.initialPsn = 1 << 24; }, "initialPsn");
    ExpectInvalid([](RoceV2Config& c) { c.remoteInitialPsn = 1 << 24; }, "remoteInitialPsn");
    ExpectInvalid([](RoceV2Config& c) { c.mtu = 1000; }, "mtu");
    ExpectInvalid([](RoceV2Config& c) { c.mtu = 8192; }, "mtu");
    ExpectInvalid([](RoceV2Config& c) { c.windowPackets = 0; }, "windowPackets");
    ExpectInvalid([](RoceV2Config& c) { c.windowPackets = (1 << 22) + 1; }, "windowPackets");
    ExpectInvalid([](RoceV2Config& c) { c.ackEveryPackets = 0; }, "ackEveryPackets");
    ExpectInvalid([](RoceV2Config& c) { c.rtoNs = 0; }, "rtoNs");
    ExpectInvalid([](RoceV2Config& c) { c.retryLimit = 8; }, "retryLimit");
    ExpectInvalid([](RoceV2Config& c) { c.rnrRetryLimit = 8; }, "rnrRetryLimit");
    ExpectInvalid([](RoceV2Config& c) { c.minRnrTimerCode = 32; }, "minRnrTimerCode");
    ExpectInvalid([](RoceV2Config& c) { c.udpSrcPort = 0; }, "udpSrcPort");
    ExpectInvalid([](RoceV2Config& c) { c.lineRateBps = 0; }, "lineRateBps");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.g = 1; }, "dcqcn.g");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.initialAlpha = 1.5; }, "dcqcn.initialAlpha");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.rateTimerNs = 2e12; }, "dcqcn.rateTimerNs");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.alphaTimerNs = 2e12; }, "dcqcn.alphaTimerNs");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.rateDecreaseIntervalNs = 2e12; },
                  "dcqcn.rateDecreaseIntervalNs");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.byteCounterBytes = 2e15; },
                  "dcqcn.byteCounterBytes");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.additiveIncreaseBps = 2e15; },
                  "dcqcn.additiveIncreaseBps");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.hyperIncreaseBps = 2e15; },
                  "dcqcn.hyperIncreaseBps");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.cnpIntervalNs = 0; }, "dcqcn.cnpIntervalNs");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.variant = static_cast<DcqcnVariant>(7); },
                  "dcqcn.variant");
    ExpectInvalid([](RoceV2Config& c) { c.dcqcn.minRateBps = c.lineRateBps + 1; },
                  "dcqcn.minRateBps");
}

TEST(RoceV2Config, QueuePairRefusesAnInvalidConfig)
{
    MemoryRegistry memory;
    RoceV2Config config;
    config.mtu = 3000;
    EXPECT_THROW(RoceV2QueuePair(config, memory), std::invalid_argument);
}

} // namespace
} // namespace metaroce
