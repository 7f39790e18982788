/*
 * The MetaRoCE requester (spec 7): the sending half of a connection, and the place where its
 * parts meet. Each concern lives in its own file:
 *
 *   send-queue.h        messages: segmentation, retransmission FIFO, in-order completion,
 *                       error state (7.1, 7.4)
 *   requester-packets.h DATA and PROBE packets (5.2, 5.4)
 *   pacer.h             pacing at the receiver's rate hint (9.4)
 *   admission-credit.h  the receiver's admission credit (8.5): unscheduled window, then credit
 *   ack-coverage.h      what an ACK acknowledges on a flow, and its validation (7.2)
 *   loss-detection.h    which in-flight packets are lost (4.6)
 *   spurious-loss.h     which declared losses an ACK proves spurious, and the undo (7.5)
 *   tail-loss-probe.h   the connection's tail-loss probe (4.5)
 *   metaroce-requester-markers.cc  tail markers behind a connection's last packets (4.5)
 *   flow-recovery.h     RTO, suspect/down, probes back, entropy re-draws (6.3, 6.4, 4.5)
 *
 * This class keeps the flows and what is in flight on them and runs the steps: it sprays DATA
 * over the flows the selector picks, retransmits exactly the packets a SACK gap or the time
 * rule reveals as lost (under a fresh FSN, on
 * whichever flow has room), and acts on timeouts and port events (metaroce-requester.cc);
 * its ACK processing, step by step, is in metaroce-requester-ack.cc.
 *
 * The flows are made on the first send, ACK or port event, so an end that only receives never
 * pays for them; their first entropies are the generator's first draws either way.
 *
 * Its deadlines are kept per flow in DeadlineTrees (deadline-tree.h), brought up to date for
 * the flows a call changed (Refresh()), so that NextTimeout() and OnTimeout() do not walk every
 * flow's state; NextTimeoutByScan() is the scan they must agree with (spec 1.3). The trees, the
 * retransmission timeout and its deferral, and the time rule's windows are in
 * metaroce-requester-deadlines.cc.
 */
#ifndef METAROCE_ENGINE_METAROCE_REQUESTER_H
#define METAROCE_ENGINE_METAROCE_REQUESTER_H

#include "../algorithms/congestion-control.h"
#include "../algorithms/flow-selector.h"
#include "../common/deadline-tree.h"
#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "../common/transport-engine.h"
#include "ack-coverage.h"
#include "admission-credit.h"
#include "flow-recovery.h"
#include "flow-table.h"
#include "loss-evidence.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"
#include "metaroce-wire.h"
#include "pacer.h"
#include "reorder-window.h"
#include "send-queue.h"
#include "tail-index.h"
#include "tail-loss-probe.h"

#include <bitset>
#include <memory>
#include <optional>
#include <vector>

namespace metaroce
{

/// Sending half of a MetaRoCE connection.
class MetaRoceRequester
{
  public:
    /// `config` (perhaps shared with other connections), `counters` and `completions` are the
    /// connection's, `evidence` the connection's or its NIC's (4.6, A47); all must outlive it.
    MetaRoceRequester(const MetaRoceConfig& config,
                      const ConnectionIds& ids,
                      MemoryRegistry* memory,
                      Counters& counters,
                      std::vector<Completion>& completions,
                      LossEvidence& evidence,
                      std::unique_ptr<CongestionControl> cc,
                      std::unique_ptr<FlowSelector> selector);

    /// Records proven losses in, and takes the reorder floor from, `evidence` from now on.
    void ShareLossEvidence(LossEvidence& evidence)
    {
        m_evidence = &evidence;
    }

    /// Queues a WRITE or SEND (already validated by the connection).
    void Post(const WorkRequest& wr, TimeNs now);

    /// True when a WRITE posted on `stream` has not finished (SendQueue::WriteUnfinished).
    bool WriteUnfinished(uint16_t stream) const
    {
        return m_queue.WriteUnfinished(stream);
    }

    /// Processes an ACK; returns false (and changes nothing) when it acknowledges FSNs never sent.
    bool OnAck(const MrHeader& ack, TimeNs now);

    /// Processes a NAK: the named message failed at the responder; the connection fails. Returns
    /// why it was refused instead (SendQueue::OnNak).
    std::optional<DropReason> OnNak(const MrHeader& nak, TimeNs now);

