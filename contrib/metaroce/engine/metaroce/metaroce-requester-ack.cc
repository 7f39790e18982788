/*
 * The requester's ACK processing (spec 7.2), the steps in order: the ACK's repeats of earlier
 * ACKs of other flows, each as that ACK would have been; then what the ACK newly covers on its
 * flow (ack-coverage.h) is acknowledged, packet by packet and message by message; the flow's
 * recent losses are settled against it (7.5, spurious-loss.h); then the RTT sample, the rate
 * hint, the admission credit, health, congestion control and ECN marks; last, loss detection
 * on the flow.
 */
#include "metaroce-requester.h"
#include "spurious-loss.h"

#include <algorithm>

namespace metaroce
{

bool
MetaRoceRequester::OnAck(const MrHeader& ack, TimeNs now)
{
    m_now = std::max(m_now, now);
    FollowLossEvidence(now);
    MakeFlows();
    Flow& flow = m_flows[ack.flowId];
    const std::optional<AckCoverage> coverage = ReadAck(ack, flow.nextFsn);
    std::array<uint64_t, kMrMaxAckRepeats> repeated;
    if (!coverage || !ReadRepeats(ack, repeated))
    {
        return false;
    }
    // Oldest first, in the order the ACKs they repeat were sent. Most bring no news: the ACK
    // they repeat arrived.
    for (std::size_t k = ack.repeatCount; k-- > 0;)
    {
        const MrAckRepeat& repeat = ack.repeats[k];
        const Flow& of = m_flows[repeat.flowId];
        const bool settles = RepeatSettles(of, repeated[k]);
        if (settles || repeated[k] > of.Floor() || repeat.sack != 0)
        {
            OnAckRepeat(repeat, repeated[k], settles, now);
        }
    }
    const RackState before = m_rack; // the RACK as it was before this ACK (lateness samples)
    AckProgress progress = AcknowledgeCovered(flow, &ack, *coverage, before, now);
    SettleLosses(flow, &ack, *coverage, before, now);
    OnAckFeedback(flow, ack, progress.sample, now);
    OnAckProgress(flow, ack.ceCount, progress, now);
    RunLossDetection(flow, now);
    flow.PopResolved();
    Refresh(flow);
    return true;
}

MetaRoceRequester::AckProgress
MetaRoceRequester::AcknowledgeCovered(Flow& flow,
                                      const MrHeader* ack,
                                      const AckCoverage& coverage,
                                      const RackState& before,
                                      TimeNs now)
{
    AckProgress progress;
    progress.sample.ceCount = ack ? ack->ceCount : 0;
    for (SentPacket& p : flow.outstanding)
    {
        if (p.state == SentPacket::State::Acked || !coverage.Covers(p.fsn))
        {
            continue;
        }
        const bool wasInFlight = p.state == SentPacket::State::InFlight;
        if (wasInFlight)
        {
            LeaveFlight(flow, p);
            // A tail marker (a PROBE on a flow that is not Down, 4.5) only acknowledges: it is
            // no progress for the congestion control, the tail-loss probe or the flow's health,
            // or a flow that loses most of its data would look healthy on its markers alone.
            if (p.message != kProbeMessage || flow.health == FlowHealth::Down)
            {
                progress.sample.ackedBytes += p.bytes;
                ++progress.sample.ackedPackets;
            }
        }
        p.state = SentPacket::State::Acked;
        ++progress.newlyAcked;
        progress.probeAcked |= p.message == kProbeMessage;
        progress.dataAcked |= p.message != kProbeMessage && wasInFlight;
        // Only an ACK times a packet: a repeat comes an unknown while after the delivery it
        // reports, so it moves neither a reorder window nor the RACK (7.2 step 0).
        if (p.message != kProbeMessage && ack)
        {
            SampleLateness(p, *ack, before, now);
            m_rack.OnAcked(p, now);
        }
        // A late original already declared lost counts for its message too (7.2).
        AckData(p, now);
    }
    return progress;
}

bool
MetaRoceRequester::ReadRepeats(const MrHeader& ack,
                               std::array<uint64_t, kMrMaxAckRepeats>& cumulative) const
{
    for (std::size_t k = 0; k < ack.repeatCount; ++k)
    {
        // A repeat may name a flow this end never used (a peer's error): nothing sent there.
        const Flow* of = m_flows.Find(ack.repeats[k].flowId);
        const std::optional<uint64_t> read =
            ReadAckRepeat(ack.repeats[k], of ? of->nextFsn : m_ids.initialFsn);
        if (!read)
        {
            return false;
        }
        cumulative[k] = *read;
    }
    return true;
}

void
MetaRoceRequester::OnAckRepeat(const MrAckRepeat& repeat,
                               uint64_t cumulative,
                               bool settles,
                               TimeNs now)
{
    Flow& flow = m_flows[repeat.flowId];
    const AckCoverage coverage = AckRepeatCoverage(cumulative, repeat);
    const RackState before{}; // read only for lateness samples, which a repeat does not take
    const AckProgress progress = AcknowledgeCovered(flow, nullptr, coverage, before, now);
    const uint64_t spuriousBefore = m_counters.spuriousLosses;
    if (settles)
    {
        SettleLosses(flow, nullptr, coverage, before, now);
    }
    if (progress.newlyAcked == 0 && m_counters.spuriousLosses == spuriousBefore)
    {
        return; // the ACK it repeats arrived: nothing is left to do
    }
    ++m_counters.ackRepeatHits;
    if (progress.sample.ackedPackets > 0)
    {
        OnAckProgress(flow, 0, progress, now);
    }
    RunLossDetection(flow, now);
    flow.PopResolved();
    Refresh(flow);
}

void
MetaRoceRequester::OnAckFeedback(Flow& flow, const MrHeader& ack, AckSample& sample, TimeNs now)
{
    if (ack.echoTimestamp != 0 && ack.echoTimestamp <= now)
    {
        flow.rtt.Sample(now - ack.echoTimestamp);
        m_connectionRtt.Sample(now - ack.echoTimestamp);
        if (m_config.judgeByNicRtt || m_config.nicInjectionControl)
        {
            m_evidence->SampleRtt(now - ack.echoTimestamp); // only read with them (A57, A58)
        }
        sample.rtt = now - ack.echoTimestamp; // delay-based algorithms (Swift, spec 9.6)
    }
    if (ack.rateHintMbps != 0)
    {
        m_pacer.SetRateHint(uint64_t{ack.rateHintMbps} * 1'000'000);
    }
    // The receiver's admission (8.5): its latest credit, or no limit from a receiver without.
    m_admissionLimit = ack.creditBytes > 0 ? ack.creditBytes : kNoAdmissionLimit;
}

void
MetaRoceRequester::OnAckProgress(Flow& flow, uint16_t ceCount, AckProgress progress, TimeNs now)
{
    AckSample& sample = progress.sample;
    if (sample.ackedPackets > 0)
    {
        flow.bytesAcked += sample.ackedBytes;
        m_tailProbe.OnProgress();
        m_deliveringFlow = flow.id;
        m_recovery.OnProgress(flow, progress.probeAcked);
    }
    if (progress.dataAcked)
    {
        m_lastProgressAt = now;
    }
    sample.srtt = flow.rtt.Smoothed();
    m_cc->OnAck(flow.window, m_connectionWindow, sample, now);
    m_recovery.OnMarks(flow, ceCount, sample.ackedPackets, now);
    m_selector->OnAck(m_flows, flow, sample.ackedPackets, ceCount);
    if (m_config.nicInjectionControl && sample.ackedPackets > 0)
    {
        const RttEstimator& nic = m_evidence->Rtt();
        m_evidence->Injection().OnAck(sample.ackedPackets,
                                      ceCount,
                                      now,
                                      nic.HasSample() ? nic.Smoothed() : 0);
    }
}

void
MetaRoceRequester::AckData(const SentPacket& sent, TimeNs now)
{
    if (sent.message != kProbeMessage)
    {
        m_queue.Acknowledge(sent.message, sent.packetIndex, now);
    }
}

void
MetaRoceRequester::SampleLateness(const SentPacket& p,
                                  const MrHeader& ack,
                                  const RackState& before,
                                  TimeNs now)
{
    // Only an ACK that `p` itself caused times `p` (a lost ACK would make it look late), and
    // only lateness behind a packet sent after it is reordering (spec 4.6).
    if (ack.echoTimestamp != p.sentAt)
    {
        return;
    }
    if (before.SentAfter(p))
    {
        const TimeNs expected = p.sentAt + before.rtt;
        m_reorder.Sample(now > expected ? now - expected : 0);
    }
}

void
MetaRoceRequester::SettleLosses(Flow& flow,
                                const MrHeader* ack,
                                const AckCoverage& coverage,
                                const RackState& before,
                                TimeNs now)
{
    if (!flow.recentLosses)
    {
        return;
    }
    auto& recent = *flow.recentLosses;
    for (auto it = recent.begin(); it != recent.end();)
    {
        const LossSettlement settlement = SettleLoss(*it, coverage);
        if (settlement == LossSettlement::Open)
        {
            ++it;
            continue;
        }
        if (settlement == LossSettlement::Spurious)
        {
            ++m_counters.spuriousLosses;
            if (ack)
            {
                SampleLateness(it->packet, *ack, before, now);
            }
            AckData(it->packet, now);
            if (it->byRule)
            {
                m_evidence->RecordSpurious(now); // read at the NIC's next events (A49)
                UndoLossCut(flow);
            }
        }
        it = recent.erase(it);
    }
}

} // namespace metaroce
