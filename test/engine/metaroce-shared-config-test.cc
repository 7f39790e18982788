// Connections that refer to one shared configuration under their own identity (a NIC's
// connections, engine/metaroce/metaroce-connection.h) behave as connections with copies.
#include "loopback-harness.h"
#include "metaroce-connection.h"

#include <gtest/gtest.h>
#include <memory>
#include <stdexcept>

namespace metaroce
{
namespace
{

MetaRoceConfig
TwoPlanes()
{
    MetaRoceConfig c;
    c.ports = 2;
    c.flowsPerPort = 4;
    c.seed = 5;
    return c;
}

/// What a lossy 1 MiB WRITE from `a` to `b` gave.
struct Outcome
{
    TimeNs finishedAt;
    uint64_t txDataPackets;
    uint64_t retransmitted;
    uint64_t delivered;
    std::size_t completions;
};

Outcome
Transfer(MetaRoceConnection& a, MetaRoceConnection& b)
{
    ChannelConfig ch;
    ch.ports = 2;
    ch.lossRate = 0.02;
    ch.seed = 3;
    LoopbackHarness h(a, b, ch);
    a.PostSend(WorkRequest{1, Opcode::Write, 0, 1 << 20, 0, 0, 0x9000, 0}, 0);
    EXPECT_TRUE(h.RunUntilIdle(1'000'000'000));
    return Outcome{h.Now(),
                   a.GetCounters().txDataPackets,
                   a.GetCounters().retransmittedPackets,
                   h.Stats().delivered,
                   h.Completions(0).size()};
}

TEST(MetaRoceSharedConfig, BehavesAsConnectionsWithCopies)
{
    MetaRoceConfig ca = TwoPlanes();
    ca.localConnection = 10;
    ca.remoteConnection = 20;
    MetaRoceConfig cb = TwoPlanes();
    cb.localConnection = 20;
    cb.remoteConnection = 10;
    cb.seed = 6;
    MetaRoceConnection copyA(ca);
    MetaRoceConnection copyB(cb);
    const Outcome copies = Transfer(copyA, copyB);

    // The shared configuration's own identity (1, 1, seed 5) is never read: packets addressed
    // by it would be refused, and the entropies drawn from it would differ.
    auto shared = std::make_shared<const MetaRoceConfig>(TwoPlanes());
    MetaRoceConnection sharedA(shared, ConnectionIds{10, 20, 5});
    MetaRoceConnection sharedB(shared, ConnectionIds{20, 10, 6});
    EXPECT_EQ(&sharedA.Config(), &sharedB.Config());
    EXPECT_EQ(sharedB.Ids().remote, 10u);
    const Outcome sharing = Transfer(sharedA, sharedB);

    EXPECT_GT(copies.retransmitted, 0u) << "the channel should lose some packets";
    EXPECT_EQ(sharing.completions, 1u);
    EXPECT_EQ(sharing.finishedAt, copies.finishedAt);
    EXPECT_EQ(sharing.txDataPackets, copies.txDataPackets);
    EXPECT_EQ(sharing.retransmitted, copies.retransmitted);
    EXPECT_EQ(sharing.delivered, copies.delivered);
}

TEST(MetaRoceSharedConfig, RefusesNoConfigurationOrABadOne)
{
    EXPECT_THROW(MetaRoceConnection(nullptr, ConnectionIds{}), std::invalid_argument);
    MetaRoceConfig bad = TwoPlanes();
    bad.mtu = 0;
    EXPECT_THROW(MetaRoceConnection(std::make_shared<const MetaRoceConfig>(bad), ConnectionIds{}),
                 std::invalid_argument);
}

TEST(MetaRoceSharedConfig, TunablesAndShapeDecideWhetherConfigurationsMayBeShared)
{
    const MetaRoceConfig base = TwoPlanes();
    MetaRoceConfig other = base;
    other.localConnection = 99;
    other.remoteConnection = 98;
    other.seed = 97;
    EXPECT_TRUE(SameTunablesAndShape(base, other)) << "identity is not shared";
    other.rtoMinNs += 1;
    EXPECT_FALSE(SameTunablesAndShape(base, other)) << "a tunable";
    other = base;
    other.ports = 4;
    EXPECT_FALSE(SameTunablesAndShape(base, other)) << "the NIC's shape";
    other = base;
    other.portRateBps /= 2;
    EXPECT_FALSE(SameTunablesAndShape(base, other)) << "the NIC's line rate";
}

} // namespace
} // namespace metaroce