    /// Acts on every deadline <= `now`: loss checks, flow timeouts, the tail-loss probe.
    void OnTimeout(TimeNs now);
    void OnPortState(uint16_t port, bool up, TimeNs now);

    /// Next data or probe packet for `port`, if one may go now; with `recoveryOnly` only what
    /// HasRecoveryWork announces (a tail marker, the tail-loss probe, the retransmission of a
    /// proven loss at the front of the queue), never new data nor a Down flow's probe.
    std::optional<OutPacket> Pull(uint16_t port, TimeNs now, bool recoveryOnly = false);

    bool HasWork(uint16_t port) const;

    /// True when a tail marker or the tail-loss probe is due on `port`, or the retransmission
    /// first in the queue is of a proven loss (rule 1, a timeout or a take-down; it goes on
    /// whichever port pulls first): Pull() returns these before new data. A hint: windows and
    /// pacing are not checked, and the front may have been delivered since.
    bool HasRecoveryWork(uint16_t port) const;

    /// HasWork (`any`) and HasRecoveryWork (`recovery`) of every port at once.
    PortWork WorkOnPorts() const;

    /// True when the burst of the last packet pulled for `port` takes more packets and data
    /// waits (spec 6.2; TransportEngine::ContinuesBurst).
    bool ContinuesBurst(uint16_t port) const
    {
        return !m_bursts.empty() && m_bursts[port].left > 0 && m_queue.HasPacketToSend();
    }

    /// The earliest deadline (spec 1.3, NextTimeout contract), from the per-flow trees.
    TimeNs NextTimeout() const;

    /// The same computed from scratch, a scan of every flow: the definition NextTimeout()
    /// must agree with after every call (checked by the engine tests).
    TimeNs NextTimeoutByScan() const;
    /// True when the tail index (tail-index.h) finds the packet FindTail() does (tests).
    bool TailIndexAgrees() const;

    bool Idle() const
    {
        return m_queue.Empty();
    }

    /// The connection's flows; those never used are not made (flow-table.h).
    const FlowTable& Flows() const
    {
        return m_flows;
    }

    /// Sending rate the receiver's last rate hint allows (bits/s), 0 when none was received.
    uint64_t RateHintBps() const
    {
        return m_pacer.RateHintBps();
    }

    const WindowState& ConnectionWindow() const
    {
        return m_connectionWindow;
    }

    /// Bytes the receiver admits in flight (spec 8.5): the unscheduled window before the first
    /// ACK, then the latest ACK's credit; kNoAdmissionLimit when neither limits.
    uint64_t AdmissionLimit() const
    {
        return m_admissionLimit;
    }

  private:
    /// What an ACK acknowledged of what was in flight.
    struct AckProgress
    {
        AckSample sample;
        bool probeAcked{false};
        bool dataAcked{false};  ///< DATA in flight acknowledged (a PROBE alone is not: 5.5)
        uint32_t newlyAcked{0}; ///< packets the ACK acknowledged first, lost ones included
    };

    bool Failed() const
    {
        return m_queue.GetState() == SendQueue::State::Failed;
    }

