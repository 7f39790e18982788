// Corruption on the loopback channel (spec 4.1): a frame with a flipped bit is detected by
// the receiving port's integrity check and dropped, counted, never handed to an engine; the
// transport recovers it as a loss. And the campaign's first seeds, as regression tests.
#include "loopback-harness.h"
#include "loopback-scenario.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

TEST(LoopbackCorruption, Crc32MatchesTheIeeeCheckValue)
{
    const uint8_t text[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    EXPECT_EQ(Crc32(text, sizeof text), 0xCBF43926u); // the standard check value of CRC-32
}

ScenarioConfig
Corrupting(Transport t, double rate)
{
    ScenarioConfig c;
    c.transport = t;
    c.messages = 40;
    c.maxMessageBytes = 20'000;
    c.metaroce.ports = t == Transport::MetaRoce ? 2 : 1;
    c.metaroce.streams = t == Transport::MetaRoce ? 4 : 1;
    c.channel.ports = c.metaroce.ports;
    c.channel.corruptRate = rate;
    c.seed = 7;
    return c;
}

TEST(LoopbackCorruption, CorruptedFramesAreDroppedNeverPlaced)
{
    for (const Transport t : {Transport::MetaRoce, Transport::RoceV2})
    {
        const ScenarioResult r = RunScenario(Corrupting(t, 0.05));
        ASSERT_TRUE(r.Ok()) << TransportName(t) << ": " << r.error;
        EXPECT_GT(r.channel.corrupted, 0u) << TransportName(t);
        // Only intact frames reach the engines: what they received is what was delivered.
        EXPECT_EQ(r.sender.rxPackets + r.receiver.rxPackets, r.channel.delivered);
        EXPECT_EQ(r.channel.sent + r.channel.duplicated,
                  r.channel.delivered + r.channel.dropped + r.channel.lostOnDownPlane +
                      r.channel.corrupted + r.framesInFlight);
        EXPECT_GT(r.sender.retransmittedPackets, 0u) << "a corrupted frame is a lost frame";
    }
}

TEST(LoopbackCorruption, NoCorruptionKeepsTheRandomSequence)
{
    // corruptRate 0 draws nothing extra: results equal those of a channel without the field.
    const ScenarioResult a = RunScenario(Corrupting(Transport::MetaRoce, 0));
    ScenarioConfig lossy = Corrupting(Transport::MetaRoce, 0);
    lossy.channel.lossRate = 0.01;
    const ScenarioResult b = RunScenario(lossy);
    ASSERT_TRUE(a.Ok() && b.Ok());
    EXPECT_EQ(a.channel.corrupted, 0u);
    EXPECT_EQ(b.channel.corrupted, 0u);
}

} // namespace
} // namespace metaroce
