/*
 * The MetaRoCE requester (spec 5): the sending half of a connection, and the place where its
 * parts meet. Each concern lives in its own file:
 *
 *   send-queue.h        messages: segmentation, retransmission FIFO, in-order completion,
 *                       error state (5.1, 5.6)
 *   requester-packets.h DATA and PROBE packets (3.3, 3.5)
 *   pacer.h             pacing at the receiver's rate hint (7.4)
 *   admission-credit.h  the receiver's admission credit (6.7): unscheduled window, then credit
 *   ack-coverage.h      what an ACK acknowledges on a path, and its validation (5.2)
 *   loss-detection.h    which in-flight packets are lost (5.3)
 *   plane-time-rule.h   the time rule's evidence per plane (5.3, rule 2a)
 *   spurious-loss.h     which declared losses an ACK proves spurious, and the undo (5.7)
 *   tail-loss-probe.h   the connection's tail-loss probe (5.5)
 *   metaroce-requester-markers.cc  tail markers behind a connection's last packets (5.5)
 *   path-recovery.h     RTO, suspect/down, probes back, entropy re-draws (4.3, 4.4, 5.5)
 *
 * This class keeps the paths and what is in flight on them and runs the steps: it sprays DATA
 * over the paths the selector picks, retransmits exactly the packets a SACK gap or the time
 * rule (connection-wide, and per plane when on) reveals as lost (under a fresh PSN, on
 * whichever path has room), and acts on timeouts and port events (metaroce-requester.cc);
 * its ACK processing, step by step, is in metaroce-requester-ack.cc.
 *
 * The paths are made on the first send, ACK or port event, so an end that only receives never
 * pays for them; their first entropies are the generator's first draws either way.
 *
 * Its deadlines are kept per path in DeadlineTrees (deadline-tree.h), brought up to date for
 * the paths a call changed (Refresh()), so that NextTimeout() and OnTimeout() do not walk every
 * path's state; NextTimeoutByScan() is the scan they must agree with (spec 2.3). The trees, the
 * retransmission timeout and its deferral, and the time rule's windows are in
 * metaroce-requester-deadlines.cc.
 */
#ifndef METAROCE_ENGINE_METAROCE_REQUESTER_H
#define METAROCE_ENGINE_METAROCE_REQUESTER_H

