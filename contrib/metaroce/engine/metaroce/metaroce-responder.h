/*
 * The MetaRoCE responder (spec 8): the receiving half of a connection.
 *
 * Every data packet names its own destination, so it is placed the moment it arrives, whatever
 * arrived before it: a WRITE at the remote address it carries, a SEND at its offset inside the
 * RECV buffer that its (stream, receive index) selects - even when earlier messages of the
 * stream are still missing. A per-message placement bitmap drops duplicates. Messages complete
 * (and SENDs produce RECV completions) in order per stream, so a SEND completion still implies
 * every earlier message of its stream has landed; in finish order (MetaRoceConfig::
 * completionOrder, spec 3.3) a SEND's RECV completes once the SEND is placed, and the message
 * still leaves its stream's records in order.
 *
 * Per flow the responder keeps the cumulative FSN and the SACK bitvector; its ACKs follow one
 * generation rule (spec 4.2). Arrivals are counted per connection and arrival plane, across
 * flows: an ACK leaves once ackEveryPackets packets of the plane are unacknowledged or the
 * oldest of them waited ackDelay, and at once for a packet that shows a gap on its flow, arrives
 * as a duplicate, carries an ECN mark or ACKREQ, or is the last of its message. It is the ACK of
 * the flow whose arrival sent it, and its additional contents (repeats) cover the plane's other
 * flows with unacknowledged packets, as they stand now, then the latest ACKs of other flows up
 * to ackRepeats, so that a lost ACK is rarely the last word. Every ACK carries the receiver's
 * fair-share rate hint: its inbound line rate divided among its active senders (the driver
 * supplies the share), and, under receiver admission, the sender's credit (admission-credit.h).
 * Placement and completion are in metaroce-responder.cc, the ACKs in metaroce-responder-ack.cc.
 *
 * The per-flow state is made when the connection first receives (a RECV posted, a DATA or
 * PROBE arriving), and a stream's when it is first used: an end that only sends never pays for
 * them, one that receives on one stream pays for that one.
 */
#ifndef METAROCE_ENGINE_METAROCE_RESPONDER_H
#define METAROCE_ENGINE_METAROCE_RESPONDER_H

#include "../common/deadline-tree.h"
#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "../common/lazy-slots.h"
#include "../common/ring.h"
#include "../common/transport-engine.h"
#include "admission-credit.h"
#include "flow-receive-window.h"
#include "metaroce-config.h"
#include "metaroce-wire.h"
#include "receiver-hints.h"

