/*
 * The requester's deadlines (spec 1.3, 4.6, 4.5): the per-flow trees that NextTimeout() and
 * OnTimeout() read instead of scanning every flow, kept up to date by Refresh(); the
 * retransmission timeout and its deferral while better evidence is coming; and the time
 * rule's window and deadlines.
 * NextTimeoutByScan() in metaroce-requester.cc is the definition they must agree with.
 */
#include "metaroce-requester.h"

#include <algorithm>

namespace metaroce
{

// The per-flow deadline trees (spec 1.3)

void
MetaRoceRequester::Refresh(Flow& flow)
{
    const SentPacket* oldestData = flow.OldestDataInFlight();
    const TimeNs firstData = oldestData == nullptr ? kNever : oldestData->sentAt;
    const uint64_t firstDataTxSeq = oldestData == nullptr ? 0 : oldestData->txSeq;
    const bool down = flow.health == FlowHealth::Down;
    if (!m_rtoNotBefore.empty() && oldestData == nullptr)
    {
        m_rtoNotBefore[flow.id] = 0;
    }
    // The RTO times data only: a tail marker (4.5) left in flight alone is no reason to time out.
    m_rtoAt.Set(flow.id, RtoDeadline(flow, oldestData));
    m_firstDataOrder.Set(flow.id, firstData == kNever ? kNever : firstDataTxSeq);
    flow.firstDataAt = firstData;
    if (flow.countedDown != down)
    {
        flow.countedDown = down;
        m_downFlows = down ? m_downFlows + 1 : m_downFlows - 1;
    }
}

TimeNs
MetaRoceRequester::EarliestLossCheck(TimeNs ruleWindow) const
{
    // Packets leave in transmission order, so no deadline of the time rule comes before the
    // oldest in-flight DATA packet's send time plus the RACK round trip and the window, and none
    // exists before a packet sent after it was acknowledged (LossDeadline). Packets sent in the
    // same nanosecond tie; the first sent of them decides, and it is the first in transmission
    // order.
    const uint64_t firstTxSeq = m_firstDataOrder.Min();
    if (firstTxSeq == kNever)
    {
        return kNever;
    }
    const std::size_t oldestFlow = m_firstDataOrder.MinSlot();
    const TimeNs oldestFlowRtt = TimeRuleFlowRtt(m_flows[oldestFlow]);
    const TimeNs oldestDeadline =
        m_rack.Deadline(FirstDataAt(oldestFlow), firstTxSeq, ruleWindow, oldestFlowRtt);
    // When the oldest packet's flow runs no slower than the RACK packet, that bound is its
    // deadline, the earliest. Otherwise (A44) a younger packet on a faster flow may be due
    // first: each flow whose oldest DATA was sent before the RACK packet has a deadline.
    if (oldestDeadline == kNever || oldestFlowRtt <= m_rack.rtt)
    {
        return oldestDeadline;
    }
    TimeNs earliest = kNever;
    m_firstDataOrder.ForEachAtMost(m_rack.txSeq - 1, [&](std::size_t id) {
        earliest = std::min(earliest, RackLossDeadline(id, ruleWindow));
    });
    return earliest;
}

const std::vector<uint16_t>&
MetaRoceRequester::FlowsDueBy(TimeNs now, TimeNs ruleWindow)
{
    std::vector<uint16_t>& due = m_dueFlows;
    due.clear();
    auto add = [&](std::size_t id) { due.push_back(static_cast<uint16_t>(id)); };
    m_rtoAt.ForEachAtMost(now, add);
    if (m_rack.valid && now >= m_rack.rtt + ruleWindow && m_rack.txSeq > 0)
    {
        m_firstDataOrder.ForEachAtMost(m_rack.txSeq - 1, [&](std::size_t id) {
            if (RackLossDeadline(id, ruleWindow) <= now)
            {
                add(id);
            }
        });
    }
    std::sort(due.begin(), due.end());
    due.erase(std::unique(due.begin(), due.end()), due.end());
    return due;
}

// The retransmission timeout (spec 4.5)

TimeNs
MetaRoceRequester::RtoDeadline(const Flow& flow, const SentPacket* oldest) const
{
    if (flow.health == FlowHealth::Down || oldest == nullptr)
    {
        return kNever;
    }
    const TimeNs notBefore = m_rtoNotBefore.empty() ? 0 : m_rtoNotBefore[flow.id];
    return std::max(oldest->sentAt + m_recovery.Rto(flow), notBefore);
}

bool
MetaRoceRequester::DeferRto(const Flow& flow,
                            const SentPacket& oldest,
                            TimeNs now,
                            TimeNs ruleWindow)
{
    // The RTO is the last resort (spec 4.5): it stands back while better evidence is coming.
    // A packet sent after the oldest one has been acknowledged: the time rule judges it, at
    // its own deadline (later than now, or it would have just declared it lost). Nothing sent
    // after it has come back, but the connection keeps acknowledging what was sent before:
    // it waits in a queue; the timer restarts from that progress (RFC 6298 5.3). Else the
    // connection's RTO, from every flow's samples (or the NIC's, from every connection's, where
    // JudgingRtt() says so), has not passed since the packet left: the flow's own sparse samples
    // lag a queue that grows (A50, A57).
    const TimeNs rto = m_recovery.Rto(flow);
    TimeNs until = kNever;
    if (m_rack.SentAfter(oldest))
    {
        until = LossCheckAt(flow, ruleWindow);
    }
    else if (m_lastProgressAt > RtoDeadline(flow, &oldest) - rto) // progress since it started
    {
        until = m_lastProgressAt + rto;
    }
    if ((until == kNever || until <= now) && JudgingRtt().HasSample())
    {
        const TimeNs floor = JudgingRtt().Rto(m_config.rtoMinNs, m_config.rtoMaxNs);
        until = oldest.sentAt + m_recovery.Rto(flow, floor);
    }
    if (until == kNever || until <= now)
    {
        return false;
    }
    if (m_rtoNotBefore.empty())
    {
        m_rtoNotBefore.assign(m_flows.Count(), 0);
    }
    m_rtoNotBefore[flow.id] = until;
    ++m_counters.rtoDeferrals;
    return true;
}

// The time rule's windows (spec 4.6)

TimeNs
MetaRoceRequester::ReorderWindowNs() const
{
    // The floor is this connection's own: its peer's distance, not the NIC's nearest peer's.
    // The cap is the longer smoothed RTT: the NIC's longer RTO may come from a wider spread
    // around a shorter mean, its nearer peers' round trips among them (A57).
    return m_reorder.Window(m_connectionRtt.Minimum(),
                            std::max(m_connectionRtt.Smoothed(), JudgingRtt().Smoothed()));
}

const RttEstimator&
MetaRoceRequester::JudgingRtt() const
{
    // A connection that hears from its peer once in hundreds of microseconds has a stale
    // estimate; its NIC's, from every connection's ACKs, follows the queues (A57). With
    // judgeByNicRtt, while no connection of the NIC proved a loss lately (a late packet is
    // more likely queued than lost, A47), the longer of the two judges, so a connection with
    // deeper queues of its own keeps its estimate. Where the fabric drops packets, the
    // connection's own, shorter estimate finds losses sooner. Before its own first sample a
    // connection keeps its initial estimate: its first window may sit in an incast queue that
    // no other connection's samples show (4.5).
    const TimeNs horizon = m_config.rtoMaxNs;
    return m_connectionRtt.HasSample() && m_nicRtt.HasSample() &&
                   m_nicRtt.Rto(0, horizon) > m_connectionRtt.Rto(0, horizon)
               ? m_nicRtt
               : m_connectionRtt;
}

void
MetaRoceRequester::FollowLossEvidence(TimeNs now)
{
    // A recent proof anywhere on the NIC says the fabric drops packets: judge late packets with
    // the narrow floor; otherwise a late packet is more likely queued than lost (4.6, A47).
    const bool lossRecent = m_evidence->Recent(now, m_config.lossMemoryNs);
    // Read at the connection's own events, as the floors are: its deadlines stay exact (A57).
    // Without judgeByNicRtt, or after a recent proof, it holds no sample and never judges.
    m_nicRtt = m_config.judgeByNicRtt && !lossRecent ? m_evidence->Rtt() : RttEstimator(0);
    m_tailProbe.FollowLossEvidence(lossRecent);
    const uint32_t quarters =
        lossRecent ? m_config.reorderFloorRttQuarters : m_config.quietReorderFloorRttQuarters;
    // A spurious loss and no proof: some routes queue deeper than the measured window (A49).
    const uint32_t halves = m_evidence->OnlySpuriousRecent(now, m_config.lossMemoryNs)
                                ? m_config.spuriousWindowSrttHalves
                                : 0;
    if (quarters == m_reorder.FloorRttQuarters() && halves == m_reorder.SrttHalvesAtLeast())
    {
        return;
    }
    m_reorder.SetFloorRttQuarters(quarters);
    m_reorder.SetSrttHalvesAtLeast(halves);
}

TimeRule
MetaRoceRequester::TimeRuleFor(const Flow& flow, TimeNs ruleWindow) const
{
    return TimeRule{m_rack, ruleWindow, TimeRuleFlowRtt(flow)};
}

TimeNs
MetaRoceRequester::RackLossDeadline(std::size_t flowId, TimeNs ruleWindow) const
{
    return m_rack.Deadline(FirstDataAt(flowId),
                           m_firstDataOrder.Get(flowId),
                           ruleWindow,
                           TimeRuleFlowRtt(m_flows[flowId]));
}

TimeNs
MetaRoceRequester::LossCheckAt(const Flow& flow, TimeNs ruleWindow) const
{
    // Packets of a flow are sent in FSN order, so its oldest in-flight data packet has the
    // earliest deadline of the time rule (spec 4.6).
    for (const SentPacket& p : flow.outstanding)
    {
        if (p.state == SentPacket::State::InFlight && p.message != kProbeMessage)
        {
            return TimeRuleFor(flow, ruleWindow).Deadline(p);
        }
    }
    return kNever;
}

} // namespace metaroce
