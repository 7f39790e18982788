#include "send-queue.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace metaroce
{

SendQueue::SendQueue(const MetaRoceConfig& config,
                     Counters& counters,
                     std::vector<Completion>& completions)
    : m_config(config)
    , m_counters(counters)
    , m_completions(completions)
{
}

void
SendQueue::Post(const WorkRequest& wr, TimeNs now)
{
    const uint64_t id = m_nextMessageId++;
    Message m;
    m.wr = wr;
    Stream& stream = StreamAt(wr.stream);
    m.msn = stream.nextMsn++;
    m.recvIndex = wr.op == Opcode::Send ? stream.nextRecvIndex++ : 0;
    m.packets = static_cast<uint32_t>((wr.length + m_config.mtu - 1) / m_config.mtu);
    m.acked.resize(m.packets);
    m.transmissions.assign(m.packets, 0);
    if (wr.op == Opcode::Write)
    {
        ++stream.unfinishedWrites;
    }
    m_messages.Add(id, std::move(m));
    stream.order.push_back(id);
    if (m_state == State::Failed)
    {
        Fail(CompletionStatus::Flushed, id, now);
        return;
    }
    m_unsent.push_back(id);
}

uint32_t
SendQueue::PacketBytes(const Message& m, uint32_t index) const
{
    const uint64_t offset = uint64_t{index} * m_config.mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(m_config.mtu, m.wr.length - offset));
}

std::optional<QueuedPacket>
SendQueue::Next()
{
    // Retransmissions first: they hold back completion of data already mostly delivered.
    while (!m_retransmit.empty())
    {
        const QueuedPacket p = m_retransmit.front();
        if (Undelivered(p.message, p.index) != nullptr)
        {
            return p;
        }
        m_retransmit.pop_front(); // delivered meanwhile (a late original was acknowledged)
    }
    const Message* m = FirstUnsent();
    if (m == nullptr)
    {
        return std::nullopt;
    }
    // A new message may start only inside the responder's message window (spec 3.4); the
    // posting order is kept, so a stream at its limit holds back later messages.
    const uint32_t oldest = At(m_streams[m->wr.stream].order.front()).msn;
    if (m->nextPacket == 0 && m->msn - oldest >= m_config.maxMessagesInFlight)
    {
        return std::nullopt;
    }
    return QueuedPacket{m_unsent.front(), m->nextPacket};
}

bool
SendQueue::HasPacketToSend() const
{
    if (!m_retransmit.empty())
    {
        return true;
    }
    // Fully sent messages leave the FIFO lazily (FirstUnsent): look past them.
    for (uint64_t id : m_unsent)
    {
        const Message* m = m_messages.Find(id);
        if (m != nullptr && m->HasUnsent())
        {
            return true;
        }
    }
    return false;
}

const SendQueue::Message*
SendQueue::FirstUnsent()
{
    // Fully sent messages leave the unsent FIFO lazily: drop them first.
    while (!m_unsent.empty())
    {
        const Message* m = m_messages.Find(m_unsent.front());
        if (m != nullptr && m->HasUnsent())
        {
            return m;
        }
        m_unsent.pop_front();
    }
    return nullptr;
}

bool
SendQueue::Take(const QueuedPacket& p)
{
    // Next() returns the front of the retransmission FIFO whenever that is not empty.
    Message* held = m_messages.Find(p.message);
    if (held == nullptr)
    {
        throw std::logic_error("SendQueue::Take: a packet Next() did not return");
    }
    Message& m = *held;
    const bool retx = !m_retransmit.empty();
    if (retx)
    {
        m_retransmit.pop_front();
    }
    else
    {
        ++m.nextPacket;
    }
    // Saturates: before the retry limit's time floor (7.4) a packet may go thousands of times.
    uint16_t& sent = m.transmissions[p.index];
    if (sent < std::numeric_limits<uint16_t>::max())
    {
        ++sent;
    }
    return retx;
}

const SendQueue::Message*
SendQueue::Undelivered(uint64_t message, uint32_t index) const
{
    const Message* m = m_messages.Find(message);
    if (m == nullptr || m->finished || m->acked[index])
    {
        return nullptr;
    }
    return m;
}

SendQueue::Message*
SendQueue::Undelivered(uint64_t message, uint32_t index)
{
    return const_cast<Message*>(std::as_const(*this).Undelivered(message, index));
}

const SendQueue::Message*
SendQueue::Resend(uint64_t message, uint32_t index)
{
    Message* m = Undelivered(message, index);
    if (m != nullptr)
    {
        ++m->transmissions[index];
    }
    return m;
}

void
SendQueue::Acknowledge(uint64_t message, uint32_t index, TimeNs now)
{
    Message* m = Undelivered(message, index);
    if (m == nullptr)
    {
        return;
    }
    m->acked[index] = true;
    if (++m->ackedPackets == m->packets)
    {
        Finish(*m, CompletionStatus::Success);
        if (m_config.Completions() == CompletionOrder::Finish)
        {
            Complete(*m, now);
            m->completed = true;
        }
        CompleteInOrder(m->wr.stream, now);
    }
}