#include <boost/dynamic_bitset.hpp>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace metaroce
{

/// Receiving half of a MetaRoCE connection.
class MetaRoceResponder
{
  public:
    /// `config` (perhaps shared with other connections) and `counters` are the connection's and
    /// must outlive it; `peer` is the peer's connection id, which its ACKs and NAKs carry, and
    /// `peerInitialFsn` the FSN at which each of the peer's flows starts (spec 2.5).
    MetaRoceResponder(const MetaRoceConfig& config,
                      uint32_t peer,
                      uint32_t peerInitialFsn,
                      MemoryRegistry* memory,
                      Counters& counters);

    /// Queues a RECV buffer on its stream (already validated by the connection).
    void PostRecv(const WorkRequest& wr);

    /// A WRITE or SEND packet; `payload` is null in virtual-payload mode.
    RxResult OnData(const MrHeader& h, const uint8_t* payload, const RxPacket& pkt);

    /// A PROBE packet.
    RxResult OnProbe(const MrHeader& h, const RxPacket& pkt);

    void OnTimeout(TimeNs now);
    void OnPortState(uint16_t port, bool up);

    /// Next ACK or NAK for `port`, if one is due.
    std::optional<OutPacket> Pull(uint16_t port, TimeNs now);

    bool HasWork(uint16_t port) const;

    /// HasWork of every port at once, bit p for port p.
    uint64_t PortsWithWork() const
    {
        return m_feedbackPorts.to_ullong() & PortBits(m_config.ports);
    }

    TimeNs NextTimeout() const;
    void TakeCompletions(std::vector<Completion>& out);

    /// True when TakeCompletions() would append something.
    bool HasCompletions() const
    {
        return !m_completions.empty();
    }

    /// Sets the share of the inbound line rate advertised to this sender (bits/s).
    void SetFairShare(uint64_t bps)
    {
        m_fairShareBps = bps;
    }

    /// The fair share the next ACK advertises: the NIC's (ShareHints), once it set one, else
    /// SetFairShare()'s.
    uint64_t FairShare() const
    {
        return m_hints.FairShare().value_or(m_fairShareBps);
    }

    /// Sets this sender's share of the receiver's admission budget (bytes; 0: no admission,
    /// spec 8.5); the ACKs' credit moves towards it.
    void SetAdmissionTarget(uint64_t bytes)
    {
        m_credit.SetTarget(bytes);
    }

    /// The admission target the ACKs' credit moves towards: the NIC's (ShareHints), once it
    /// set one, else SetAdmissionTarget()'s.
    uint64_t AdmissionTarget() const
    {
        return m_hints.AdmissionTarget().value_or(m_credit.Target());
    }

    /// Reads the fair share and the admission target from `hints` once the NIC sets them.
    void ShareHints(const ReceiverHintsView& hints)
    {
        m_hints = hints;
    }

    /// Receive state of one flow, for tests and the compliance harness (an empty window
    /// before anything was received).
    FlowReceiveWindow Window(uint16_t flowId) const;

  private:
    /// 64 bytes: a receiving end makes one per flow it receives on (doc/performance.md).
    struct FlowRx
    {
        FlowReceiveWindow window;
        uint16_t unacked{0}; ///< saturates; compared with ackEveryPackets (<= 256)
        uint16_t ce{0};
        uint16_t fresh{0};
        bool queued{false};
        bool listed{false}; ///< in its plane's pending list (PlaneRx)
        TimeNs echo{0};
        TimeNs ackDue{kNever};
    };

    /// What one arrival plane owes the sender: the packets not yet acknowledged on any of its
    /// flows, and the flows holding them that wait for an ACK (not queued).
    struct PlaneRx
    {
        uint32_t unacked{0}; ///< the sum of its flows' FlowRx::unacked
        /// Flows with unacknowledged packets, in the order they first waited; a flow leaves
        /// when an ACK covers it, or lazily when it is queued on its own.
        Ring<uint16_t> pending;
    };

    struct Message
    {
        Opcode op{Opcode::Write};
        uint32_t length{0};
        uint32_t recvIndex{0};
        uint32_t packets{0};
        uint32_t placedPackets{0};
        bool completed{false}; ///< its RECV completion left before it was delivered in order
        boost::dynamic_bitset<> placed;
    };

    struct Stream
    {
        uint32_t nextMsn{0}; ///< next message to complete in order
        std::map<uint32_t, Message> messages;
        Ring<WorkRequest> recvs; ///< posted RECVs; front() has index recvBase
        uint32_t recvBase{0};
    };

    struct Nak
    {
        uint16_t stream;
        uint32_t msn;
        MrNakSyndrome syndrome;
    };

    /// Makes the per-flow slots and the ACK queues on the first call.
    void MakeState();
    /// The receive state of flow `id` (< m_flows.Size()), made now if it never was.
    FlowRx& Rx(uint16_t id);

    /// True when a NAK waits on `port`.
    bool NakQueued(uint16_t port) const
    {
        return !m_nakQueue.empty() && !m_nakQueue[port].empty();
    }

    /// Stream `id` (< streams), made with those below it on first use.
    Stream& StreamAt(uint16_t id);
    /// Checks placement without changing state; on refusal, may queue a NAK.
    RxResult CheckPlacement(const MrHeader& h, uint16_t port);
    void Place(const MrHeader& h, const uint8_t* payload, TimeNs now);
    void DeliverInOrder(Stream& s, uint16_t streamId, TimeNs now);
    /// Appends the RECV completion of SEND `m` of stream `streamId` as it finishes (finish
    /// order): the RECV its receive index names.
    void CompleteRecv(const Stream& s, const Message& m, uint16_t streamId, TimeNs now);
    void NoteArrival(FlowRx& rx, uint16_t flowId, const RxPacket& pkt, TimeNs echo, bool urgent);
    void QueueAck(uint16_t flowId);
    /// Marks flow `id` acknowledged (what it owed is in an ACK now); returns its fresh count.
    uint16_t Cover(uint16_t id);
    /// Adds to `ack` the plane's other flows with unacknowledged packets, as repeats of their
    /// state now (at most kMrMaxAckRepeats), and covers them; returns their fresh count.
    uint32_t AddPending(MrHeader& ack, uint16_t port);
    /// Gives the waiting flows of `port` their deadlines back after an ACK of the plane left,
    /// and queues the next ACK if one of them is due by `now`.
    void ResumePending(uint16_t port, TimeNs now);
    /// Fills `ack` up to ackRepeats repeats with the latest ACKs of flows it does not name yet,
    /// then remembers every flow it names among the latest (spec 4.2).
    void AddRepeats(MrHeader& ack, uint64_t sackLow);
    /// Puts `repeat` first among the latest ACKs, in place of its flow's earlier one or, the
    /// list full, of the oldest.
    void RememberLatest(const MrAckRepeat& repeat);
    /// Queues a NAK on `port`.
    void QueueNak(uint16_t port, const Nak& nak);
    /// Brings m_feedbackPorts up to date for `port` after its queues changed.
    void SyncFeedback(uint16_t port);
    /// Keeps m_ackDue in step with a flow's ackDue and queued (its deadline while not queued).
    void SyncAckDue(uint16_t flowId);
    uint16_t PortOf(uint16_t flowId) const;

    const MetaRoceConfig& m_config; ///< the connection's, which outlives this responder
    uint32_t m_peer;                ///< the peer's connection id
    uint32_t m_peerInitialFsn;      ///< where a flow's window starts before it received anything
    MemoryRegistry* m_memory;
    Counters& m_counters;
    uint64_t m_fairShareBps;
    AdmissionCredit m_credit;
    ReceiverHintsView m_hints; ///< the NIC's numbers for all its connections, if shared
    /// Per flow, made at the flow's first packet (a short flow uses a few of its flows);
    /// empty until MakeState().
    LazySlots<FlowRx> m_flows;
    DeadlineTree m_ackDue;         ///< per flow: ackDue while no ACK is queued, else kNever
    std::vector<uint16_t> m_due;   ///< OnTimeout()'s flows, reused
    std::vector<Stream> m_streams; ///< up to the highest stream used (StreamAt())
    std::vector<Ring<uint16_t>> m_ackQueue; ///< per port: flows with an ACK due now (MakeState())
    std::vector<PlaneRx> m_planes;          ///< per port (MakeState())
    std::vector<Ring<Nak>> m_nakQueue;      ///< per port, made at the first NAK (rare)
    /// Bit p: port p has an ACK or NAK queued. HasWork() is asked on every pull of every port
    /// and reads this word instead of two queues in memory of their own.
    std::bitset<kMaxPorts> m_feedbackPorts;
    std::vector<Completion> m_completions;
    /// The latest ACK sent for each of up to ackRepeats + 1 flows, the latest first: whichever
    /// flow the next ACK is for, ackRepeats others are among them.
    std::array<MrAckRepeat, kMrMaxAckRepeats + 1> m_latestAcks{};
    std::size_t m_latestCount{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_RESPONDER_H
