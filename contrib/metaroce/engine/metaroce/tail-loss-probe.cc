#include "tail-loss-probe.h"

#include <algorithm>

namespace metaroce
{

std::optional<Tail>
FindTail(const FlowTable& flows, const SendQueue& queue, const RackState& rack)
{
    std::optional<Tail> tail;
    for (const Flow& flow : flows.Made())
    {
        if (flow.health == FlowHealth::Down)
        {
            continue;
        }
        // A flow sends in txSeq order: its first packet that qualifies is its oldest, and once
        // a packet is no older than the tail found so far, none after it on the flow can be
        // (which spares the message look-up of Needs for most flows).
        for (const SentPacket& p : flow.outstanding)
        {
            if (tail && p.txSeq >= tail->packet->txSeq)
            {
                break;
            }
            if (p.state != SentPacket::State::InFlight || p.message == kProbeMessage ||
                rack.SentAfter(p) || !queue.Needs(p.message, p.packetIndex))
            {
                continue;
            }
            tail = Tail{&flow, &p};
            break;
        }
    }
    return tail;
}

TailLossProbe::TailLossProbe(const MetaRoceConfig& config)
    : m_config(config)
{
}

void
TailLossProbe::OnProgress()
{
    m_probes = 0;
    m_state = State::Waiting;
}

void
TailLossProbe::OnProbeSent(TimeNs now)
{
    m_lastProbeAt = now;
}

TimeNs
TailLossProbe::DueAt(bool dataQueued,
                     const RackState& rack,
                     TimeNs reorderWindow,
                     const RttEstimator& connectionRtt,
                     const std::optional<Tail>& tail) const
{
    // Only a true tail is probed: while the connection has data waiting, later packets will
    // follow as soon as a window opens, and the time rule finds a hole by them (spec 4.5).
    // Before any RTT sample the first window may still sit in an incast queue: no probing yet.
    if (!CanArm() || dataQueued || !connectionRtt.HasSample() || !rack.valid || !tail)
    {
        return kNever;
    }
    // The time rule's wait (rule 2 of 4.6), but at least srtt + 4 rttvar while no loss was
    // proven lately: without a later packet acknowledged, nothing says the tail is not simply
    // behind a deeper queue (the 64-host all-to-all's first windows are, by up to three round
    // trips). On a fabric that drops, a late tail is more likely lost than queued.
    const TimeNs spread = m_lossRecent ? 0 : connectionRtt.Rto(0, m_config.rtoMaxNs);
    const TimeNs wait = std::max({rack.rtt + reorderWindow, spread, m_config.tailProbeMinNs});
    const TimeNs due = tail->packet->sentAt + wait;
    if (m_probes == 0)
    {
        return due;
    }
    const uint32_t backoff = std::min<uint32_t>(m_probes - 1, 8);
    return std::max(due, m_lastProbeAt + std::min(wait << backoff, m_config.rtoMaxNs));
}

TimeNs
TailLossProbe::RemarkAt(bool dataQueued,
                        const RackState& rack,
                        TimeNs reorderWindow,
                        const RttEstimator& connectionRtt,
                        const std::optional<Tail>& tail) const
{
    return RemarkBefore(DueAt(dataQueued, rack, reorderWindow, connectionRtt, tail),
                        rack,
                        reorderWindow,
                        tail);
}

TimeNs
TailLossProbe::WakeAt(bool dataQueued,
                      const RackState& rack,
                      TimeNs reorderWindow,
                      const RttEstimator& connectionRtt,
                      const std::optional<Tail>& tail) const
{
    const TimeNs probeAt = DueAt(dataQueued, rack, reorderWindow, connectionRtt, tail);
    return std::min(probeAt, RemarkBefore(probeAt, rack, reorderWindow, tail));
}

TimeNs
TailLossProbe::RemarkBefore(TimeNs probeAt,
                            const RackState& rack,
                            TimeNs reorderWindow,
                            const std::optional<Tail>& tail) const
{
    // Markers follow tails only without a reorder tolerance (rule 1 would need a wider hole).
    if (probeAt == kNever || !m_config.tailMarkers || m_config.reorderTolerancePackets > 0 ||
        m_probes > 0 || !tail || tail->packet->txSeq < m_remarkedBefore)
    {
        return kNever;
    }
    // The time rule's own wait, measured from the tail's transmission: the marker's ACK, one
    // round trip behind the tail's, is overdue by then.
    const TimeNs remarkAt =
        tail->packet->sentAt + std::max(rack.rtt + reorderWindow, m_config.tailProbeMinNs);
    return remarkAt < probeAt ? remarkAt : kNever;
}

void
TailLossProbe::ArmIfDue(TimeNs now,
                        bool dataQueued,
                        const RackState& rack,
                        TimeNs reorderWindow,
                        const RttEstimator& connectionRtt,
                        const std::optional<Tail>& tail,
                        const Flow* deliveringFlow)
{
    // kNever is "not due" even to a caller whose clock reads kNever.
    const TimeNs due = DueAt(dataQueued, rack, reorderWindow, connectionRtt, tail);
    if (due == kNever || due > now)
    {
        return;
    }
    m_state = State::Due;
    m_flow = tail->flow->id;
    // A probe that follows an unanswered one, or a tail on a flow that timed out lately, goes
    // where data was last delivered: retransmissions must not pile up on a lossy flow.
    if ((m_probes > 0 || tail->flow->health == FlowHealth::Suspect) && deliveringFlow != nullptr &&
        deliveringFlow->health == FlowHealth::Up)
    {
        m_flow = deliveringFlow->id;
    }
    m_message = tail->packet->message;
    m_index = tail->packet->packetIndex;
}

bool
TailLossProbe::TakeIfDueOn(uint16_t flow)
{
    if (m_state != State::Due || m_flow != flow)
    {
        return false;
    }
    m_state = State::Waiting;
    ++m_probes;
    return true;
}

void
TailLossProbe::Cancel(uint16_t flow)
{
    if (m_state == State::Due && m_flow == flow)
    {
        m_state = State::Waiting;
    }
}

} // namespace metaroce
