// The retry limit (spec 7.4, A19): a packet sent more than maxRetransmissions times fails its
// connection only once its message has been losing packets for rtoMaxNs. A packet that meets a
// full port again and again for a while lands in the end; one that can never land still fails.
#include "loopback-harness.h"
#include "metaroce-connection.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <memory>

namespace metaroce
{
namespace
{

constexpr uint64_t kBytes = 64 * 1024;
constexpr TimeNs kRtoMax = 2'000'000;

MetaRoceConfig
Limited()
{
    MetaRoceConfig c;
    c.maxRetransmissions = 3;
    c.rtoMaxNs = kRtoMax;
    return c;
}

/// True for the message's last DATA packet (its tail), any copy of it.
bool
IsTail(const OutPacket& p)
{
    const auto parsed = MrParse(p.header.data(), p.header.size(), p.WireSize());
    return parsed.header && parsed.header->payloadLength > 0 &&
           parsed.header->offset + parsed.header->payloadLength == parsed.header->messageLength;
}

/// One WRITE of kBytes from a to b whose tail every transmission drops before `until`.
struct TailDroppedUntil
{
    explicit TailDroppedUntil(TimeNs until)
    {
        MetaRoceConfig c = Limited();
        c.localConnection = 7;
        c.remoteConnection = 9;
        a = std::make_unique<MetaRoceConnection>(c);
        std::swap(c.localConnection, c.remoteConnection);
        b = std::make_unique<MetaRoceConnection>(c);
        harness = std::make_unique<LoopbackHarness>(*a, *b, ChannelConfig{});
        harness->DropIf(0, [until](const OutPacket& p, TimeNs now) {
            return now < until && IsTail(p);
        });
        harness->OnTransmit([this](int side, const OutPacket& p, bool) {
            if (side == 0 && IsTail(p) && tailSent++ == 0)
            {
                firstTailAt = harness->Now();
            }
        });
        a->PostSend(WorkRequest{1, Opcode::Write, 0, kBytes}, 0);
        harness->Run([this] { return !harness->Completions(0).empty(); }, 100 * kRtoMax);
    }

    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
    std::unique_ptr<LoopbackHarness> harness;
    uint64_t tailSent{0};
    TimeNs firstTailAt{0};
};

TEST(MetaRoceRetryLimit, ATailLostAgainAndAgainForAWhileLandsInTheEnd)
{
    // Dropped for half of rtoMaxNs: more transmissions than the limit, yet no failure.
    TailDroppedUntil run(kRtoMax / 2);
    ASSERT_EQ(run.harness->Completions(0).size(), 1u);
    EXPECT_EQ(run.harness->Completions(0)[0].status, CompletionStatus::Success);
    EXPECT_GT(run.tailSent, uint64_t{Limited().maxRetransmissions} + 1)
        << "the count alone would have failed the connection";
    EXPECT_GE(run.harness->Now(), kRtoMax / 2);
}

TEST(MetaRoceRetryLimit, ATailThatNeverLandsFailsTheConnectionAfterRtoMax)
{
    TailDroppedUntil run(kNever);
    ASSERT_EQ(run.harness->Completions(0).size(), 1u);
    EXPECT_EQ(run.harness->Completions(0)[0].status, CompletionStatus::RetryExceeded);
    EXPECT_GE(run.harness->Now(), run.firstTailAt + kRtoMax) << "not before rtoMaxNs of losses";
    EXPECT_LT(run.harness->Now(), run.firstTailAt + 4 * kRtoMax) << "but soon after";
}

} // namespace
} // namespace metaroce
