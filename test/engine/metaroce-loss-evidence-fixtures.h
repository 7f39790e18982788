// Hand-driven set-ups of the time rule's tests that share a NIC's loss evidence (spec 4.6, A47,
// A49): two planes of one flow each, one round trip, a late packet, a proven loss.
#ifndef METAROCE_TEST_ENGINE_LOSS_EVIDENCE_FIXTURES_H
#define METAROCE_TEST_ENGINE_LOSS_EVIDENCE_FIXTURES_H

#include "metaroce-hand-driven.h"

#include <gtest/gtest.h>
#include <optional>

namespace metaroce
{

/// Two planes, one flow each; the floors of the defaults (one quarter with a recent proof,
/// three without); `memory` the LossMemory.
inline MetaRoceConfig
TwoPlanes(TimeNs memory = 1'000'000)
{
    MetaRoceConfig c;
    c.ports = 2;
    c.flowsPerPort = 1;
    c.initialFlowWindowPackets = 4; // a flow starts with room for four (the default of 8 flows)
    c.retransmitOtherPlane = false; // a retransmission may go on the plane of its loss
    c.mtu = 1024;
    c.ackEveryPackets = 1;
    c.ackDelayNs = 2'000;
    c.tailMarkers = false;
    c.lossMemoryNs = memory;
    return c;
}

/// Delivers `p` to `to` at `arrive` and `to`'s ACK back to `from` at `ackBack`.
inline void
RoundTrip(MetaRoceConnection& from,
          MetaRoceConnection& to,
          const OutPacket& p,
          TimeNs arrive,
          TimeNs ackBack)
{
    ASSERT_TRUE(DeliverPacket(to, p, arrive).accepted);
    auto ack = to.PullPacket(p.port, arrive);
    ASSERT_TRUE(ack.has_value());
    ASSERT_TRUE(DeliverPacket(from, *ack, ackBack).accepted);
}

/// From `start` on, A sends two packets, the second (plane 1) back 4 us after it left; returns
/// when the time rule declares the first (plane 0) lost, and that packet in `late`.
inline TimeNs
TimeRuleDeadline(HandDrivenPair& m, TimeNs start, std::optional<OutPacket>* late = nullptr)
{
    m.a->PostSend(WorkRequest{start + 1, Opcode::Write, 0, 2048}, start);
    auto first = m.a->PullPacket(0, start + 1'000);
    auto delivered = m.a->PullPacket(1, start + 1'100);
    EXPECT_TRUE(first && delivered);
    RoundTrip(*m.a, *m.b, *delivered, start + 3'000, start + 5'100);
    if (late)
    {
        *late = first;
    }
    return m.a->NextTimeout();
}

/// A proves a loss by rule 1 at `at` (at least 4 us): of two packets on plane 0, the second's
/// ACK shows the first missing.
inline void
ProveLoss(HandDrivenPair& m, TimeNs at)
{
    m.a->PostSend(WorkRequest{at + 1, Opcode::Write, 0, 2048}, at - 4'000);
    auto lost = m.a->PullPacket(0, at - 4'000);
    auto next = m.a->PullPacket(0, at - 3'900);
    ASSERT_TRUE(lost && next);
    const uint64_t before = m.a->GetCounters().fastRetransmits;
    RoundTrip(*m.a, *m.b, *next, at - 2'000, at);
    ASSERT_EQ(m.a->GetCounters().fastRetransmits, before + 1) << "rule 1 at once";
}

} // namespace metaroce

#endif // METAROCE_TEST_ENGINE_LOSS_EVIDENCE_FIXTURES_H