    /// Makes the flows and their deadline slots on the first call (spec 6.1).
    void MakeFlows();
    /// New or retransmitted DATA for `port`, if the queue, the pacer and a window allow.
    std::optional<OutPacket> PullData(uint16_t port, TimeNs now, bool recoveryOnly);
    /// Addresses `out` to `flow` and records it there as sent (a fresh FSN, in flight).
    void RecordSent(Flow& flow, OutPacket& out, uint64_t message, uint32_t index, TimeNs now);
    /// `burstGoesOn`: the next packet follows on `flow` at once (6.2), so this one is not lone
    /// and does not ask for its ACK at once (ACKREQ, 4.2).
    OutPacket SendData(Flow& flow,
                       const QueuedPacket& p,
                       bool retx,
                       TimeNs now,
                       bool burstGoesOn = false);
    /// A PROBE on the Down flow `flow`; an earlier probe still unanswered is given up (4.5).
    OutPacket SendProbe(Flow& flow, TimeNs now);
    /// The due tail-loss probe, on `flow`: the tail packet it names, again, or nullopt when
    /// that packet has been delivered meanwhile (4.5).
    std::optional<OutPacket> SendTailProbe(Flow& flow, TimeNs now);
    /// After a DATA packet went on `flow`, its `transmissions`-th: when nothing is left to
    /// send, a tail marker is due on `flow` (4.5). `moreInMessage`: its message has packets
    /// still unsent, which spares asking the send queue.
    void NoteSentData(const Flow& flow, uint32_t transmissions, bool moreInMessage);
    /// A tail marker is due on `flow` (once: a flow owes at most one).
    void OweMarker(uint16_t flow);
    /// A tail marker is due on every flow but `except` whose newest DATA packet is in flight
    /// and still needed, and was sent at most kMarkedTransmissions times; `again`: also where
    /// markers already follow that packet (a repeat), else only where none does.
    void OweMarkersBehindTails(std::optional<uint16_t> except, bool again);
    /// When TailLossProbe::RemarkAt() has come for `tail` at `now`, the markers behind every
    /// tail are owed again (4.5).
    void RemarkTails(const std::optional<Tail>& tail, TimeNs reorderWindow, TimeNs now);
    /// True when `port` exists and is up and the connection has not failed.
    bool MaySendOn(uint16_t port) const;
    /// True when a tail marker or the tail-loss probe is due on `port`.
    bool TailDueOn(uint16_t port) const;
    /// Transmissions of a packet that a tail marker follows: enough for the losses of a lossy
    /// fabric (at 20% per flow, 2 of them kept a 64-host all-to-all at a third of what 4 do),
    /// few enough that a SEND its receiver keeps refusing soon backs off (4.5, 13).
    static constexpr uint32_t kMarkedTransmissions = 4;
    /// The first due tail marker of `port`: a PROBE in the data class, or nullopt when none is
    /// due there (markers of flows taken down meanwhile are dropped).
    std::optional<OutPacket> SendTailMarker(uint16_t port, TimeNs now);

    /// Step 1 of ACK processing (7.2): acknowledges what `coverage` newly covers on `flow`;
    /// `ack` is the ACK it came in, or null for a repeat (which times nothing); `before`: the
    /// RACK as it was before the ACK.
    AckProgress AcknowledgeCovered(Flow& flow,
                                   const MrHeader* ack,
                                   const AckCoverage& coverage,
                                   const RackState& before,
                                   TimeNs now);
    /// Reads every repeat of `ack` into `out`; false when one names FSNs never sent (7.2).
    bool ReadRepeats(const MrHeader& ack, std::array<uint64_t, kMrMaxAckRepeats>& cumulative) const;
    /// Step 0 of ACK processing (7.2): what `repeat` (its cumulative FSN unwrapped) newly covers
    /// on its flow, acknowledged as the ACK it repeats would have been, without its echo, marks,
    /// hint or credit; `settles`: RepeatSettles(). Called for a repeat that may bring news: one
    /// that reaches past its flow's floor or SACKs something, or may settle a loss.
    void OnAckRepeat(const MrAckRepeat& repeat, uint64_t cumulative, bool settles, TimeNs now);

    /// True when a repeat of `flow` with this cumulative FSN may settle the flow's open losses:
    /// settling may rest on a SACK bit's absence (7.5), which only a repeat whose 16 bits span
    /// every FSN sent above its cumulative point can show.
    static bool RepeatSettles(const Flow& flow, uint64_t cumulative)
    {
        return flow.recentLosses && !flow.recentLosses->empty() &&
               flow.nextFsn <= cumulative + 1 + kMrAckRepeatSackBits;
    }

    /// Steps 2-3 of ACK processing (7.2): RTT sample (into `sample`), rate hint and credit.
    void OnAckFeedback(Flow& flow, const MrHeader& ack, AckSample& sample, TimeNs now);
    /// Steps 4-6 of ACK processing (7.2): health, congestion control, marks.
    void OnAckProgress(Flow& flow, uint16_t ceCount, AckProgress progress, TimeNs now);
    void AckData(const SentPacket& sent, TimeNs now);
    /// Feeds the reorder window with how late `p` was acknowledged behind the packet `before`
    /// (the RACK before the ACK) holds (4.6).
    void SampleLateness(const SentPacket& p,
                        const MrHeader& ack,
                        const RackState& before,
                        TimeNs now);
    /// Settles the flow's recently lost packets against an ACK (null: a repeat): spurious or
    /// not (spec 7.5).
    void SettleLosses(Flow& flow,
                      const MrHeader* ack,
                      const AckCoverage& coverage,
                      const RackState& before,
                      TimeNs now);

