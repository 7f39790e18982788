// The tail-loss probe's wait and the repeat of the tail markers before it (doc/spec.md 4.5,
// A32, A41), on the probe alone: srtt + 4 rttvar while no loss is proven on the NIC, the time
// rule's wait alone once one is; the markers repeated once per tail at the time rule's wait
// when that comes first.
#include "tail-loss-probe.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

constexpr TimeNs kUs = 1000;

/// A connection with two RTT samples, 6 us then 2 us: srtt 5.5 us, rttvar 3.25 us, so
/// srtt + 4 rttvar = 18.5 us; its newest acknowledged packet took 2 us.
struct Fixture
{
    MetaRoceConfig config; // tailProbeMin 5 us, tail markers on
    TailLossProbe probe{config};
    RttEstimator rtt{8 * kUs};
    RackState rack;
    Flow flow{0, 0, 0, 8 * kUs};
    SentPacket tail;

    Fixture()
    {
        rtt.Sample(6 * kUs);
        rtt.Sample(2 * kUs);
        rack.valid = true;
        rack.txSeq = 3;
        rack.rtt = 2 * kUs;
        tail.sentAt = 20 * kUs;
        tail.txSeq = 4;
    }

    TimeNs DueAt(TimeNs window) const
    {
        return probe.DueAt(false, rack, window, rtt, Tail{&flow, &tail});
    }

    TimeNs RemarkAt(TimeNs window) const
    {
        return probe.RemarkAt(false, rack, window, rtt, Tail{&flow, &tail});
    }
};

TEST(TailLossProbe, WaitsForTheRttSpreadUntilALossIsProven)
{
    Fixture f;
    ASSERT_EQ(f.rtt.Rto(0, f.config.rtoMaxNs), 18500);
    EXPECT_EQ(f.DueAt(1 * kUs), 20 * kUs + 18500);
    f.probe.FollowLossEvidence(true);
    // The time rule's wait: max(rack.rtt + window, tailProbeMin).
    EXPECT_EQ(f.DueAt(1 * kUs), 20 * kUs + 5 * kUs);
    EXPECT_EQ(f.DueAt(7 * kUs), 20 * kUs + 9 * kUs);
    f.probe.FollowLossEvidence(false);
    EXPECT_EQ(f.DueAt(1 * kUs), 20 * kUs + 18500);
}

TEST(TailLossProbe, RepeatsTheMarkersOncePerTailBeforeTheProbe)
{
    Fixture f;
    EXPECT_EQ(f.RemarkAt(4 * kUs), 20 * kUs + 6 * kUs);
    // Not when the probe comes no later: with a loss proven it waits as long.
    f.probe.FollowLossEvidence(true);
    EXPECT_EQ(f.RemarkAt(4 * kUs), kNever);
    f.probe.FollowLossEvidence(false);
    // Once per tail: only a tail sent after the repeat (a retransmission) is marked again.
    f.probe.OnRemarked(5);
    EXPECT_EQ(f.RemarkAt(4 * kUs), kNever);
    f.tail.txSeq = 5;
    f.tail.sentAt = 40 * kUs;
    EXPECT_EQ(f.RemarkAt(4 * kUs), 40 * kUs + 6 * kUs);
    // None without tail markers, and none with data still to send (no probe then either).
    EXPECT_EQ(f.probe.RemarkAt(true, f.rack, 4 * kUs, f.rtt, Tail{&f.flow, &f.tail}), kNever);
    Fixture off;
    off.config.tailMarkers = false;
    EXPECT_EQ(off.RemarkAt(4 * kUs), kNever);
}

} // namespace
} // namespace metaroce
