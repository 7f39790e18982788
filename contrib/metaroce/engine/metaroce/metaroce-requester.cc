#include "metaroce-requester.h"

#include "requester-packets.h"

#include <algorithm>
#include <cassert>

namespace metaroce
{

MetaRoceRequester::MetaRoceRequester(const MetaRoceConfig& config,
                                     const ConnectionIds& ids,
                                     MemoryRegistry* memory,
                                     Counters& counters,
                                     std::vector<Completion>& completions,
                                     LossEvidence& evidence,
                                     std::unique_ptr<CongestionControl> cc,
                                     std::unique_ptr<FlowSelector> selector)
    : m_config(config)
    , m_ids(ids)
    , m_memory(memory)
    , m_counters(counters)
    , m_cc(std::move(cc))
    , m_selector(std::move(selector))
    , m_recovery(m_config, counters, ids)
    , m_flows(m_config, ids.initialFsn)
    , m_portUp(~uint64_t{0})
    , m_connectionRtt(config.initialRttNs)
    , m_evidence(&evidence)
    , m_reorder(config.ackDelayNs, config.quietReorderFloorRttQuarters)
    , m_admissionLimit(config.unscheduledBytes > 0 ? config.unscheduledBytes : kNoAdmissionLimit)
    , m_queue(m_config, counters, completions)
    , m_pacer(config.portRateBps * config.ports,
              config.honourRateHint,
              static_cast<uint16_t>(config.ports * config.sprayBurstPackets))
    , m_tailProbe(m_config)
    , m_rtoAt(0)
    , m_firstDataOrder(0)
    , m_bursts(config.sprayBurstPackets > 1 ? config.ports : 0)
{
    const double mtu = config.mtu + kMrWriteHeaderSize;
    m_connectionWindow.minWindow = mtu * config.ports;
    m_connectionWindow.maxWindow = static_cast<double>(config.maxConnectionWindowBytes);
    m_connectionWindow.window = static_cast<double>(config.initialConnectionWindowBytes);
}

void
MetaRoceRequester::MakeFlows()
{
    if (!m_flows.IsEmpty())
    {
        return;
    }
    // The first entropies are the generator's first draws, whenever the flows are made.
    m_flows.Make(m_recovery);
    m_recovery.ReleaseGenerator();
    const size_t count = m_flows.Count();
    m_rtoAt = DeadlineTree(count);
    m_firstDataOrder = DeadlineTree(count);
    m_lastDataAt.assign(m_config.ports, kNever);
}

void
MetaRoceRequester::Post(const WorkRequest& wr, TimeNs now)
{
    m_now = std::max(m_now, now);
    m_queue.Post(wr, now);
    MakeFlows();
}

// Sending (spec 7.1, 7.3, 4.5)

std::optional<OutPacket>
MetaRoceRequester::Pull(uint16_t port, TimeNs now, bool recoveryOnly)
{
    m_now = std::max(m_now, now);
    if (port >= m_config.ports || !m_portUp[port] || Failed())
    {
        return std::nullopt;
    }
    // A tail marker follows its tail at once, so that nothing else can come between them.
    if (!m_markersDue.empty())
    {
        if (auto marker = SendTailMarker(port, now))
        {
            return marker;
        }
    }
    // Probes first; most of the time there are none, and no flow needs looking at.
    if (m_downFlows > 0 || m_tailProbe.DueFlow())
    {
        for (uint16_t id : m_flows.OfPort(port))
        {
            // A flow never used is Up and holds no tail: nothing to probe on it.
            const Flow* used = m_flows.Find(id);
            // A Down flow's probe is no recovery of data (HasRecoveryWork): it takes its turn.
            if (!recoveryOnly && used && used->health == FlowHealth::Down && used->probeDue <= now)
            {
                return SendProbe(m_flows[id], now);
            }
            if (m_tailProbe.TakeIfDueOn(id))
            {
                if (auto probe = SendTailProbe(m_flows[id], now))
                {
                    return probe;
                }
            }
        }
    }
    return PullData(port, now, recoveryOnly);
}

std::optional<OutPacket>
MetaRoceRequester::PullData(uint16_t port, TimeNs now, bool recoveryOnly)
{
    const std::optional<QueuedPacket> next = m_queue.Next();
    // Next() has dropped retransmissions no longer needed: the FIFO's front is what it returned.
    if (!next || !m_pacer.MayRelease(now) || (recoveryOnly && !m_queue.UrgentRetransmissionFirst()))
    {
        return std::nullopt;
    }
    // A retransmission leaves the plane its packet was lost on to another that is up (7.3).
    const uint64_t otherPorts = m_portUp.to_ullong() & PortBits(m_config.ports) & ~(1ULL << port);
    if (next->lostOn == port && otherPorts != 0)
    {
        return std::nullopt;
    }
    const SendQueue::Message& m = m_queue.At(next->message);
    const uint32_t bytes =
        m_queue.PacketBytes(m, next->index) + static_cast<uint32_t>(kMrMaxDataHeaderSize);
    // An extra copy is redundancy, not more data: neither window nor credit holds it (7.3).
    const bool windowFull =
        m_inflightBytes > 0 && m_inflightBytes + bytes > m_connectionWindow.window;
    if (!next->extraCopy && (windowFull || !AdmissionAdmits(bytes)))
    {
        return std::nullopt;
    }
    bool cut = false;
    int chosen = ContinueBurst(port, bytes, cut);
    if (chosen < 0)
    {
        chosen = m_selector->Select(m_flows, port, bytes, m_config.maxFlowWindowPackets);
        if (chosen < 0)
        {
            return std::nullopt;
        }
        if (!m_bursts.empty())
        {
            // A burst cut short takes this one packet on another flow and ends the NIC's turn
            // (ContinuesBurst), so that a turn never exceeds a burst; the next one starts anew.
            // A flow not yet timed sends alone: how late its route runs is unknown, and a
            // pair would double its share of a first-round queue (6.2).
            const bool timed = m_flows[static_cast<uint16_t>(chosen)].rtt.HasSample();
            m_bursts[port] = {static_cast<uint16_t>(chosen),
                              cut || !timed ? 0 : m_config.sprayBurstPackets - 1};
        }
    }
    const bool retx = m_queue.Take(*next);
    if (retx)
    {
        ++m_counters.retransmittedPackets;
    }
    Flow& flow = m_flows[static_cast<uint16_t>(chosen)];
    const bool burstGoesOn = !m_bursts.empty() && m_bursts[port].left > 0;
    OutPacket out = SendData(flow, *next, retx, now, burstGoesOn);
    m_pacer.OnSent(out.WireSize(), now);
    ++m_counters.txDataPackets;
    // New data with packets of its message still to go is no tail, and needs no look-up.
    NoteSentData(flow, m.transmissions[next->index], !retx && m.nextPacket < m.packets);
    return out;
}

int
MetaRoceRequester::ContinueBurst(uint16_t port, uint32_t bytes, bool& cut)
{
    if (m_bursts.empty() || m_bursts[port].left == 0)
    {
        return -1;
    }
    Burst& burst = m_bursts[port];
    // The flow stays while the selector would take it first (6.2). It has sent: it was made.
    if (!m_flows.IsClearWithRoom(burst.flow, bytes, m_config.maxFlowWindowPackets))
    {
        burst.left = 0;
        cut = true;
        return -1;
    }
    --burst.left;
    return burst.flow;
}

OutPacket
MetaRoceRequester::SendData(Flow& flow,
                            const QueuedPacket& p,
                            bool retx,
                            TimeNs now,
                            bool burstGoesOn)
{
    const SendQueue::Message& m = m_queue.At(p.message);
    // A packet alone on its plane, or one of a message's last `ports` (each taken as the last
    // on its plane), would have its ACK wait the ACK delay for no successor (4.2).
    TimeNs& last = m_lastDataAt[flow.port];
    const bool lone = !burstGoesOn && (last == kNever || now - last > m_config.ackDelayNs ||
                                       p.index + m_config.ports >= m.packets);
    OutPacket out = MakeDataPacket(m_config,
                                   m_ids.remote,
                                   m_memory,
                                   flow,
                                   m,
                                   p.index,
                                   m_queue.PacketBytes(m, p.index),
                                   retx,
                                   now,
                                   lone);
    RecordSent(flow, out, p.message, p.index, now);
    ++flow.packetsSent;
    last = now;
    return out;
}

std::optional<OutPacket>
MetaRoceRequester::SendTailProbe(Flow& flow, TimeNs now)
{
    // The tail goes again, under a fresh FSN, in the data class like the packets before it (a
    // small PROBE would overtake them in a switch's control class and fake a gap); if it was
    // lost this repairs it, and its ACK exposes any later hole by the time rule (spec 4.5).
    const QueuedPacket p{m_tailProbe.Message(), m_tailProbe.PacketIndex()};
    if (m_queue.Resend(p.message, p.index) == nullptr)
    {
        return std::nullopt; // delivered since the probe became due
    }
    m_tailProbe.OnProbeSent(now);
    // A probe finds a tail, which is what tail copies are for, whatever credit holds back.
    m_queue.QueueExtraCopies(p.message, p.index, m_queue.TailCopies() - 1);
    ++m_counters.tailProbes;
    ++m_counters.retransmittedPackets;
    ++m_counters.txDataPackets;
    OutPacket out = SendData(flow, p, true, now);
    NoteSentData(flow, m_queue.At(p.message).transmissions[p.index], false);
    return out;
}

OutPacket
MetaRoceRequester::SendProbe(Flow& flow, TimeNs now)
{
    // A Down flow's earlier probes never answered are given up: the floor moves past them.
    for (SentPacket& p : flow.outstanding)
    {
        if (p.state == SentPacket::State::InFlight)
        {
            p.state = SentPacket::State::Lost;
            LeaveFlight(flow, p);
        }
    }
    flow.PopResolved();
    OutPacket out = MakeProbePacket(m_ids.remote, flow, now);
    RecordSent(flow, out, kProbeMessage, 0, now);
    m_recovery.OnProbeSent(flow, now);
    ++m_counters.txControlPackets;
    return out;
}

void
MetaRoceRequester::RecordSent(Flow& flow,
                              OutPacket& out,
                              uint64_t message,
                              uint32_t index,
                              TimeNs now)
{
    out.port = flow.port;
    out.udpSrcPort = flow.entropy;
    out.udpDstPort = kMetaRoceUdpPort;
    SentPacket sent;
    sent.fsn = flow.nextFsn++;
    sent.txSeq = m_nextTxSeq++;
    sent.epoch = flow.epoch;
    sent.sentAt = now;
    sent.bytes = static_cast<uint32_t>(out.WireSize());
    sent.message = message;
    sent.packetIndex = index;
    flow.outstanding.push_back(sent);
    if (message != kProbeMessage)
    {
        m_tails.OnSent(flow.id, sent.fsn, m_flows, m_rack);
    }
    // PROBEs carry no data: no window holds them (a lost tail marker would otherwise block its
    // flow for good, as nothing times it out; spec 4.5, 9.1), nor does the receiver's admission.
    const uint32_t held = message == kProbeMessage ? 0 : sent.bytes;
    flow.inflightBytes += held;
    m_inflightBytes += held;
    Refresh(flow);
}

void
MetaRoceRequester::LeaveFlight(Flow& flow, const SentPacket& p)
{
    const uint32_t held = p.message == kProbeMessage ? 0 : p.bytes;
    flow.inflightBytes -= held;
    m_inflightBytes -= held;
}

// Losses (spec 4.6, 7.3)

void
MetaRoceRequester::RunLossDetection(Flow& flow, TimeNs now)
{
    const LossVerdict verdict = DetectLosses(flow.outstanding,
                                             m_config.reorderTolerancePackets,
                                             TimeRuleFor(flow, ReorderWindowNs()),
                                             now);
    if (verdict.lost.empty())
    {
        return;
    }
    m_counters.fastRetransmits += verdict.lost.size();
    for (std::size_t k = 0; k < verdict.lost.size(); ++k)
    {
        if (verdict.proven[k])
        {
            m_evidence->Record(now); // read by the NIC's connections at their next event (A47)
        }
        MarkLost(flow, verdict.lost[k], now, true, verdict.proven[k]);
        if (Failed())
        {
            return;
        }
    }
    // Remember the window before the cut so that a spurious loss can give it back (7.5).
    const double before = flow.window.window;
    m_cc->OnLoss(flow.window, m_connectionWindow, flow.rtt.Smoothed(), now);
    if (flow.window.window < before)
    {
        flow.undoWindow = before;
    }
    m_recovery.MaybeRedraw(flow, now);
}

void
MetaRoceRequester::MarkLost(Flow& flow, std::size_t index, TimeNs now, bool byRule, bool proven)
{
    SentPacket& p = flow.outstanding[index];
    assert(p.state == SentPacket::State::InFlight);
    p.state = SentPacket::State::Lost;
    LeaveFlight(flow, p);
    const auto lostOn =
        static_cast<uint8_t>(m_config.retransmitOtherPlane ? flow.port : QueuedPacket::kAnyPort);
    if (p.message == kProbeMessage ||
        !m_queue.Requeue(p.message, p.packetIndex, now, proven, lostOn))
    {
        return;
    }
    // Remembered until an ACK settles it, at most one SACK span's worth (7.5).
    if (!flow.recentLosses)
    {
        flow.recentLosses = std::make_unique<Ring<LostPacket>>();
    }
    flow.recentLosses->push_back(LostPacket{p, flow.nextFsn, byRule});
    if (flow.recentLosses->size() > kSackBits)
    {
        flow.recentLosses->pop_front();
    }
}

void
MetaRoceRequester::LoseInFlight(Flow& flow, TimeNs now)
{
    for (std::size_t i = 0; i < flow.outstanding.size(); ++i)
    {
        if (flow.outstanding[i].state == SentPacket::State::InFlight)
        {
            MarkLost(flow, i, now, false, true);
        }
    }
    flow.PopResolved();
}

// Timeouts and port events (spec 6.3, 4.5)

void
MetaRoceRequester::OnTimeout(TimeNs now)
{
    m_now = std::max(m_now, now);
    FollowLossEvidence(now);
    if (Failed())
    {
        return;
    }
    // Flow by flow, as a scan of all of them would; the trees name the flows that may be due.
    const TimeNs reorderWindow = ReorderWindowNs();
    for (uint16_t id : FlowsDueBy(now, reorderWindow))
    {
        Flow& flow = m_flows[id];
        if (LossCheckAt(flow, reorderWindow) <= now)
        {
            RunLossDetection(flow, now);
            flow.PopResolved();
        }
        if (!Failed())
        {
            const SentPacket* oldest = flow.OldestDataInFlight();
            if (RtoDeadline(flow, oldest) <= now && !DeferRto(flow, *oldest, now, reorderWindow))
            {
                OnFlowTimeout(flow, now);
            }
        }
        Refresh(flow);
        if (Failed())
        {
            return;
        }
    }
    const std::optional<Tail> tail = TailToProbe();
    RemarkTails(tail, reorderWindow, now);
    m_tailProbe.ArmIfDue(now,
                         MaySendMore(),
                         m_rack,
                         reorderWindow,
                         JudgingRtt(),
                         tail,
                         m_rack.valid ? &m_flows[m_deliveringFlow] : nullptr);
}

void
MetaRoceRequester::OnFlowTimeout(Flow& flow, TimeNs now)
{
    ++m_counters.timeouts;
    ++flow.consecutiveTimeouts;
    m_cc->OnTimeout(flow.window, m_connectionWindow, now);
    flow.undoWindow = 0; // timeouts are not undone (7.5)
    if (m_recovery.TimeoutTakesDown(flow))
    {
        TakeDown(flow, now);
        return;
    }
    LoseInFlight(flow, now);
    m_recovery.AfterTimeout(flow, now);
}

void
MetaRoceRequester::TakeDown(Flow& flow, TimeNs now)
{
    LoseInFlight(flow, now);
    m_recovery.TakeDown(flow, m_portUp[flow.port], now);
    m_tailProbe.Cancel(flow.id);
}

void
MetaRoceRequester::OnPortState(uint16_t port, bool up, TimeNs now)
{
    m_now = std::max(m_now, now);
    if (port >= m_config.ports || m_portUp[port] == up)
    {
        return;
    }
    m_portUp[port] = up;
    MakeFlows(); // a port event before the first send acts on the flows all the same
    for (uint16_t id : m_flows.OfPort(port))
    {
        if (!up)
        {
            TakeDown(m_flows[id], now);
        }
        else
        {
            m_recovery.OnPortUp(m_flows[id], now);
        }
        Refresh(m_flows[id]);
    }
}

std::optional<DropReason>
MetaRoceRequester::OnNak(const MrHeader& nak, TimeNs now)
{
    return m_queue.OnNak(nak.stream, nak.msn, now);
}

// What the driver asks (spec 1.3)

bool
MetaRoceRequester::MaySendMore() const
{
    // Data held back by the receiver's admission waits for an ACK as a tail does: only the
    // probe can bring one if what is in flight was lost (spec 4.5, 8.5).
    return m_queue.HasQueued() && AdmissionAdmits(uint64_t{m_config.mtu} + kMrMaxDataHeaderSize);
}

bool
MetaRoceRequester::AdmissionAdmits(uint64_t bytes) const
{
    // Probes are not admitted data (spec 8.5): one unanswered on a dead plane must not hold
    // the data back, so only DATA in flight counts.
    return m_admissionLimit == kNoAdmissionLimit || m_inflightBytes == 0 ||
           m_inflightBytes + bytes <= m_admissionLimit;
}

std::optional<Tail>
MetaRoceRequester::TailToProbe() const
{
    // Cheap conditions first: the scan runs only when a probe could be armed, no data waits
    // and something is in flight.
    if (!m_tailProbe.CanArm() || MaySendMore() || !m_rack.valid || m_rtoAt.Min() == kNever)
    {
        return std::nullopt;
    }
    return m_tails.Find(m_flows, m_queue, m_rack);
}

TimeNs
MetaRoceRequester::NextTimeout() const
{
    if (Failed())
    {
        return kNever;
    }
    // What NextTimeoutByScan() computes, from the trees: the clamped deadlines first.
    const TimeNs reorderWindow = ReorderWindowNs();
    const std::optional<Tail> tail = TailToProbe();
    TimeNs next =
        std::min({EarliestLossCheck(reorderWindow),
                  m_rtoAt.Min(),
                  m_tailProbe.WakeAt(MaySendMore(), m_rack, reorderWindow, JudgingRtt(), tail)});
    if (next != kNever)
    {
        next = std::max(next, m_now);
    }
    if (m_downFlows > 0)
    {
        for (const Flow& flow : m_flows.Made())
        {
            if (flow.health == FlowHealth::Down && flow.probeDue != kNever && flow.probeDue > m_now)
            {
                next = std::min(next, flow.probeDue);
            }
        }
    }
    return std::min(next, m_pacer.Deadline(m_now));
}

bool
MetaRoceRequester::TailIndexAgrees() const
{
    const std::optional<Tail> indexed = m_tails.Find(m_flows, m_queue, m_rack);
    const std::optional<Tail> scanned = FindTail(m_flows, m_queue, m_rack);
    return indexed.has_value() == scanned.has_value() &&
           (!indexed || indexed->packet == scanned->packet);
}

TimeNs
MetaRoceRequester::NextTimeoutByScan() const
{
    if (Failed())
    {
        return kNever;
    }
    // Deadlines OnTimeout() acts on are reported even when overdue (clamped to the latest time
    // seen); work that only waits for a free port (due probes, elapsed pacing) is announced by
    // HasWork() instead, so that a busy port cannot make the driver spin.
    TimeNs next = kNever;
    auto consider = [&](TimeNs t) { next = std::min(next, std::max(t, m_now)); };
    const TimeNs reorderWindow = ReorderWindowNs();
    for (const Flow& flow : m_flows.Made())
    {
        if (flow.outstanding.empty() && flow.health != FlowHealth::Down)
        {
            continue; // nothing in flight: no loss check, no RTO (most flows, most of the time)
        }
        const TimeNs lossCheck = LossCheckAt(flow, reorderWindow);
        if (lossCheck != kNever)
        {
            consider(lossCheck);
        }
        if (flow.health == FlowHealth::Down)
        {
            if (flow.probeDue != kNever && flow.probeDue > m_now)
            {
                next = std::min(next, flow.probeDue);
            }
            continue;
        }
        const TimeNs rtoAt = RtoDeadline(flow, flow.OldestDataInFlight());
        if (rtoAt != kNever)
        {
            consider(rtoAt);
        }
    }
    const std::optional<Tail> tail = FindTail(m_flows, m_queue, m_rack);
    const TimeNs tailProbeAt =
        m_tailProbe.WakeAt(MaySendMore(), m_rack, reorderWindow, JudgingRtt(), tail);
    if (tailProbeAt != kNever)
    {
        consider(tailProbeAt);
    }
    return std::min(next, m_pacer.Deadline(m_now));
}

} // namespace metaroce
