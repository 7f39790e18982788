/*
 * The connection's tail-loss probe (spec 4.5, after TCP's tail loss probe, RFC 8985 7).
 *
 * The time rule of loss detection (4.6) judges a packet only once a packet sent after it has
 * been acknowledged; the tail has none. The probe waits for the tail's acknowledgement to be
 * overdue - by the time rule's own measure, and by at least what the connection's RTT spread
 * allows (srtt + 4 rttvar: a first window can sit behind an incast much longer than a packet
 * sent next to it) - and then sends the oldest such packet again, under a fresh FSN; its ACK
 * exposes the rest of the tail by the time rule. A probe, or its ACK, can be lost as well: the
 * first two probes are one wait apart, each further one twice the wait of the one before (at
 * most rtoMax), and probes after the first go where data was last delivered, so that they do
 * not pile up on a flow that keeps losing them. After maxTailProbes without progress the
 * retransmission timer is left to act. No probe before the first RTT sample.
 *
 * The RTT spread is what queues cost, and a probe sent while the tail only queues is a needless
 * copy: so the probe allows for it only while the NIC has seen no loss lately. With a loss proven
 * recently a late tail is more likely lost, and the probe waits the time rule's wait alone.
 * Before that, with tail markers, a tail whose marker brought no ACK within the time rule's wait
 * has its markers repeated: a marker costs a few dozen bytes where a probe resends a packet, so
 * it can go as soon as the ACK is overdue by the time rule's measure; a tail and its marker lost
 * together are then found one round trip after the repeat.
 */
#ifndef METAROCE_ENGINE_TAIL_LOSS_PROBE_H
#define METAROCE_ENGINE_TAIL_LOSS_PROBE_H

#include "flow-table.h"
#include "loss-detection.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"
#include "send-queue.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace metaroce
{

/// An in-flight DATA packet the time rule cannot judge yet, and its flow.
struct Tail
{
    const Flow* flow{nullptr};
    const SentPacket* packet{nullptr};
};

/// The oldest in-flight DATA packet still needed that no acknowledged packet was sent after,
/// over the flows that are not Down; nullopt when there is none. A retransmission whose
/// original has been acknowledged meanwhile is not needed.
std::optional<Tail> FindTail(const FlowTable& flows, const SendQueue& queue, const RackState& rack);

/// Tail-loss probe state of one requester.
class TailLossProbe
{
  public:
    enum class State : uint8_t
    {
        Waiting, ///< waiting for the tail's acknowledgement to be overdue
        Due,     ///< a probe is due on DueFlow()
    };

    explicit TailLossProbe(const MetaRoceConfig& config);

    /// New data was acknowledged: the probe count resets.
    void OnProgress();

    /// Whether a loss was proven on the NIC lately (4.6, A47): then a late tail is more likely
    /// lost than queued, and the probe waits the time rule's wait only.
    void FollowLossEvidence(bool recent)
    {
        m_lossRecent = recent;
    }

    /// A probe was sent at `now`: a further one waits from it.
    void OnProbeSent(TimeNs now);

    /// When the probe is due, or kNever: `dataQueued` when data waits to be sent (later
    /// packets follow then, and reveal a hole by the time rule); `tail` from FindTail().
    TimeNs DueAt(bool dataQueued,
                 const RackState& rack,
                 TimeNs reorderWindow,
                 const RttEstimator& connectionRtt,
                 const std::optional<Tail>& tail) const;

    /// When the markers behind the tail are to be repeated (spec 4.5), or kNever: only with
    /// tail markers, before a first probe, once per tail (OnRemarked()), at `tail`'s send time
    /// plus the time rule's wait (at least tailProbeMin), and only when that comes before the
    /// probe. Arguments as DueAt()'s.
    TimeNs RemarkAt(bool dataQueued,
                    const RackState& rack,
                    TimeNs reorderWindow,
                    const RttEstimator& connectionRtt,
                    const std::optional<Tail>& tail) const;

    /// The earlier of DueAt() and RemarkAt(): when the requester must next look at the tail.
    TimeNs WakeAt(bool dataQueued,
                  const RackState& rack,
                  TimeNs reorderWindow,
                  const RttEstimator& connectionRtt,
                  const std::optional<Tail>& tail) const;

    /// The markers behind every tail sent before transmission `nextTxSeq` were repeated.
    void OnRemarked(uint64_t nextTxSeq)
    {
        m_remarkedBefore = nextTxSeq;
    }

    /// Makes the probe Due when DueAt() has come at `now`: on the tail's flow for a first
    /// probe, unless that flow is Suspect; otherwise on `deliveringFlow` (the flow that last
    /// acknowledged new data) when that one is Up.
    void ArmIfDue(TimeNs now,
                  bool dataQueued,
                  const RackState& rack,
                  TimeNs reorderWindow,
                  const RttEstimator& connectionRtt,
                  const std::optional<Tail>& tail,
                  const Flow* deliveringFlow);

    /// False while a probe is Due or maxTailProbes went out without progress: no probe can be
    /// armed, and looking for a tail is wasted work.
    bool CanArm() const
    {
        return m_state == State::Waiting && m_probes < m_config.maxTailProbes;
    }

    /// True, and counts a probe, when the probe is due on `flow`.
    bool TakeIfDueOn(uint16_t flow);

    /// `flow` went down: a probe due on it is not sent.
    void Cancel(uint16_t flow);

    /// The flow the due probe goes out on.
    std::optional<uint16_t> DueFlow() const
    {
        return m_state == State::Due ? std::optional<uint16_t>(m_flow) : std::nullopt;
    }

    /// The packet the due (or just taken) probe sends again: its message id and index.
    uint64_t Message() const
    {
        return m_message;
    }

    uint32_t PacketIndex() const
    {
        return m_index;
    }

  private:
    /// RemarkAt() given the probe's DueAt() `probeAt`.
    TimeNs RemarkBefore(TimeNs probeAt,
                        const RackState& rack,
                        TimeNs reorderWindow,
                        const std::optional<Tail>& tail) const;

    const MetaRoceConfig& m_config;
    State m_state{State::Waiting};
    uint16_t m_flow{0};           ///< valid while Due
    uint64_t m_message{0};        ///< the tail packet, valid while Due
    uint32_t m_index{0};          ///<   and its index in the message
    uint32_t m_probes{0};         ///< probes since data was last acknowledged
    TimeNs m_lastProbeAt{0};      ///< when the last probe was sent
    uint64_t m_remarkedBefore{0}; ///< tails sent before this transmission had markers repeated
    bool m_lossRecent{false};     ///< FollowLossEvidence()
};

} // namespace metaroce

#endif // METAROCE_ENGINE_TAIL_LOSS_PROBE_H
