/*
 * MetaRoceSocket, part 2 of 2: the byte stream over the queue pair - Send() into the send
 * buffer, SENDs within the peer's credits, RECV completions into the receive queue - and the
 * end of the stream (shutdown, close). See the file comment of metaroce-socket.h.
 */
#include "metaroce-socket-factory.h"
#include "metaroce-socket.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-queue-pair.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSocketStream");

uint32_t
MetaRoceSocket::GetTxAvailable() const
{
    const uint64_t used = m_txBuffered + m_txPostedBytes;
    return used >= m_sndBufSize ? 0 : static_cast<uint32_t>(m_sndBufSize - used);
}

int
MetaRoceSocket::Send(Ptr<Packet> p, uint32_t flags)
{
    NS_LOG_FUNCTION(this << p);
    switch (m_state)
    {
    case State::Unbound:
    case State::Bound:
    case State::Listening:
        return Fail(ERROR_NOTCONN);
    case State::Closing:
    case State::Closed:
        return Fail(ERROR_SHUTDOWN);
    default:
        break;
    }
    if (m_shutdownSend)
    {
        return Fail(ERROR_SHUTDOWN);
    }
    const uint32_t size = p->GetSize();
    if (size > GetTxAvailable())
    {
        return Fail(ERROR_MSGSIZE); // all or nothing, as TcpTxBuffer::Add
    }
    m_txBuffered += size;
    m_txTrace(p);
    if (m_state == State::Connected)
    {
        ScheduleFlush();
    }
    return static_cast<int>(size);
}

int
MetaRoceSocket::SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress)
{
    return Send(p, flags); // a connection has one destination, as for TcpSocketBase
}

void
MetaRoceSocket::ScheduleFlush()
{
    if (m_txBuffered > 0 && !MetaRoceIsPending(m_flushEvent))
    {
        m_flushEvent = Simulator::ScheduleNow(&MetaRoceSocket::Flush, this);
    }
}

void
MetaRoceSocket::Flush()
{
    // Members are updated before each post: posting may deliver completions re-entrantly.
    while ((m_state == State::Connected || m_state == State::Closing) && m_txBuffered > 0 &&
           m_txPosted.size() < m_credits)
    {
        const uint64_t length = std::min<uint64_t>(m_txBuffered, m_peerMessageSize);
        m_txBuffered -= length;
        m_txPosted.push_back(length);
        m_txPostedBytes += length;
        m_qp->PostSend(SOCKET_STREAM, length);
    }
}

void
MetaRoceSocket::OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    NS_LOG_FUNCTION(this << c.wrId << metaroce::OpcodeName(c.op)
                         << metaroce::CompletionStatusName(c.status));
    if (c.status != metaroce::CompletionStatus::Success)
    {
        if (m_state != State::Closed)
        {
            m_errno = ERROR_NOTCONN;
            m_txBuffered = 0;
            SetState(State::Closed);
            if (!m_closeNotified)
            {
                m_closeNotified = true;
                NotifyErrorClose();
            }
        }
        return;
    }
    if (c.op == metaroce::Opcode::Send)
    {
        OnSendCompleted(c.bytes);
    }
    else if (c.op == metaroce::Opcode::Recv)
    {
        OnRecvCompleted(c.bytes);
    }
}

void
MetaRoceSocket::OnSendCompleted(uint64_t bytes)
{
    NS_ASSERT_MSG(!m_txPosted.empty(), "a SEND completed that the socket did not post");
    const uint64_t length = m_txPosted.front();
    NS_ASSERT_MSG(length == bytes, "SEND completed with " << bytes << " of " << length);
    m_txPosted.pop_front();
    m_txPostedBytes -= length;
    NotifyDataSent(static_cast<uint32_t>(length));
    NotifySend(GetTxAvailable());
    ScheduleFlush();
    MaybeFinish();
}

void
MetaRoceSocket::OnRecvCompleted(uint64_t bytes)
{
    // Re-post first, whatever happens to the data: the peer counts on it (flow control).
    m_qp->PostRecv(SOCKET_STREAM, m_maxMessageSize);
    if (m_shutdownRecv || m_state != State::Connected)
    {
        NS_LOG_LOGIC("discarding " << bytes << " bytes received after shutdown");
        return;
    }
    Ptr<Packet> p = Create<Packet>(static_cast<uint32_t>(bytes));
    m_rxQueue.push_back(p);
    m_rxBytes += bytes;
    m_rxTrace(p, InetSocketAddress(m_peerAddress, m_peerPort));
    NotifyDataRecv();
}

