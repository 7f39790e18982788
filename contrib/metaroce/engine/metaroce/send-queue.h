/*
 * The requester's send queue (spec 7.1, 7.4): the posted WRITE and SEND messages, how much of
 * each has been sent and acknowledged, which packets wait to be (re)sent, and completion in
 * posting order per stream.
 *
 * A message is segmented lazily: it is a cursor over its MTU-sized packets, so posting costs
 * the same whatever the length. Lost packets wait in a FIFO that goes before new data: they
 * hold back completion of messages already mostly delivered (7.1). A new message may start
 * only inside the responder's message window (3.4). A message finishes when its last packet is
 * acknowledged; completions leave per stream in posting order, or, in finish order
 * (MetaRoceConfig::completionOrder, spec 3.3), each as its message finishes. A finished message
 * stays held until the messages before it in its stream finished too, so the message window
 * counts from the oldest unfinished message in both orders.
 *
 * The queue is Open or Failed. A retry limit exceeded or a NAK fails it as an RC queue pair
 * enters its error state (7.4): the culprit completes with its error, every other outstanding
 * request is flushed, and a request posted later is flushed at once.
 */
#ifndef METAROCE_ENGINE_SEND_QUEUE_H
#define METAROCE_ENGINE_SEND_QUEUE_H

#include "../common/engine-counters.h"
#include "../common/engine-types.h"
#include "../common/id-slots.h"
#include "metaroce-config.h"

