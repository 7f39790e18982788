// A connection end makes its requester and its responder when something first needs them
// (metaroce-connection.h). A run in which nothing asked for them early gives exactly what the
// same run gives with both halves made up front, packet loss, reordering and a plane failure
// included. (Flows made on first use are checked against their initial state in
// flow-table-test.cc, and end to end by the golden runs.)
#include "loopback-harness.h"
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"

#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace metaroce
{
namespace
{

struct Outcome
{
    std::vector<Completion> sent;
    std::vector<Completion> received;
    Counters a;
    Counters b;
    TimeNs end{0};
};

bool
SameCompletions(const std::vector<Completion>& x, const std::vector<Completion>& y)
{
    return x.size() == y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](const Completion& p, const Completion& q) {
               return p.wrId == q.wrId && p.op == q.op && p.stream == q.stream &&
                      p.status == q.status && p.bytes == q.bytes && p.time == q.time;
           });
}

/// Eight 256 kB WRITEs from a to b over two planes of four flows each, on a channel that
/// drops, duplicates and reorders; `planeFailure` takes plane 1 down for a while.
Outcome
Run(bool madeUpFront, bool planeFailure)
{
    MetaRoceConfig config;
    config.ports = 2;
    config.flowsPerPort = 4;
    config.seed = 11;
    auto [pa, pb] = ConnectedEnds(config);
    MetaRoceConnection& a = *pa;
    MetaRoceConnection& b = *pb;
    if (madeUpFront)
    {
        for (const MetaRoceConnection* c : {&a, &b})
        {
            c->Requester();
            c->Responder();
        }
    }
    ChannelConfig channel;
    channel.ports = 2;
    channel.lossRate = 0.02;
    channel.duplicateRate = 0.01;
    channel.reorderRate = 0.05;
    channel.seed = 5;
    LoopbackHarness h(a, b, channel);
    if (planeFailure)
    {
        h.SchedulePlaneFailure(1, 30'000, 200'000);
    }
    for (uint64_t i = 0; i < 8; ++i)
    {
        a.PostSend(WorkRequest{i + 1, Opcode::Write, 0, 256 << 10, 0, 0, i << 20, 0}, 0);
    }
    EXPECT_TRUE(h.RunUntilIdle(1'000'000'000));
    Outcome o;
    o.sent = h.Completions(0);
    o.received = h.Completions(1);
    o.a = a.GetCounters();
    o.b = b.GetCounters();
    o.end = h.Now();
    return o;
}

void
ExpectSame(bool planeFailure)
{
    const Outcome lazy = Run(false, planeFailure);
    const Outcome eager = Run(true, planeFailure);
    ASSERT_EQ(lazy.sent.size(), 8u);
    EXPECT_GT(lazy.a.retransmittedPackets, 0u) << "the channel should have cost packets";
    EXPECT_TRUE(SameCompletions(lazy.sent, eager.sent));
    EXPECT_TRUE(SameCompletions(lazy.received, eager.received));
    // Counters is only uint64_t fields (engine-counters.h asserts it).
    EXPECT_EQ(std::memcmp(&lazy.a, &eager.a, sizeof(Counters)), 0) << "sender's counters";
    EXPECT_EQ(std::memcmp(&lazy.b, &eager.b, sizeof(Counters)), 0) << "receiver's counters";
    EXPECT_EQ(lazy.end, eager.end);
}

TEST(FirstUse, HalvesMadeWhenNeededChangeNothing)
{
    ExpectSame(false);
}

TEST(FirstUse, APlaneFailureMakesTheRequesterAndChangesNothing)
{
    ExpectSame(true);
}

} // namespace
} // namespace metaroce