#include "../algorithms/congestion-control.h"
#include "../algorithms/path-selector.h"
#include "../common/deadline-tree.h"
#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "../common/transport-engine.h"
#include "ack-coverage.h"
#include "admission-credit.h"
#include "loss-evidence.h"
#include "metaroce-config.h"
#include "metaroce-path.h"
#include "metaroce-wire.h"
#include "pacer.h"
#include "path-recovery.h"
#include "path-table.h"
#include "plane-time-rule.h"
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
    /// connection's, `evidence` the connection's or its NIC's (5.3, A47); all must outlive it.
    MetaRoceRequester(const MetaRoceConfig& config,
                      const ConnectionIds& ids,
                      MemoryRegistry* memory,
                      Counters& counters,
                      std::vector<Completion>& completions,
                      LossEvidence& evidence,
                      std::unique_ptr<CongestionControl> cc,
                      std::unique_ptr<PathSelector> selector);

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

    /// Processes an ACK; returns false (and changes nothing) when it acknowledges PSNs never sent.
    bool OnAck(const MrHeader& ack, TimeNs now);

    /// Processes a NAK: the named message failed at the responder; the connection fails. Returns
    /// why it was refused instead (SendQueue::OnNak).
    std::optional<DropReason> OnNak(const MrHeader& nak, TimeNs now);

    /// Acts on every deadline <= `now`: loss checks, path timeouts, the tail-loss probe.
    void OnTimeout(TimeNs now);
    void OnPortState(uint16_t port, bool up, TimeNs now);

    /// Next data or probe packet for `port`, if one may go now; with `recoveryOnly` only what
    /// HasRecoveryWork announces (a tail marker, the tail-loss probe, the retransmission of a
    /// proven loss at the front of the queue), never new data nor a Down path's probe.
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
    /// waits (spec 4.2; TransportEngine::ContinuesBurst).
    bool ContinuesBurst(uint16_t port) const
    {
        return !m_bursts.empty() && m_bursts[port].left > 0 && m_queue.HasPacketToSend();
    }

    /// The earliest deadline (spec 2.3, NextTimeout contract), from the per-path trees.
    TimeNs NextTimeout() const;

    /// The same computed from scratch, a scan of every path: the definition NextTimeout()
    /// must agree with after every call (checked by the engine tests).
    TimeNs NextTimeoutByScan() const;
    /// True when the tail index (tail-index.h) finds the packet FindTail() does (tests).
    bool TailIndexAgrees() const;

    bool Idle() const
    {
        return m_queue.Empty();
    }

    /// The connection's paths; those never used are not made (path-table.h).
    const PathTable& Paths() const
    {
        return m_paths;
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

    /// Bytes the receiver admits in flight (spec 6.7): the unscheduled window before the first
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

    /// The RACK of the connection and of the ACK's plane, as they were before the ACK.
    struct RacksBefore
    {
        RackState connection;
        RackState plane; ///< invalid when the plane rule is off
    };

    bool Failed() const
    {
        return m_queue.GetState() == SendQueue::State::Failed;
    }

    /// Makes the paths and their deadline slots on the first call (spec 4.1).
    void MakePaths();
    /// New or retransmitted DATA for `port`, if the queue, the pacer and a window allow.
    std::optional<OutPacket> PullData(uint16_t port, TimeNs now, bool recoveryOnly);
    /// Addresses `out` to `path` and records it there as sent (a fresh PSN, in flight).
    void RecordSent(Path& path, OutPacket& out, uint64_t message, uint32_t index, TimeNs now);
    /// `burstGoesOn`: the next packet follows on `path` at once (4.2), so this one is not lone
    /// (AckLonePackets, 6.4).
    OutPacket SendData(Path& path,
                       const QueuedPacket& p,
                       bool retx,
                       TimeNs now,
                       bool burstGoesOn = false);
    /// A PROBE on the Down path `path`; an earlier probe still unanswered is given up (5.5).
    OutPacket SendProbe(Path& path, TimeNs now);
    /// The due tail-loss probe, on `path`: the tail packet it names, again, or nullopt when
    /// that packet has been delivered meanwhile (5.5).
    std::optional<OutPacket> SendTailProbe(Path& path, TimeNs now);
    /// After a DATA packet went on `path`, its `transmissions`-th: when nothing is left to
    /// send, a tail marker is due on `path` (5.5). `moreInMessage`: its message has packets
    /// still unsent, which spares asking the send queue.
    void NoteSentData(const Path& path, uint32_t transmissions, bool moreInMessage);
    /// A tail marker is due on `path` (once: a path owes at most one).
    void OweMarker(uint16_t path);
    /// True when `port` exists and is up and the connection has not failed.
    bool MaySendOn(uint16_t port) const;
    /// True when a tail marker or the tail-loss probe is due on `port`.
    bool TailDueOn(uint16_t port) const;
    /// Transmissions of a packet that a tail marker follows: enough for the losses of a lossy
    /// fabric (at 20% per path, 2 of them kept a 64-host all-to-all at a third of what 4 do),
    /// few enough that a SEND its receiver keeps refusing soon backs off (5.5, 11).
    static constexpr uint32_t kMarkedTransmissions = 4;
    /// The first due tail marker of `port`: a PROBE in the data class, or nullopt when none is
    /// due there (markers of paths taken down meanwhile are dropped).
    std::optional<OutPacket> SendTailMarker(uint16_t port, TimeNs now);

    /// Step 1 of ACK processing (5.2): acknowledges what `coverage` newly covers on `path`;
    /// `ack` is the ACK it came in, or null for a repeat (which times nothing).
    AckProgress AcknowledgeCovered(Path& path,
                                   const MrHeader* ack,
                                   const AckCoverage& coverage,
                                   const RacksBefore& before,
                                   TimeNs now);
    /// Reads every repeat of `ack` into `out`; false when one names PSNs never sent (5.2).
    bool ReadRepeats(const MrHeader& ack, std::array<uint64_t, kMrMaxAckRepeats>& cumulative) const;
    /// Step 0 of ACK processing (5.2): what `repeat` (its cumulative PSN unwrapped) newly covers
    /// on its path, acknowledged as the ACK it repeats would have been, without its echo, marks,
    /// hint or credit; `settles`: RepeatSettles(). Called for a repeat that may bring news: one
    /// that reaches past its path's floor or SACKs something, or may settle a loss.
    void OnAckRepeat(const MrAckRepeat& repeat, uint64_t cumulative, bool settles, TimeNs now);

    /// True when a repeat of `path` with this cumulative PSN may settle the path's open losses:
    /// settling may rest on a SACK bit's absence (5.7), which only a repeat whose 16 bits span
    /// every PSN sent above its cumulative point can show.
    static bool RepeatSettles(const Path& path, uint64_t cumulative)
    {
        return path.recentLosses && !path.recentLosses->empty() &&
               path.nextPsn <= cumulative + 1 + kMrAckRepeatSackBits;
    }

    /// Steps 2-3 of ACK processing (5.2): RTT sample (into `sample`), rate hint and credit.
    void OnAckFeedback(Path& path, const MrHeader& ack, AckSample& sample, TimeNs now);
    /// Steps 4-6 of ACK processing (5.2): health, congestion control, marks.
    void OnAckProgress(Path& path, uint16_t ceCount, AckProgress progress, TimeNs now);
    void AckData(const SentPacket& sent, TimeNs now);
    /// Snapshot of the RACK states an ACK on `path` may move, for its lateness samples.
    RacksBefore RacksBeforeAck(const Path& path) const;
    /// Feeds the reorder windows with how late `p`, sent on `path`, was acknowledged behind
    /// the packets `before` holds (5.3).
    void SampleLateness(const Path& path,
                        const SentPacket& p,
                        const MrHeader& ack,
                        const RacksBefore& before,
                        TimeNs now);
    /// Takes `p`, sent on `path` and acknowledged at `now`, into the RACK states (5.3).
    void OnDataAcked(const Path& path, const SentPacket& p, TimeNs now);
    /// Settles the path's recently lost packets against an ACK (null: a repeat): spurious or
    /// not (spec 5.7).
    void SettleLosses(Path& path,
                      const MrHeader* ack,
                      const AckCoverage& coverage,
                      const RacksBefore& before,
                      TimeNs now);

    /// Brings the per-path deadline trees up to date with `path`: called at the end of every
    /// call that changed it.
    void Refresh(Path& path);
    /// Brings the plane's oldest in-flight DATA packet up to date (plane rule on).
    void RefreshPlane(uint16_t port);
    /// The earliest deadline of the time rule over all paths, kNever when none (spec 5.3);
    /// `ruleWindow`: TimeRuleWindowNs().
    TimeNs EarliestLossCheck(TimeNs ruleWindow) const;
    /// The paths OnTimeout() may have to act on at `now`, in path order: a superset of those
    /// with a due loss check or retransmission timeout (in a member, reused: no allocation).
    const std::vector<uint16_t>& PathsDueBy(TimeNs now, TimeNs ruleWindow);

    /// Takes the reorder floor that the loss evidence calls for at `now` (spec 5.3, A47): at the
    /// start of every event that may run the time rule, so that NextTimeout() answers for it.
    void FollowLossEvidence(TimeNs now);
    /// Measured reorder window of the connection (spec 5.3); the tail-loss probe's wait.
    TimeNs ReorderWindowNs() const;
    /// The connection-wide time rule's window: the measured one, or with the plane rule on at
    /// least srtt + 4 rttvar (other planes' last hops may queue far deeper, 5.3).
    TimeNs TimeRuleWindowNs() const;
    /// The same, given the measured window ReorderWindowNs().
    TimeNs TimeRuleWindowNs(TimeNs measured) const;
    /// The plane rule's window on `port`.
    TimeNs PlaneWindowNs(uint16_t port) const;
    /// The evidence `path`'s packets are judged by.
    TimeRule TimeRuleFor(const Path& path, TimeNs ruleWindow) const;

    /// `path`'s smoothed RTT when the time rule uses it (A44) and it has a sample, else 0.
    TimeNs TimeRulePathRtt(const Path& path) const
    {
        return m_config.timeRulePathRtt && path.rtt.HasSample() ? path.rtt.Smoothed() : 0;
    }

    /// Rule 2's deadline for the oldest DATA of path `pathId`, sent before the RACK packet.
    TimeNs RackLossDeadline(std::size_t pathId, TimeNs ruleWindow) const;

    /// The send time of path `id`'s oldest in-flight DATA packet as of its last Refresh(), or
    /// kNever (a path never used has none).
    TimeNs FirstDataAt(std::size_t id) const
    {
        const Path* path = m_paths.Find(static_cast<uint16_t>(id));
        return path ? path->firstDataAt : kNever;
    }

    /// True when queued data may still leave without an ACK first: some is queued and the
    /// receiver's admission leaves room for a full packet. When false, a tail-loss probe may be
    /// armed (spec 5.5, 6.7); without admission this is just "data is queued".
    bool MaySendMore() const;
    /// True when the receiver's admission (spec 6.7) lets `bytes` more DATA into flight.
    bool AdmissionAdmits(uint64_t bytes) const;
    /// The packet a tail-loss probe would send again (FindTail), without the scan when no
    /// probe can be due.
    std::optional<Tail> TailToProbe() const;
    /// When the time rule may next declare a packet of `path` lost, or kNever.
    TimeNs LossCheckAt(const Path& path, TimeNs ruleWindow) const;
    void RunLossDetection(Path& path, TimeNs now);
    /// `byRule`: declared by loss detection (5.3), as opposed to a timeout or take-down;
    /// `proven`: by rule 1, a timeout or a take-down, not by the time rule, so that its
    /// retransmission is recovery a NIC may send ahead of other queue pairs' data
    /// (HasRecoveryWork).
    void MarkLost(Path& path, std::size_t index, TimeNs now, bool byRule, bool proven);
    /// Marks everything in flight on `path` lost and releases the front.
    void LoseInFlight(Path& path, TimeNs now);
    /// Moves a packet's bytes out of the in-flight counts of `path` and of the connection.
    void LeaveFlight(Path& path, const SentPacket& p);
    void OnPathTimeout(Path& path, TimeNs now);
    /// When `path`, whose oldest in-flight packet is `oldest` (null: none), times out: that
    /// packet's send time plus its RTO, or the later time its timer was deferred to; kNever
    /// when Down or idle (spec 5.5).
    TimeNs RtoDeadline(const Path& path, const SentPacket* oldest) const;
    /// `path`'s RTO, for its oldest in-flight packet `oldest`, is due at `now`: defers it and
    /// returns true while better evidence is coming (the time rule's deadline, or the
    /// connection's progress; spec 5.5).
    bool DeferRto(const Path& path, const SentPacket& oldest, TimeNs now, TimeNs ruleWindow);
    void TakeDown(Path& path, TimeNs now);
    /// The path of the burst under way on `port` if it may take a packet of `bytes` now, else
    /// -1: the burst ends, and `cut` says whether it ended early (spec 4.2, sprayBurstPackets).
    int ContinueBurst(uint16_t port, uint32_t bytes, bool& cut);

    /// A burst of packets on one path of a port (4.2).
    struct Burst
    {
        uint16_t path{0}; ///< the path it is on
        uint32_t left{0}; ///< packets it may still take
    };

    const MetaRoceConfig& m_config; ///< the connection's, which outlives this requester
    ConnectionIds m_ids;            ///< the connection's identity (the configuration's is not)
    MemoryRegistry* m_memory;
    Counters& m_counters;
    std::unique_ptr<CongestionControl> m_cc;
    std::unique_ptr<PathSelector> m_selector;
    PathRecovery m_recovery; ///< before m_paths: its generator draws their first entropies

    PathTable m_paths;
    std::bitset<kMaxPorts> m_portUp; ///< in the object: asked on every pull of every port
    RttEstimator m_connectionRtt;    ///< all paths' samples: the RTO of paths without their own
    RackState m_rack;                ///< newest acknowledged transmission, all paths (5.3)
    uint16_t m_deliveringPath{0};    ///< the path that last acknowledged new data (5.5)
    TimeNs m_lastProgressAt{0};      ///< when an ACK last acknowledged data in flight (5.5)
    /// Per path, the time its RTO was deferred to (0: none), cleared by Refresh() when nothing
    /// is in flight on the path (a timeout leaves nothing); empty until the first deferral, as
    /// most connections never wait that long (5.5).
    std::vector<TimeNs> m_rtoNotBefore;
    LossEvidence* m_evidence;            ///< the NIC's last proven loss (5.3, A47)
    ReorderWindow m_reorder;             ///< reorder window of the time rule (5.3)
    std::vector<PlaneTimeRule> m_planes; ///< per port when planeTimeRule is on, else empty
    uint64_t m_nextTxSeq{0};             ///< transmission order over all paths
    WindowState m_connectionWindow;
    uint64_t m_admissionLimit;   ///< AdmissionLimit()
    uint64_t m_inflightBytes{0}; ///< DATA in flight (PROBEs are held by no window, 7.1)
    SendQueue m_queue;
    Pacer m_pacer;
    TailLossProbe m_tailProbe;
    /// Paths owed a tail marker, in the order their tails left (few: one per tail).
    std::vector<uint16_t> m_markersDue;
    /// DATA transmissions in order, where TailToProbe() finds the tail; mutable as looking
    /// prunes entries that can never be the tail again, which changes no answer.
    mutable TailIndex m_tails;
    TimeNs m_now{0}; ///< latest time the requester was given

    // Per path, as of its last Refresh() (every call that changes a path ends with one):
    DeadlineTree m_rtoAt; ///< RtoDeadline(): kNever when Down or idle
    /// Transmission order of the oldest in-flight DATA packet, or kNever. Packets leave in
    /// that order, so its minimum is also the earliest sent (the first of a nanosecond's ties).
    /// Its send time is the path's `firstDataAt`.
    DeadlineTree m_firstDataOrder;
    uint32_t m_downPaths{0};          ///< paths Down (their probes are looked at only then)
    std::vector<uint16_t> m_duePaths; ///< PathsDueBy()'s answer
    std::vector<Burst> m_bursts;      ///< per port when sprayBurstPackets > 1, else empty
    std::vector<TimeNs> m_lastDataAt; ///< per port: when DATA last left on it (kNever: never)
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_REQUESTER_H