#include <boost/dynamic_bitset.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace metaroce
{

/// A packet of a message, by message id and index within the message.
struct QueuedPacket
{
    uint64_t message;
    uint32_t index;
    /// A retransmission's extra copy (MetaRoceConfig::retransmitCopies): redundancy that the
    /// windows do not hold back.
    bool extraCopy{false};
    /// A retransmission of a packet proven lost (not judged late by the time rule): recovery
    /// that a NIC may send ahead of other queue pairs' data.
    bool urgent{false};
    /// A retransmission of a packet lost more than once: the port (plane) of its last loss,
    /// which it leaves to the connection's other ports while one is up
    /// (MetaRoceConfig::retransmitOtherPlane); kAnyPort: none.
    uint8_t lostOn{kAnyPort};

    static constexpr uint8_t kAnyPort = 0xff;
};

/// Messages of a requester, from posting to completion.
class SendQueue
{
  public:
    enum class State : uint8_t
    {
        Open,   ///< messages are sent and completed
        Failed, ///< error state: everything completes as flushed (spec 7.4)
    };

    /// A posted WRITE/SEND and how much of it has been sent and acknowledged.
    struct Message
    {
        WorkRequest wr;
        uint32_t msn{0};
        uint32_t recvIndex{0};
        uint32_t packets{0};
        uint32_t nextPacket{0}; ///< segmentation cursor
        uint32_t ackedPackets{0};
        boost::dynamic_bitset<> acked;
        std::vector<uint16_t> transmissions; ///< per packet, to enforce maxRetransmissions
        TimeNs firstLossAt{kNever};          ///< when a packet of it was first declared lost
        bool finished{false};
        bool completed{false}; ///< its completion left before it reached its stream's front
        CompletionStatus status{CompletionStatus::Success};

        /// True while packets of it were never sent (and it has not finished).
        bool HasUnsent() const
        {
            return !finished && nextPacket < packets;
        }
    };

    /// Finished work requests are appended to `completions`, which the connection owns and
    /// drains: taking them changes nothing the requester's deadline depends on.
    SendQueue(const MetaRoceConfig& config,
              Counters& counters,
              std::vector<Completion>& completions);

    /// Queues a WRITE or SEND (already validated); in the Failed state it is flushed at once.
    void Post(const WorkRequest& wr, TimeNs now);

    /// The next packet to send: the oldest lost one, else the next new one, or nullopt.
    std::optional<QueuedPacket> Next();

    /// Takes `p`, just returned by Next(), for transmission. True for a retransmission.
    bool Take(const QueuedPacket& p);

    /// Counts one more transmission of a packet sent again outside the queue (a tail-loss
    /// probe); returns its message, or nullptr when the packet needs no delivery any more.
    const Message* Resend(uint64_t message, uint32_t index);

    /// True while packet `index` of `message` still has to be delivered.
    bool Needs(uint64_t message, uint32_t index) const
    {
        return Undelivered(message, index) != nullptr;
    }

    /// Packet `index` of `message` arrived; finishes and completes the message on its last.
    void Acknowledge(uint64_t message, uint32_t index, TimeNs now);

    /**
     * Packet `index` of `message` was declared lost (`urgent`: proven lost): queues it again,
     * in RetransmitCopies() copies if it had been sent once, else once, and returns true; or
     * returns false when it needs no retransmission (delivered, or its message finished) or has
     * used up its retransmissions (then the queue fails, spec 7.4).
     */
    bool Requeue(uint64_t message,
                 uint32_t index,
                 TimeNs now,
                 bool urgent,
                 uint8_t lostOn = QueuedPacket::kAnyPort);

    /// Copies to send of a first retransmission now: the configured copies, at least the tail
    /// copies once no new data is left to send (spec 7.3).
    uint32_t RetransmitCopies();

    /// Copies to send of a retransmission at the tail (spec 7.3): a tail-loss probe's always.
    uint32_t TailCopies() const;

    /// Queues `copies` extra copies of a packet sent again outside the queue (a tail-loss
    /// probe), which go before other retransmissions, urgent (its timer is evidence enough), and
    /// the windows do not hold back.
    void QueueExtraCopies(uint64_t message, uint32_t index, uint32_t copies);

    /**
     * The responder refused message `msn` of `stream` (a NAK): the queue fails. Returns nothing
     * when it did, Duplicate when the message already finished (another of its packets was
     * refused first), BadField when the message was never sent (spec 5.8).
     */
    std::optional<DropReason> OnNak(uint16_t stream, uint32_t msn, TimeNs now);

    /// Message `message`, which must still be held (throws std::out_of_range otherwise).
    const Message& At(uint64_t message) const
    {
        const Message* m = m_messages.Find(message);
        if (m == nullptr)
        {
            throw std::out_of_range("SendQueue: no message " + std::to_string(message));
        }
        return *m;
    }

    /// Payload bytes of packet `index` of `m`.
    uint32_t PacketBytes(const Message& m, uint32_t index) const;

    /// True when packets wait in the queue (new or lost ones); the window may still hold them.
    bool HasQueued() const
    {
        return !m_unsent.empty() || !m_retransmit.empty();
    }

    /// True when a retransmission or a packet of a message not yet wholly sent waits: what
    /// Next() looks at, without dropping what it would drop (retransmissions delivered since,
    /// the stream's message window aside).
    bool HasPacketToSend() const;

    /// True when the first retransmission queued is urgent (QueuedPacket::urgent); it may have
    /// been delivered since, until Next() drops it.
    bool UrgentRetransmissionFirst() const
    {
        return !m_retransmit.empty() && m_retransmit.front().urgent;
    }

    State GetState() const
    {
        return m_state;
    }

    /// True when a WRITE posted on `stream` has not finished: a SEND posted now would not
    /// follow it in finish order (CompletionOrder::Finish).
    bool WriteUnfinished(uint16_t stream) const
    {
        return stream < m_streams.size() && m_streams[stream].unfinishedWrites > 0;
    }

    /// True when every posted message has completed.
    bool Empty() const
    {
        return m_messages.Empty();
    }

  private:
    /// The oldest message with a packet never sent, dropping fully sent ones; or nullptr.
    const Message* FirstUnsent();
    /// The queue's message still waiting for packet `index`, or nullptr.
    const Message* Undelivered(uint64_t message, uint32_t index) const;
    Message* Undelivered(uint64_t message, uint32_t index);
    void Fail(CompletionStatus status, uint64_t culprit, TimeNs now);
    /// Marks `m` finished with `status` (it was not).
    void Finish(Message& m, CompletionStatus status);
    /// Appends the completion of `m`.
    void Complete(const Message& m, TimeNs now);
    /// Releases the finished messages at the front of `stream`, completing those whose
    /// completion has not left yet.
    void CompleteInOrder(uint16_t stream, TimeNs now);

    const MetaRoceConfig& m_config;
    Counters& m_counters;
    State m_state{State::Open};
    uint64_t m_nextMessageId{0};
    IdSlots<Message> m_messages;     ///< by id, dealt in posting order
    Ring<uint64_t> m_unsent;         ///< messages with packets never sent, FIFO
    Ring<QueuedPacket> m_retransmit; ///< lost packets, FIFO

    /// Per stream: what posting numbers and orders; a connection usually uses one stream of
    /// many, so the vector grows to the highest stream posted on (StreamAt()).
    struct Stream
    {
        Ring<uint64_t> order; ///< message ids in posting order
        uint32_t nextMsn{0};
        uint32_t nextRecvIndex{0};
        uint32_t unfinishedWrites{0}; ///< WRITEs posted and not finished
    };

    /// Stream `id`, made with those below it on first use.
    Stream& StreamAt(uint16_t id);

    std::vector<Stream> m_streams;
    std::vector<Completion>& m_completions;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_SEND_QUEUE_H