    /// Brings the per-flow deadline trees up to date with `flow`: called at the end of every
    /// call that changed it.
    void Refresh(Flow& flow);
    /// The earliest deadline of the time rule over all flows, kNever when none (spec 4.6);
    /// `ruleWindow`: ReorderWindowNs().
    TimeNs EarliestLossCheck(TimeNs ruleWindow) const;
    /// The flows OnTimeout() may have to act on at `now`, in flow order: a superset of those
    /// with a due loss check or retransmission timeout (in a member, reused: no allocation).
    const std::vector<uint16_t>& FlowsDueBy(TimeNs now, TimeNs ruleWindow);

    /// Takes the reorder floor that the loss evidence calls for at `now` (spec 4.6, A47): at the
    /// start of every event that may run the time rule, so that NextTimeout() answers for it.
    void FollowLossEvidence(TimeNs now);
    /// Measured reorder window of the connection (spec 4.6): the time rule's window and the
    /// tail-loss probe's wait.
    TimeNs ReorderWindowNs() const;
    /// The RTT estimate late packets are judged by (4.5, 4.6, A57): with judgeByNicRtt, while
    /// the NIC proved no loss lately, the NIC's as read at the connection's last event where its
    /// RTO is the longer; else the connection's own.
    const RttEstimator& JudgingRtt() const;
    /// The evidence `flow`'s packets are judged by.
    TimeRule TimeRuleFor(const Flow& flow, TimeNs ruleWindow) const;

    /// `flow`'s smoothed RTT, which the time rule waits for at least (A44), or 0 without a
    /// sample.
    static TimeNs TimeRuleFlowRtt(const Flow& flow)
    {
        return flow.rtt.HasSample() ? flow.rtt.Smoothed() : 0;
    }

    /// Rule 2's deadline for the oldest DATA of flow `flowId`, sent before the RACK packet.
    TimeNs RackLossDeadline(std::size_t flowId, TimeNs ruleWindow) const;

    /// The send time of flow `id`'s oldest in-flight DATA packet as of its last Refresh(), or
    /// kNever (a flow never used has none).
    TimeNs FirstDataAt(std::size_t id) const
    {
        const Flow* flow = m_flows.Find(static_cast<uint16_t>(id));
        return flow ? flow->firstDataAt : kNever;
    }

    /// True when queued data may still leave without an ACK first: some is queued and the
    /// receiver's admission leaves room for a full packet. When false, a tail-loss probe may be
    /// armed (spec 4.5, 8.5); without admission this is just "data is queued".
    bool MaySendMore() const;
    /// True when the receiver's admission (spec 8.5) lets `bytes` more DATA into flight.
    bool AdmissionAdmits(uint64_t bytes) const;
    /// The packet a tail-loss probe would send again (FindTail), without the scan when no
    /// probe can be due.
    std::optional<Tail> TailToProbe() const;
    /// When the time rule may next declare a packet of `flow` lost, or kNever.
    TimeNs LossCheckAt(const Flow& flow, TimeNs ruleWindow) const;
    void RunLossDetection(Flow& flow, TimeNs now);
    /// `byRule`: declared by loss detection (4.6), as opposed to a timeout or take-down;
    /// `proven`: by rule 1, a timeout or a take-down, not by the time rule, so that its
    /// retransmission is recovery a NIC may send ahead of other queue pairs' data
    /// (HasRecoveryWork).
    void MarkLost(Flow& flow, std::size_t index, TimeNs now, bool byRule, bool proven);
    /// Marks everything in flight on `flow` lost and releases the front.
    void LoseInFlight(Flow& flow, TimeNs now);
    /// Moves a packet's bytes out of the in-flight counts of `flow` and of the connection.
    void LeaveFlight(Flow& flow, const SentPacket& p);
    void OnFlowTimeout(Flow& flow, TimeNs now);
    /// When `flow`, whose oldest in-flight packet is `oldest` (null: none), times out: that
    /// packet's send time plus its RTO, or the later time its timer was deferred to; kNever
    /// when Down or idle (spec 4.5).
    TimeNs RtoDeadline(const Flow& flow, const SentPacket* oldest) const;
    /// `flow`'s RTO, for its oldest in-flight packet `oldest`, is due at `now`: defers it and
    /// returns true while better evidence is coming (the time rule's deadline, or the
    /// connection's progress; spec 4.5).
    bool DeferRto(const Flow& flow, const SentPacket& oldest, TimeNs now, TimeNs ruleWindow);
    void TakeDown(Flow& flow, TimeNs now);
    /// The flow of the burst under way on `port` if it may take a packet of `bytes` now, else
    /// -1: the burst ends, and `cut` says whether it ended early (spec 6.2, sprayBurstPackets).
    int ContinueBurst(uint16_t port, uint32_t bytes, bool& cut);