bool
SendQueue::Requeue(uint64_t message, uint32_t index, TimeNs now, bool urgent, uint8_t lostOn)
{
    Message* m = Undelivered(message, index);
    if (m == nullptr)
    {
        return false;
    }
    if (m->firstLossAt == kNever)
    {
        m->firstLossAt = now;
    }
    // The limit fails a packet that cannot land, not one that meets a full port again and again
    // for a while (the end of a collective on a congested fabric): losses proven one after
    // another within microseconds fail the connection only once its message has been losing
    // packets for rtoMaxNs (7.4, A19).
    if (m->transmissions[index] > m_config.maxRetransmissions &&
        now - m->firstLossAt >= m_config.rtoMaxNs)
    {
        Fail(CompletionStatus::RetryExceeded, message, now);
        return false;
    }
    // Copies of a packet's first retransmission only: a lost copy or a lost retransmission goes
    // again once, so copies never multiply when every one of them is lost (a dead route).
    const uint32_t copies = m->transmissions[index] <= 1 ? RetransmitCopies() : 1;
    // A packet lost once goes on any plane; one lost again keeps off the plane of its last loss
    // (7.3), which a random loss rarely repeats and a dead plane always does.
    const uint8_t avoid = m->transmissions[index] >= 2 ? lostOn : QueuedPacket::kAnyPort;
    for (uint32_t copy = 0; copy < copies; ++copy)
    {
        m_retransmit.push_back(QueuedPacket{message, index, copy > 0, urgent, avoid});
    }
    return true;
}

uint32_t
SendQueue::RetransmitCopies()
{
    return FirstUnsent() != nullptr ? m_config.retransmitCopies : TailCopies();
}

uint32_t
SendQueue::TailCopies() const
{
    return std::max(m_config.retransmitCopies, m_config.tailRetransmitCopies);
}

void
SendQueue::QueueExtraCopies(uint64_t message, uint32_t index, uint32_t copies)
{
    for (uint32_t copy = 0; copy < copies; ++copy)
    {
        m_retransmit.push_front(QueuedPacket{message, index, true, true});
    }
}

std::optional<DropReason>
SendQueue::OnNak(uint16_t stream, uint32_t msn, TimeNs now)
{
    // Sent: below the stream's next MSN (MSNs are 32-bit and never wrap, spec 13).
    const bool sent = stream < m_streams.size() && msn < m_streams[stream].nextMsn;
    if (!sent)
    {
        return DropReason::BadField;
    }
    uint64_t culprit = 0;
    bool found = false;
    m_messages.ForEach([&](uint64_t id, const Message& m) {
        if (!found && m.wr.stream == stream && m.msn == msn && !m.finished)
        {
            culprit = id;
            found = true;
        }
    });
    if (!found)
    {
        return DropReason::Duplicate;
    }
    Fail(CompletionStatus::RemoteAccessError, culprit, now);
    return std::nullopt;
}

void
SendQueue::Fail(CompletionStatus status, uint64_t culprit, TimeNs now)
{
    // The culprit completes with its error and every other outstanding request is flushed, as
    // in an RC queue pair's error state (spec 7.4).
    m_state = State::Failed;
    m_messages.ForEach([&](uint64_t id, Message& m) {
        if (!m.finished)
        {
            Finish(m, id == culprit ? status : CompletionStatus::Flushed);
        }
    });
    for (std::size_t s = 0; s < m_streams.size(); ++s)
    {
        CompleteInOrder(static_cast<uint16_t>(s), now);
    }
    m_unsent.clear();
    m_retransmit.clear();
}

SendQueue::Stream&
SendQueue::StreamAt(uint16_t id)
{
    if (id >= m_streams.size())
    {
        m_streams.resize(id + 1);
    }
    return m_streams[id];
}

void
SendQueue::Finish(Message& m, CompletionStatus status)
{
    m.finished = true;
    m.status = status;
    if (m.wr.op == Opcode::Write)
    {
        --m_streams[m.wr.stream].unfinishedWrites;
    }
}

void
SendQueue::Complete(const Message& m, TimeNs now)
{
    m_completions.push_back(Completion{m.wr.id, m.wr.op, m.wr.stream, m.status, m.wr.length, now});
    ++m_counters.completions;
}

void
SendQueue::CompleteInOrder(uint16_t stream, TimeNs now)
{
    auto& order = m_streams[stream].order;
    while (!order.empty())
    {
        const uint64_t id = order.front();
        const Message* m = m_messages.Find(id);
        if (m == nullptr || !m->finished)
        {
            break;
        }
        if (!m->completed)
        {
            Complete(*m, now);
        }
        m_messages.Erase(id);
        order.pop_front();
    }
}

} // namespace metaroce
