/*
 * RoceV2QueuePair: one end of a RoCEv2 reliable connection, the baseline MetaRoCE is measured
 * against (spec: RoCEv2 baseline). It implements TransportEngine, so drivers and experiments
 * swap transports with one setting.
 *
 * A real RC QP is both a requester (its send queue) and a responder (its receive queue); so is
 * this one. The queue pair itself only does what belongs to neither:
 *   - receive demultiplexing: port, parse (IbParse), destination QP, P_Key and path MTU checks,
 *     then requests to the responder, ACK/NAKs to the requester, CNPs to DCQCN. A packet
 *     refused here changes nothing but its drop counter;
 *   - transmit arbitration in PullPacket, in this order: the responder's ACK/NAK, a pending CNP
 *     (control is never paced), then the requester's next data packet if DCQCN's pacing allows;
 *   - DCQCN: the notification point turns CE marks on incoming requests into CNPs (at most one
 *     per interval), the reaction point sets the rate data is paced at. Pacing applies only
 *     below line rate: at line rate the port is the limit. Disabled, there are neither CNPs nor
 *     pacing;
 *   - the port: one, the configured one. While it is down nothing is sent; the retransmission
 *     timer keeps running, so a long outage ends in RetryExceeded as on a real NIC, and a short
 *     one is recovered by the timeout that follows it.
 *
 * Every packet goes to UDP port 4791 from the QP's fixed UDP source port: a RoCEv2 QP is one
 * ECMP path for its whole life, the property MetaRoCE's multipath removes.
 *
 * Known simplifications (spec: RoCEv2 baseline, "Scope"): no RDMA READ or atomics, no
 * immediate data, no PFC (a lossless fabric is the fabric's business), and an error state
 * that flushes the send queue only (the responder keeps serving its peer).
 */
#ifndef METAROCE_ENGINE_ROCEV2_QUEUE_PAIR_H
#define METAROCE_ENGINE_ROCEV2_QUEUE_PAIR_H

#include "../algorithms/dcqcn.h"
#include "../common/engine-memory.h"
#include "../common/transport-engine.h"
#include "rocev2-config.h"
#include "rocev2-requester.h"
#include "rocev2-responder.h"

namespace metaroce
{

/// One RoCEv2 RC queue pair.
class RoceV2QueuePair : public TransportEngine
{
  public:
    /// Validates `config` (std::invalid_argument on a bad field). `memory` is the NIC's
    /// protection domain and must outlive the queue pair.
    RoceV2QueuePair(const RoceV2Config& config, MemoryRegistry& memory);

    RoceV2QueuePair(const RoceV2QueuePair&) = delete;
    RoceV2QueuePair& operator=(const RoceV2QueuePair&) = delete;

    const char* Name() const override;
    void PostSend(const WorkRequest& wr, TimeNs now) override;
    void PostRecv(const WorkRequest& wr) override;
    RxResult OnPacket(const RxPacket& pkt) override;
    void OnTimeout(TimeNs now) override;
    void OnPortState(uint16_t port, bool up, TimeNs now) override;
    std::optional<OutPacket> PullPacket(uint16_t port, TimeNs now) override;
    std::optional<OutPacket> PullControlPacket(uint16_t port, TimeNs now) override;
    bool HasWork(uint16_t port) const override;
    bool HasControlWork(uint16_t port) const override;
    bool HasRecoveryWork(uint16_t port) const override;
    std::optional<OutPacket> PullRecoveryPacket(uint16_t port, TimeNs now) override;
    TimeNs NextTimeout() const override;
    std::vector<Completion> TakeCompletions() override;
    bool Idle() const override;
    const Counters& GetCounters() const override;

    const RoceV2Config& GetConfig() const;
    const RoceV2Requester& GetRequester() const;
    const RoceV2Responder& GetResponder() const;
    const DcqcnReactionPoint& GetReactionPoint() const;
    const DcqcnNotificationPoint& GetNotificationPoint() const;
    /// Earliest time the next data packet may leave (pacing), meaningful below line rate.
    TimeNs NextSendTime() const;

  private:
    /// Counts the refusal and returns it.
    RxResult Refuse(DropReason reason);
    /// Fills in port and UDP ports, and counts the packet as sent.
    void Stamp(OutPacket& pkt);
    /// Serialization time of `bytes` (plus frame overhead) at the current DCQCN rate.
    TimeNs PacingGap(std::size_t bytes) const;
    /// True when data is paced now (DCQCN on and below line rate).
    bool Pacing() const;

    RoceV2Config m_config;
    MemoryRegistry& m_memory;
    Counters m_counters;
    std::vector<Completion> m_cq;
    RoceV2Requester m_requester;
    RoceV2Responder m_responder;
    DcqcnReactionPoint m_rp;
    DcqcnNotificationPoint m_np;
    bool m_portUp{true};
    bool m_cnpPending{false};
    TimeNs m_nextSendTime{0};
    TimeNs m_now{0}; ///< latest time seen, so that NextTimeout() can tell pacing from idleness
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ROCEV2_QUEUE_PAIR_H
