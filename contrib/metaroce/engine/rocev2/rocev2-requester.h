/*
 * The RoCEv2 requester: the send queue of an RC queue pair (spec: RoCEv2 baseline, "Requester";
 * IBA vol. 1 ch. 9.7, "Reliable service", for the rules followed here).
 *
 * Each WRITE or SEND is cut into MTU-sized packets that take consecutive PSNs, assigned when the
 * request is posted. PSNs are 64-bit inside (they never wrap; IbPsnDelta maps the 24-bit wire
 * value back), so "first unacknowledged" (una), "next to send" and "highest ever sent" are plain
 * integers with una <= next <= nextAssigned.
 *
 * Recovery is go-back-N, the only one RoCEv2 has:
 *   - an ACK with PSN p acknowledges every PSN up to p (ACKs are cumulative, may be coalesced);
 *   - a PSN-sequence-error NAK with PSN p acknowledges everything below p and rewinds the send
 *     point to p: every packet from p onward is sent again, received or not;
 *   - an RNR NAK does the same after the advertised RNR delay;
 *   - a remote access or invalid request NAK fails the request holding p (RemoteAccessError;
 *     the engine has no separate "remote invalid request" status) and, as IB moves the QP to
 *     the error state, flushes every later request;
 *   - when nothing is acknowledged for the retransmission timeout, the send point rewinds to una;
 *     each timeout in a row doubles the next one, and after retryLimit of them the oldest request
 *     completes with RetryExceeded and the rest are flushed.
 * AckReq is set on the last packet of every message and on the packet that fills the window, so
 * a window never waits for an ACK the responder has no reason to send.
 *
 * Completions come in posting order, since PSNs are in posting order and ACKs are cumulative.
 * The requester knows nothing of pacing or ports: the queue pair decides when it may send.
 */
#ifndef METAROCE_ENGINE_ROCEV2_REQUESTER_H
#define METAROCE_ENGINE_ROCEV2_REQUESTER_H

#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "../common/engine-types.h"
#include "../common/transport-engine.h"
#include "rocev2-config.h"
#include "rocev2-wire.h"

#include <vector>

namespace metaroce
{

/// States of the requester. Keep kRoceV2RequesterStateNames in step.
enum class RoceV2RequesterState : uint8_t
{
    Ready,   ///< sends whenever the window and the queue allow
    RnrWait, ///< an RNR NAK asked it to wait before resending
    Error,   ///< a fatal completion happened: every request completes as Flushed
};

/// Printable name of a requester state.
const char* RoceV2RequesterStateName(RoceV2RequesterState state);

/// The send side of one RoCEv2 RC queue pair.
class RoceV2Requester
{
  public:
    /// `config`, `memory`, `counters` and `cq` must outlive the requester.
    RoceV2Requester(const RoceV2Config& config,
                    const MemoryRegistry& memory,
                    Counters& counters,
                    std::vector<Completion>& cq);

    /**
     * Queues a WRITE or SEND. Throws std::invalid_argument, changing nothing, on another opcode,
     * a zero or over-2^31 length, a stream other than 0 (an RC QP is one ordered stream), or a
     * non-zero local key whose region does not hold the source range. In the error state the
     * request completes at once as Flushed (as ibv_post_send does on a QP in error).
     */
    void Post(const WorkRequest& wr, TimeNs now);

    /// True when a packet could be sent as far as window and queue go (ignores RNR waiting).
    bool HasData() const;

    /// True when HasData() and no RNR delay is running at `now`.
    bool CanSend(TimeNs now) const;

    /// Builds the next packet (precondition: CanSend(now)) and advances the send point. The
    /// packet lacks port and UDP ports, which the queue pair fills in.
    OutPacket NextPacket(TimeNs now);

    /// Handles an ACKNOWLEDGE packet (ACK or NAK). Refuses (AckOutOfWindow) a PSN never sent.
    RxResult OnAcknowledge(const IbPacket& pkt, TimeNs now);

    /// Handles an expired RNR delay or retransmission timeout.
    void OnTimeout(TimeNs now);

    /// Earliest deadline (RNR delay end, retransmission timeout), or kNever.
    TimeNs NextTimeout() const;

    /// True when no request is waiting to complete.
    bool Idle() const;

    RoceV2RequesterState State() const;
    uint64_t UnackedPsn() const;     ///< first PSN not yet acknowledged (64-bit)
    uint64_t NextSendPsn() const;    ///< PSN the next NextPacket() will carry
    uint64_t HighestSentPsn() const; ///< one past the highest PSN ever sent
    uint32_t ConsecutiveTimeouts() const;

  private:
    /// One posted request and the PSNs it occupies.
    struct SendWqe
    {
        WorkRequest wr;
        uint64_t firstPsn;
        uint64_t lastPsn;
    };

    /// Moves to `next`; the only place that writes m_state.
    void SetState(RoceV2RequesterState next);
    /// Everything below `psn` is acknowledged: completes finished requests, restarts the timer.
    void AcknowledgeBelow(uint64_t psn, TimeNs now);
    /// Rewinds the send point to the first unacknowledged PSN.
    void GoBack();
    /// Completes the oldest request with `status`, flushes the rest, enters the error state.
    void Fail(CompletionStatus status, TimeNs now);
    void Complete(const WorkRequest& wr, CompletionStatus status, TimeNs now);
    /// The timeout after `m_timeouts` timeouts in a row.
    TimeNs CurrentRto() const;

    const RoceV2Config& m_config;
    const MemoryRegistry& m_memory;
    Counters& m_counters;
    std::vector<Completion>& m_cq;

    RoceV2RequesterState m_state{RoceV2RequesterState::Ready};
    Ring<SendWqe> m_sq;
    uint64_t m_nextAssign;      ///< PSN the next posted request starts at
    uint64_t m_una;             ///< first unacknowledged PSN
    uint64_t m_sendPsn;         ///< next PSN to transmit
    uint64_t m_maxSent;         ///< one past the highest PSN transmitted
    std::size_t m_sendIndex{0}; ///< index in m_sq of the request holding m_sendPsn
    TimeNs m_rtoDeadline{kNever};
    TimeNs m_rnrUntil{0};
    uint32_t m_timeouts{0};
    uint32_t m_rnrRetries{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ROCEV2_REQUESTER_H