    /// A burst of packets on one flow of a port (6.2).
    struct Burst
    {
        uint16_t flow{0}; ///< the flow it is on
        uint32_t left{0}; ///< packets it may still take
    };

    const MetaRoceConfig& m_config; ///< the connection's, which outlives this requester
    ConnectionIds m_ids;            ///< the connection's identity (the configuration's is not)
    MemoryRegistry* m_memory;
    Counters& m_counters;
    std::unique_ptr<CongestionControl> m_cc;
    std::unique_ptr<FlowSelector> m_selector;
    FlowRecovery m_recovery; ///< before m_flows: its generator draws their first entropies

    FlowTable m_flows;
    std::bitset<kMaxPorts> m_portUp; ///< in the object: asked on every pull of every port
    RttEstimator m_connectionRtt;    ///< all flows' samples: the RTO of flows without their own
    RackState m_rack;                ///< newest acknowledged transmission, all flows (4.6)
    uint16_t m_deliveringFlow{0};    ///< the flow that last acknowledged new data (4.5)
    TimeNs m_lastProgressAt{0};      ///< when an ACK last acknowledged data in flight (4.5)
    /// Per flow, the time its RTO was deferred to (0: none), cleared by Refresh() when nothing
    /// is in flight on the flow (a timeout leaves nothing); empty until the first deferral, as
    /// most connections never wait that long (4.5).
    std::vector<TimeNs> m_rtoNotBefore;
    LossEvidence* m_evidence; ///< the NIC's last proven loss (4.6, A47) and its RTT (A57)
    RttEstimator m_nicRtt{0}; ///< m_evidence's RTT at FollowLossEvidence() where it may judge
    ReorderWindow m_reorder;  ///< reorder window of the time rule (4.6)
    uint64_t m_nextTxSeq{0};  ///< transmission order over all flows
    WindowState m_connectionWindow;
    uint64_t m_admissionLimit;   ///< AdmissionLimit()
    uint64_t m_inflightBytes{0}; ///< DATA in flight (PROBEs are held by no window, 9.1)
    SendQueue m_queue;
    Pacer m_pacer;
    TailLossProbe m_tailProbe;
    /// Flows owed a tail marker, in the order their tails left (few: one per tail).
    std::vector<uint16_t> m_markersDue;
    /// DATA transmissions in order, where TailToProbe() finds the tail; mutable as looking
    /// prunes entries that can never be the tail again, which changes no answer.
    mutable TailIndex m_tails;
    TimeNs m_now{0}; ///< latest time the requester was given

    // Per flow, as of its last Refresh() (every call that changes a flow ends with one):
    DeadlineTree m_rtoAt; ///< RtoDeadline(): kNever when Down or idle
    /// Transmission order of the oldest in-flight DATA packet, or kNever. Packets leave in
    /// that order, so its minimum is also the earliest sent (the first of a nanosecond's ties).
    /// Its send time is the flow's `firstDataAt`.
    DeadlineTree m_firstDataOrder;
    uint32_t m_downFlows{0};          ///< flows Down (their probes are looked at only then)
    std::vector<uint16_t> m_dueFlows; ///< FlowsDueBy()'s answer
    std::vector<Burst> m_bursts;      ///< per port when sprayBurstPackets > 1, else empty
    std::vector<TimeNs> m_lastDataAt; ///< per port: when DATA last left on it (kNever: never)
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_REQUESTER_H
