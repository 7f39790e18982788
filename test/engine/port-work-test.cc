// TransportEngine::WorkOnPorts (transport-engine.h): a MetaRoCE connection's answer for all
// ports at once must be, bit for bit, what HasWork, HasControlWork and HasRecoveryWork answer
// port by port, in every state a run reaches. The NIC keeps its port scheduler's marks from it
// alone (metaroce-port-scheduler.h), so a wrong bit would hold a packet back or pull for nothing.
#include "loopback-harness.h"
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <utility>

namespace metaroce
{
namespace
{

/// How often each kind of work was seen, to show that the run reached those states.
struct Seen
{
    uint64_t checks{0};
    uint64_t any{0};
    uint64_t control{0};
    uint64_t recovery{0};
    uint64_t mismatches{0};
};

/// Compares one end's WorkOnPorts(`ports`) with its per-port answers.
void
Check(const TransportEngine& e, uint16_t ports, Seen& seen)
{
    const PortWork work = e.WorkOnPorts(ports);
    // The base class's WorkOnPorts is the definition: it asks port by port.
    const PortWork byPort = e.TransportEngine::WorkOnPorts(ports);
    for (uint16_t port = 64; port < ports; ++port)
    {
        EXPECT_FALSE(e.HasWork(port) || e.HasControlWork(port) || e.HasRecoveryWork(port));
    }
    ++seen.checks;
    seen.any += work.any != 0;
    seen.control += work.control != 0;
    seen.recovery += work.recovery != 0;
    if (work.any != byPort.any || work.control != byPort.control ||
        work.recovery != byPort.recovery)
    {
        ++seen.mismatches;
        ADD_FAILURE() << "ports " << ports << ": any " << work.any << " against " << byPort.any
                      << ", control " << work.control << " against " << byPort.control
                      << ", recovery " << work.recovery << " against " << byPort.recovery;
    }
}

/// Twelve 128 kB WRITEs each way over three planes of four paths, on a channel that drops,
/// duplicates and reorders, with plane 1 down from 20 us to `upAt` (its paths Down, probing);
/// both ends checked before every event, asked for fewer, as many and more ports than they
/// have.
Seen
RunAndCheck(double lossRate, TimeNs upAt)
{
    MetaRoceConfig config;
    config.ports = 3;
    config.flowsPerPort = 4;
    config.seed = 3;
    auto [a, b] = ConnectedEnds(config);
    ChannelConfig channel;
    channel.ports = 3;
    channel.lossRate = lossRate;
    channel.duplicateRate = 0.01;
    channel.reorderRate = 0.05;
    channel.seed = 9;
    LoopbackHarness h(*a, *b, channel);
    h.SchedulePlaneFailure(1, 20'000, upAt);
    for (uint64_t i = 0; i < 12; ++i)
    {
        a->PostSend(WorkRequest{i + 1, Opcode::Write, 0, 128 << 10, 0, 0, i << 20, 0}, 0);
        b->PostSend(WorkRequest{i + 1, Opcode::Write, 0, 128 << 10, 0, 0, i << 20, 0}, 0);
    }
    Seen seen;
    const bool idle = h.Run(
        [&] {
            for (const MetaRoceConnection* end : {a.get(), b.get()})
            {
                for (uint16_t ports : {uint16_t{2}, uint16_t{3}, uint16_t{70}})
                {
                    Check(*end, ports, seen);
                }
            }
            return seen.mismatches > 0 || (a->Idle() && b->Idle());
        },
        2'000'000'000);
    EXPECT_TRUE(idle);
    EXPECT_GT(a->GetCounters().retransmittedPackets, 0u) << "the channel should have cost packets";
    return seen;
}

TEST(PortWork, AllPortsAtOnceAgreeWithEachPortAsked)
{
    for (const auto& [loss, upAt] : {std::pair{0.0, TimeNs{300'000}}, std::pair{0.03, kNever}})
    {
        const Seen seen = RunAndCheck(loss, upAt);
        EXPECT_EQ(seen.mismatches, 0u) << "loss " << loss;
        EXPECT_GT(seen.any, 100u);
        EXPECT_GT(seen.control, 100u);
        EXPECT_GT(seen.recovery, 0u);
        EXPECT_LT(seen.any, seen.checks) << "some states have no work at all";
    }
}

TEST(PortWork, ADownFlowsProbeWithNothingQueuedIsWork)
{
    // One path per plane; everything sent on plane 0 is lost until its path is Down, and the
    // data then goes over plane 1. With nothing left to send, the Down path's probe is the
    // only work on plane 0 (spec 6.4).
    MetaRoceConfig config;
    config.ports = 2;
    config.flowsPerPort = 1;
    config.mtu = 1024;
    config.maxTailProbes = 0;
    config.tailMarkers = false;
    // Retransmissions on plane 0 too, so that its path times out until it is Down (A54 moves a
    // packet lost twice to plane 1, which can finish the data before that).
    config.retransmitOtherPlane = false;
    auto [a, b] = ConnectedEnds(config);
    for (uint64_t i = 0; i < 64; ++i)
    {
        a->PostSend(WorkRequest{i + 1, Opcode::Write, 0, 1024, 0, 0, i << 10, 0}, 0);
    }
    Seen seen;
    TimeNs now = 0;
    bool probeOnly = false;
    for (int step = 0; step < 40 && seen.mismatches == 0; ++step)
    {
        Check(*a, 2, seen);
        probeOnly = probeOnly || (a->Idle() && a->HasWork(0));
        PullAllPackets(*a, 0, now); // lost
        for (const OutPacket& data : PullAllPackets(*a, 1, now))
        {
            DeliverPacket(*b, data, now + 1'000);
        }
        for (const OutPacket& ack : PullAllPackets(*b, 1, now + 1'000))
        {
            DeliverPacket(*a, ack, now + 2'000);
        }
        Check(*a, 2, seen);
        // Nothing due is no reason for the clock to stand still: other events move it.
        now = a->NextTimeout() == kNever ? now + 100'000 : std::max(now + 2'000, a->NextTimeout());
        a->OnTimeout(now);
    }
    EXPECT_EQ(seen.mismatches, 0u);
    EXPECT_TRUE(probeOnly) << "the run should reach a Down path's probe with nothing queued";
}

} // namespace
} // namespace metaroce
