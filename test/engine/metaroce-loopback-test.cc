// Loopback properties of the MetaRoCE engine (spec 10): every message completes exactly once,
// byte-exact, in stream order, under loss, reordering, duplication and plane failure.
#include "loopback-harness.h"
#include "metaroce-connection.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>

namespace metaroce
{
namespace
{

/// Two connected MetaRoCE ends with real, registered buffers on both sides.
struct Pair
{
    explicit Pair(MetaRoceConfig base, std::size_t bytes = 1 << 20)
        : src(bytes),
          dst(bytes)
    {
        std::iota(src.begin(), src.end(), uint8_t{7});
        memA.Register({1, 0x1000, src.size(), src.data()});
        memB.Register({2, 0x9000, dst.size(), dst.data()});
        MetaRoceConfig ca = base;
        ca.localConnection = 10;
        ca.remoteConnection = 20;
        MetaRoceConfig cb = base;
        cb.localConnection = 20;
        cb.remoteConnection = 10;
        cb.seed = base.seed + 1;
        a = std::make_unique<MetaRoceConnection>(ca, &memA);
        b = std::make_unique<MetaRoceConnection>(cb, &memB);
    }

    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    MemoryRegistry memA;
    MemoryRegistry memB;
    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

MetaRoceConfig
TwoPlanes()
{
    MetaRoceConfig c;
    c.ports = 2;
    c.pathsPerPort = 4;
    c.streams = 4;
    return c;
}

TEST(MetaRoceLoopback, WriteIsPlacedByteExact)
{
    Pair p(TwoPlanes());
    ChannelConfig ch;
    ch.ports = 2;
    LoopbackHarness h(*p.a, *p.b, ch);
    WorkRequest wr{1, Opcode::Write, 0, 300'000, 0x1000, 1, 0x9000, 2};
    p.a->PostSend(wr, 0);
    ASSERT_TRUE(h.RunUntilIdle(1'000'000'000));
    ASSERT_EQ(h.Completions(0).size(), 1u);
    EXPECT_EQ(h.Completions(0)[0].status, CompletionStatus::Success);
    EXPECT_TRUE(std::equal(p.src.begin(), p.src.begin() + 300'000, p.dst.begin()));
    EXPECT_EQ(p.a->GetCounters().retransmittedPackets, 0u);
}

} // namespace
} // namespace metaroce
