/*
 * The responder's acknowledgements (spec 4.2): the ACK generation rule - when an arrival
 * queues an ACK and when it waits, one plane's arrivals counted over its flows - and what an
 * ACK carries when its port pulls it: its flow's state, the plane's waiting flows it covers,
 * and repeats of the latest ACKs. NAKs share the port's feedback queue.
 */
#include "metaroce-responder.h"

#include <algorithm>

namespace metaroce
{

void
MetaRoceResponder::QueueAck(uint16_t flowId)
{
    FlowRx& rx = *m_flows.Find(flowId); // an ACK is queued for a flow that received something
    if (!rx.queued)
    {
        rx.queued = true;
        m_ackQueue[PortOf(flowId)].push_back(flowId);
        m_feedbackPorts.set(PortOf(flowId));
        SyncAckDue(flowId);
    }
}

void
MetaRoceResponder::QueueNak(uint16_t port, const Nak& nak)
{
    if (m_nakQueue.empty())
    {
        m_nakQueue.resize(m_config.ports);
    }
    m_nakQueue[port].push_back(nak);
    m_feedbackPorts.set(port);
}

void
MetaRoceResponder::SyncFeedback(uint16_t port)
{
    m_feedbackPorts.set(port, !m_ackQueue[port].empty() || NakQueued(port));
}

void
MetaRoceResponder::SyncAckDue(uint16_t flowId)
{
    const FlowRx& rx = *m_flows.Find(flowId); // made: only a flow's arrivals give it a deadline
    m_ackDue.Set(flowId, rx.queued ? kNever : rx.ackDue);
}

void
MetaRoceResponder::NoteArrival(FlowRx& rx,
                               uint16_t flowId,
                               const RxPacket& pkt,
                               TimeNs echo,
                               bool urgent)
{
    PlaneRx& plane = m_planes[PortOf(flowId)];
    if (rx.unacked < UINT16_MAX)
    {
        ++rx.unacked;
        ++plane.unacked;
    }
    rx.echo = echo;
    if (pkt.ecnCe)
    {
        ++rx.ce;
    }
    // At once on a gap (the sender must learn of loss at once), a mark (congestion feedback
    // must not wait), a request (ACKREQ, a duplicate, a message's last packet) or a full
    // batch of the plane (spec 4.2); otherwise within ackDelay, with whatever joins it.
    if (urgent || pkt.ecnCe || rx.window.HasGap() || plane.unacked >= m_config.ackEveryPackets)
    {
        QueueAck(flowId);
        return;
    }
    rx.ackDue = std::min(rx.ackDue, pkt.now + m_config.ackDelayNs);
    SyncAckDue(flowId);
    if (!rx.listed)
    {
        rx.listed = true;
        plane.pending.push_back(flowId);
    }
}

void
MetaRoceResponder::OnTimeout(TimeNs now)
{
    // In flow order, as a scan would queue them; collected first, since queuing changes the tree.
    m_due.clear();
    m_ackDue.ForEachAtMost(now,
                           [this](std::size_t id) { m_due.push_back(static_cast<uint16_t>(id)); });
    for (uint16_t id : m_due)
    {
        // One ACK per plane: the plane's other waiting flows go in it (AddPending); their
        // deadlines rest until it leaves (ResumePending).
        if (m_ackQueue[PortOf(id)].empty())
        {
            QueueAck(id);
        }
        else
        {
            m_ackDue.Set(id, kNever);
        }
    }
}

void
MetaRoceResponder::ResumePending(uint16_t port, TimeNs now)
{
    for (uint16_t id : m_planes[port].pending)
    {
        const FlowRx& rx = *m_flows.Find(id);
        if (rx.unacked == 0 || rx.queued)
        {
            continue; // covered, or its ACK is queued
        }
        if (rx.ackDue > now)
        {
            SyncAckDue(id);
        }
        else if (m_ackQueue[port].empty())
        {
            QueueAck(id); // due already: the next ACK of the plane, which takes the rest along
        }
        else
        {
            m_ackDue.Set(id, kNever);
        }
    }
}

void
MetaRoceResponder::OnPortState(uint16_t port, bool up)
{
    if (up || port >= m_config.ports || m_ackQueue.empty())
    {
        return; // nothing can be queued before the state is made
    }
    // Feedback queued for a dead port is stale by the time it could leave; the sender's
    // timers cover it.
    for (uint16_t id : m_ackQueue[port])
    {
        Cover(id);
    }
    m_ackQueue[port].clear();
    ResumePending(port, 0);
    if (NakQueued(port))
    {
        m_nakQueue[port].clear();
    }
    SyncFeedback(port);
}

std::optional<OutPacket>
MetaRoceResponder::Pull(uint16_t port, TimeNs now)
{
    if (port >= m_config.ports || m_ackQueue.empty())
    {
        return std::nullopt;
    }
    MrHeader h;
    h.connection = m_peer;
    if (NakQueued(port))
    {
        const Nak nak = m_nakQueue[port].front();
        m_nakQueue[port].pop_front();
        SyncFeedback(port);
        h.opcode = MrOpcode::Nak;
        h.stream = nak.stream;
        h.msn = nak.msn;
        h.syndrome = nak.syndrome;
    }
    else if (!m_ackQueue[port].empty())
    {
        const uint16_t id = m_ackQueue[port].front();
        m_ackQueue[port].pop_front();
        SyncFeedback(port);
        FlowRx& rx = *m_flows.Find(id);
        h.opcode = MrOpcode::Ack;
        ++m_counters.txAcks;
        h.flowId = id;
        h.flags = rx.ce > 0 ? kMrFlagEce : 0;
        h.cumulativeFsn = static_cast<uint32_t>(rx.window.Cumulative());
        h.rateHintMbps =
            static_cast<uint32_t>(std::min<uint64_t>(FairShare() / 1'000'000, UINT32_MAX));
        h.echoTimestamp = rx.echo;
        h.ceCount = rx.ce;
        h.newCount = rx.fresh;
        // An empty SACK is the common case (a flow's packets arrive in order): left out when
        // compact, and then never built (spec 5.3).
        if (m_config.compactAcks && !rx.window.HasGap())
        {
            h.flags |= kMrFlagNoSack;
        }
        else
        {
            h.sack = rx.window.Sack();
        }
        const uint64_t sackLow = rx.window.SackLow();
        uint32_t fresh = Cover(id);
        fresh += AddPending(h, port);
        AddRepeats(h, sackLow);
        if (const std::optional<uint64_t> target = m_hints.AdmissionTarget())
        {
            m_credit.SetTarget(*target);
        }
        h.creditBytes = m_credit.Next(fresh);
        ResumePending(port, now);
    }
    else
    {
        return std::nullopt;
    }
    OutPacket out;
    out.header.resize(h.Size());
    MrSerialize(h, out.header.data());
    out.port = port;
    // ACKs of one flow share one route back; which one does not matter to the protocol.
    out.udpSrcPort =
        static_cast<uint16_t>(m_config.entropyBase + (h.flowId * 40503u) % m_config.entropyCount);
    out.udpDstPort = kMetaRoceUdpPort;
    out.isControl = true;
    ++m_counters.txControlPackets;
    return out;
}

uint16_t
MetaRoceResponder::Cover(uint16_t id)
{
    FlowRx& rx = *m_flows.Find(id);
    const uint16_t fresh = rx.fresh;
    m_planes[PortOf(id)].unacked -= rx.unacked;
    rx.unacked = 0;
    rx.ce = 0;
    rx.fresh = 0;
    rx.ackDue = kNever;
    rx.queued = false;
    SyncAckDue(id);
    return fresh;
}

uint32_t
MetaRoceResponder::AddPending(MrHeader& ack, uint16_t port)
{
    uint32_t fresh = 0;
    Ring<uint16_t>& pending = m_planes[port].pending;
    while (!pending.empty() && ack.repeatCount < kMrMaxAckRepeats)
    {
        const uint16_t id = pending.front();
        pending.pop_front();
        FlowRx& rx = *m_flows.Find(id);
        rx.listed = false;
        // Covered since it waited, or queued on its own (a mark, a gap): not this ACK's news.
        if (rx.unacked == 0 || rx.queued)
        {
            continue;
        }
        const MrAckRepeat repeat{id,
                                 static_cast<uint16_t>(rx.window.SackLow() & 0xffff),
                                 static_cast<uint32_t>(rx.window.Cumulative())};
        ack.repeats[ack.repeatCount++] = repeat;
        fresh += Cover(id);
    }
    return fresh;
}

void
MetaRoceResponder::AddRepeats(MrHeader& ack, uint64_t sackLow)
{
    const std::size_t covered = ack.repeatCount;
    auto named = [&ack](uint16_t flowId) {
        if (flowId == ack.flowId)
        {
            return true;
        }
        for (std::size_t k = 0; k < ack.repeatCount; ++k)
        {
            if (ack.repeats[k].flowId == flowId)
            {
                return true;
            }
        }
        return false;
    };
    for (std::size_t k = 0; k < m_latestCount && ack.repeatCount < m_config.ackRepeats; ++k)
    {
        if (!named(m_latestAcks[k].flowId))
        {
            ack.repeats[ack.repeatCount++] = m_latestAcks[k];
        }
    }
    if (m_config.ackRepeats == 0)
    {
        return;
    }
    // The flows this ACK covers become the latest, its own flow first.
    for (std::size_t k = covered; k-- > 0;)
    {
        RememberLatest(ack.repeats[k]);
    }
    RememberLatest(
        MrAckRepeat{ack.flowId, static_cast<uint16_t>(sackLow & 0xffff), ack.cumulativeFsn});
}

void
MetaRoceResponder::RememberLatest(const MrAckRepeat& repeat)
{
    std::size_t same = m_latestCount;
    for (std::size_t k = 0; k < m_latestCount; ++k)
    {
        if (m_latestAcks[k].flowId == repeat.flowId)
        {
            same = k;
        }
    }
    if (same == m_latestCount && m_latestCount <= m_config.ackRepeats)
    {
        ++m_latestCount;
    }
    for (std::size_t k = std::min(same, m_latestCount - 1); k > 0; --k)
    {
        m_latestAcks[k] = m_latestAcks[k - 1];
    }
    m_latestAcks[0] = repeat;
}

bool
MetaRoceResponder::HasWork(uint16_t port) const
{
    return port < m_config.ports && m_feedbackPorts.test(port);
}

TimeNs
MetaRoceResponder::NextTimeout() const
{
    return m_ackDue.Min();
}

} // namespace metaroce