void
MetaRoceSocket::MaybeFinish()
{
    if (!m_finishRequested || m_finished ||
        (m_state != State::Connected && m_state != State::Closing) || m_txBuffered > 0 ||
        !m_txPosted.empty())
    {
        return;
    }
    NS_LOG_FUNCTION(this);
    m_finished = true;
    if (m_peer != nullptr)
    {
        Simulator::ScheduleNow(&MetaRoceSocket::OnPeerFinished, m_peer);
    }
    if (m_state == State::Closing)
    {
        SetState(State::Closed);
        Simulator::ScheduleNow(&MetaRoceSocket::NotifyClosedNormally, Ptr<MetaRoceSocket>(this));
    }
}

void
MetaRoceSocket::OnPeerFinished()
{
    NS_LOG_FUNCTION(this);
    m_peerFinished = true;
    NotifyClosedNormally();
}

void
MetaRoceSocket::NotifyClosedNormally()
{
    if (!m_closeNotified)
    {
        m_closeNotified = true;
        NotifyNormalClose();
    }
}

int
MetaRoceSocket::ShutdownSend()
{
    NS_LOG_FUNCTION(this);
    m_shutdownSend = true;
    if (m_state == State::Connecting || m_state == State::Connected)
    {
        m_finishRequested = true;
        MaybeFinish();
    }
    return 0;
}

int
MetaRoceSocket::ShutdownRecv()
{
    NS_LOG_FUNCTION(this);
    m_shutdownRecv = true;
    return 0;
}

int
MetaRoceSocket::Close()
{
    NS_LOG_FUNCTION(this << StateName(m_state));
    switch (m_state)
    {
    case State::Listening:
        m_factory->RemoveListener(m_localPort);
        [[fallthrough]];
    case State::Unbound:
    case State::Bound:
        SetState(State::Closed);
        return 0;
    case State::Connecting:
        m_shutdownSend = m_shutdownRecv = true;
        m_finishRequested = m_closeRequested = true;
        if (m_txBuffered == 0)
        {
            // Nothing to deliver: abandon the attempt, as TcpSocketBase does in SYN_SENT.
            m_establishEvent.Cancel();
            SetState(State::Closed);
        }
        return 0;
    case State::Connected:
        m_shutdownSend = m_shutdownRecv = true;
        m_finishRequested = m_closeRequested = true;
        SetState(State::Closing);
        MaybeFinish();
        return 0;
    case State::Closing:
        return 0;
    case State::Closed:
    default:
        return Fail(ERROR_BADF);
    }
}

uint32_t
MetaRoceSocket::GetRxAvailable() const
{
    return static_cast<uint32_t>(std::min<uint64_t>(m_rxBytes, UINT32_MAX));
}

Ptr<Packet>
MetaRoceSocket::Recv(uint32_t maxSize, uint32_t flags)
{
    NS_LOG_FUNCTION(this << maxSize);
    if (m_rxQueue.empty())
    {
        if (m_peerFinished)
        {
            return Create<Packet>(); // end of stream, as TcpSocketBase in CLOSE_WAIT
        }
        m_errno = ERROR_AGAIN;
        return nullptr;
    }
    if (maxSize == 0)
    {
        m_errno = ERROR_INVAL;
        return nullptr;
    }
    Ptr<Packet> head = m_rxQueue.front();
    const uint32_t size = head->GetSize();
    if (size <= maxSize)
    {
        m_rxQueue.pop_front();
        m_rxBytes -= size;
        return head;
    }
    m_rxQueue.front() = head->CreateFragment(maxSize, size - maxSize);
    m_rxBytes -= maxSize;
    return head->CreateFragment(0, maxSize);
}

Ptr<Packet>
MetaRoceSocket::RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress)
{
    Ptr<Packet> p = Recv(maxSize, flags);
    if (p != nullptr)
    {
        fromAddress = InetSocketAddress(m_peerAddress, m_peerPort);
    }
    return p;
}

} // namespace ns3
