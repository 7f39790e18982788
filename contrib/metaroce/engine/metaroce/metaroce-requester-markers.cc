/*
 * Tail markers (spec 4.5, A41): a PROBE in the data class behind every DATA packet after which
 * the connection has nothing left to send. It follows its tail on the same flow, so the same
 * route and the same FIFO queues: it cannot overtake the tail, and its ACK - one round trip
 * after the tail left - either covers the tail or shows its FSN missing below the marker's,
 * which rule 1 of loss detection (4.6) takes as a loss at once. Without it a lost tail waits
 * for the time rule, which needs a later packet, or for the tail-loss probe's srtt + 4 rttvar.
 * A marker is never retransmitted and never times out (the RTO times data only, Refresh()).
 */
#include "metaroce-requester.h"
#include "requester-packets.h"

#include <algorithm>

namespace metaroce
{

void
MetaRoceRequester::NoteSentData(const Flow& flow, uint32_t transmissions, bool moreInMessage)
{
    // Rule 1 takes a hole as a loss only with no reorder tolerance; a packet sent a fifth time
    // (a SEND its receiver keeps refusing, spec 13) must back off on the probe and the RTO
    // instead of coming back every round trip.
    if (!m_config.tailMarkers || m_config.reorderTolerancePackets > 0 ||
        transmissions > kMarkedTransmissions || moreInMessage)
    {
        return;
    }
    // Next(), not HasQueued(): the queue forgets a fully sent message only when asked. Data
    // held back by the receiver's admission is still data to send: the next credit releases
    // it, and a marker per credit would follow nearly every packet of a credit-bound sender.
    if (m_queue.Next().has_value())
    {
        return;
    }
    OweMarker(flow.id);
    // The packets before this one went over other flows, and each is the last of its flow for
    // now: a tail of its own, lost unseen unless a marker follows it too. Once per emptied
    // queue, so a scan of the flows is no per-packet cost.
    OweMarkersBehindTails(flow.id, false);
}

void
MetaRoceRequester::OweMarkersBehindTails(std::optional<uint16_t> except, bool again)
{
    for (const Flow& other : m_flows.Made())
    {
        if (other.id == except || other.health == FlowHealth::Down)
        {
            continue;
        }
        // The flow's newest DATA packet; a first marker only where none follows it yet, a
        // repeated one also behind the markers already sent.
        auto newest = other.outstanding.rbegin();
        while (again && newest != other.outstanding.rend() && newest->message == kProbeMessage)
        {
            ++newest;
        }
        if (newest == other.outstanding.rend())
        {
            continue;
        }
        const SentPacket& tail = *newest;
        if (tail.state == SentPacket::State::InFlight && tail.message != kProbeMessage &&
            m_queue.Needs(tail.message, tail.packetIndex) &&
            m_queue.At(tail.message).transmissions[tail.packetIndex] <= kMarkedTransmissions)
        {
            OweMarker(other.id);
        }
    }
}

void
MetaRoceRequester::RemarkTails(const std::optional<Tail>& tail, TimeNs reorderWindow, TimeNs now)
{
    // The tail's ACK is overdue by the time rule's measure, and the marker behind it brought
    // none: both may have been lost on their route. A marker again behind every flow's newest
    // DATA still in flight, long before the probe's srtt + 4 rttvar (spec 4.5).
    if (m_tailProbe.RemarkAt(MaySendMore(), m_rack, reorderWindow, JudgingRtt(), tail) > now)
    {
        return;
    }
    m_tailProbe.OnRemarked(m_nextTxSeq);
    OweMarkersBehindTails(std::nullopt, true);
}

void
MetaRoceRequester::OweMarker(uint16_t flow)
{
    if (std::find(m_markersDue.begin(), m_markersDue.end(), flow) == m_markersDue.end())
    {
        m_markersDue.push_back(flow);
    }
}

std::optional<OutPacket>
MetaRoceRequester::SendTailMarker(uint16_t port, TimeNs now)
{
    for (auto it = m_markersDue.begin(); it != m_markersDue.end();)
    {
        Flow& flow = m_flows[*it];
        if (flow.port != port)
        {
            ++it;
            continue;
        }
        it = m_markersDue.erase(it);
        // None for a flow taken down (its tail was given up with it; it probes on its own), a
        // tail already acknowledged, or a flow whose FSN span is full (the receiver would refuse
        // a FSN 256 or more above the floor, 7.1).
        if (flow.health == FlowHealth::Down || flow.OldestDataInFlight() == nullptr ||
            flow.nextFsn - flow.Floor() >= m_config.maxFlowWindowPackets)
        {
            continue;
        }
        // The same route and traffic class as the tail, so it cannot overtake it: its ACK
        // shows the tail's FSN missing (rule 1) or covers it (spec 4.5). No ACKREQ: the
        // receiver answers at once only when it arrives above a gap, the case it is for; an
        // arrived tail has had its own ACK (4.2).
        OutPacket out = MakeProbePacket(m_ids.remote, flow, now, false);
        out.isControl = false;
        RecordSent(flow, out, kProbeMessage, 0, now);
        ++m_counters.txControlPackets;
        ++m_counters.tailMarkers;
        return out;
    }
    return std::nullopt;
}

} // namespace metaroce
