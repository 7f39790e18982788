/*
 * The RoCEv2 responder: the receive side of an RC queue pair (spec: RoCEv2 baseline,
 * "Responder"; IBA vol. 1 ch. 9.7, "Reliable service", for the rules followed here).
 *
 * It accepts packets strictly in order. For a request packet with PSN p and expected PSN e:
 *   - p < e, a duplicate: not placed again, counted (Duplicate) and answered by an ACK of e - 1,
 *     which is how a requester whose ACK was lost learns that it may go on;
 *   - p > e, out of sequence: dropped (OutOfSequence). The first one after e became expected
 *     sends a PSN-sequence-error NAK for e; the others of the same gap episode are dropped
 *     silently, since the requester rewinds once per NAK (IBA ch. 9.7: one NAK per e);
 *   - p = e: checked, placed, and e advances.
 * A packet refused at e because the request is wrong (bad R_Key, SEND with no RECV posted, SEND
 * longer than its RECV, opcode out of order) is answered by the NAK IB prescribes (remote access
 * error, RNR, invalid request) and opens a gap episode too. Such refusals are protocol
 * decisions, not parse errors: they may queue that answer (and an over-long SEND consumes its
 * RECV with LocalLengthError, as IB does), but they never place bytes or advance e.
 *
 * ACKs are coalesced: one after every ackEveryPackets in-order packets, and at once for a packet
 * with AckReq or the last packet of a message. The pending answer is built when the queue pair
 * pulls it, so it always carries the latest expected PSN: several triggers between two pulls make
 * one ACK. A NAK replaces a pending ACK (it acknowledges everything below its PSN); an in-order
 * packet arriving while a sequence NAK is pending replaces it by an ACK.
 *
 * WRITE data is placed through the MemoryRegistry, bounds- and key-checked on the first packet
 * for the whole message and again per packet. SEND data fills the oldest posted RECV. Bytes are
 * copied only in real-payload mode (the packet carried them and the region has backing bytes).
 */
#ifndef METAROCE_ENGINE_ROCEV2_RESPONDER_H
#define METAROCE_ENGINE_ROCEV2_RESPONDER_H

#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "../common/engine-types.h"
#include "../common/transport-engine.h"
#include "rocev2-config.h"
#include "rocev2-wire.h"

#include <optional>
#include <vector>

namespace metaroce
{

/// The receive side of one RoCEv2 RC queue pair.
class RoceV2Responder
{
  public:
    /// `config`, `memory`, `counters` and `cq` must outlive the responder.
    RoceV2Responder(const RoceV2Config& config,
                    MemoryRegistry& memory,
                    Counters& counters,
                    std::vector<Completion>& cq);

    /// Posts a RECV buffer. Throws std::invalid_argument, changing nothing, on another opcode, a
    /// stream other than 0, or a non-zero local key whose region does not hold the buffer.
    void PostRecv(const WorkRequest& wr);

    /// Handles a request packet (SEND or WRITE) that passed the queue pair's checks.
    RxResult OnRequest(const IbPacket& pkt, TimeNs now);

    /// True when an ACK or NAK waits to be sent.
    bool HasResponse() const;

    /// The pending ACK or NAK, if any, built now (port and UDP ports left to the queue pair).
    std::optional<OutPacket> TakeResponse();

    uint64_t ExpectedPsn() const; ///< 64-bit expected PSN
    uint32_t Msn() const;         ///< messages completed (24-bit on the wire)
    std::size_t PostedRecvs() const;

  private:
    enum class Response : uint8_t
    {
        None,
        Ack,
        Nak,
    };

    /// The message being received (between its FIRST and LAST packets).
    struct Inbound
    {
        bool active{false};
        bool write{false};
        uint64_t offset{0}; ///< bytes of the message already placed
        uint64_t length{0}; ///< WRITE: the RETH DMA length
        uint64_t va{0};     ///< WRITE: the RETH virtual address
        uint32_t rkey{0};   ///< WRITE: the RETH R_Key
    };

    /// Refuses the packet at the expected PSN and queues a NAK (once per gap episode).
    RxResult RefuseWithNak(DropReason reason, uint8_t syndrome);
    /// Checks and places a WRITE packet; nullopt when accepted, else the refusal.
    std::optional<RxResult> PlaceWrite(const IbPacket& pkt);
    /// Checks and places a SEND packet; nullopt when accepted, else the refusal.
    std::optional<RxResult> PlaceSend(const IbPacket& pkt, TimeNs now);
    void Complete(const WorkRequest& wr, CompletionStatus status, uint64_t bytes, TimeNs now);

    const RoceV2Config& m_config;
    MemoryRegistry& m_memory;
    Counters& m_counters;
    std::vector<Completion>& m_cq;

    Ring<WorkRequest> m_recvs;
    Inbound m_inbound;
    uint64_t m_epsn;
    uint32_t m_msn{0};
    bool m_nakSent{false}; ///< a NAK was sent for m_epsn: the gap episode is answered
    Response m_response{Response::None};
    uint8_t m_nakSyndrome{0};
    uint64_t m_nakPsn{0};
    uint32_t m_sinceAck{0}; ///< in-order packets since the last ACK or NAK
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ROCEV2_RESPONDER_H
