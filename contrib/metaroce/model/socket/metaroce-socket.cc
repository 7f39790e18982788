/*
 * MetaRoceSocket, part 1 of 2: the socket's life - attributes, states, bind, listen and the
 * out-of-band connection setup, addresses. The byte stream (send, receive, completions) and
 * the close are in metaroce-socket-stream.cc.
 */
#include "metaroce-socket.h"

#include "metaroce-socket-factory.h"

#include "ns3/inet-socket-address.h"
#include "ns3/inet6-socket-address.h"
#include "ns3/log.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-queue-pair.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSocket");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSocket);

namespace
{

using State = MetaRoceSocket::State;

constexpr std::size_t kStates = static_cast<std::size_t>(State::Closed) + 1;
constexpr std::array<const char*, kStates> kStateNames =
    {"unbound", "bound", "listening", "connecting", "connected", "closing", "closed"};

constexpr uint32_t
Bit(State s)
{
    return 1U << static_cast<uint32_t>(s);
}

/// kLegal[from] is the set of states `from` may move to. Unbound -> Connected is an accepted
/// socket, born connected.
constexpr std::array<uint32_t, kStates> kLegal = {
    Bit(State::Bound) | Bit(State::Connected) | Bit(State::Closed),      // Unbound
    Bit(State::Listening) | Bit(State::Connecting) | Bit(State::Closed), // Bound
    Bit(State::Closed),                                                  // Listening
    Bit(State::Connected) | Bit(State::Closed),                          // Connecting
    Bit(State::Closing) | Bit(State::Closed),                            // Connected
    Bit(State::Closed),                                                  // Closing
    0,                                                                   // Closed
};

} // namespace

const char*
MetaRoceSocket::StateName(State s)
{
    return kStateNames[static_cast<std::size_t>(s)];
}

TypeId
MetaRoceSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceSocket")
            .SetParent<Socket>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceSocket>()
            .AddAttribute("MaxMessageSize",
                          "Size of each posted RECV buffer, hence the largest SEND a peer cuts "
                          "the byte stream into (bytes).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&MetaRoceSocket::m_maxMessageSize),
                          MakeUintegerChecker<uint32_t>(1, 1U << 30))
            .AddAttribute("RecvBuffers",
                          "RECVs kept posted; also the most SENDs the peer keeps outstanding.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&MetaRoceSocket::m_recvBuffers),
                          MakeUintegerChecker<uint32_t>(1, 65535))
            .AddAttribute("SndBufSize",
                          "Send buffer: bytes accepted by Send() and not yet completed.",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&MetaRoceSocket::m_sndBufSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Tx",
                            "Application bytes accepted by Send().",
                            MakeTraceSourceAccessor(&MetaRoceSocket::m_txTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Rx",
                            "Application bytes arrived (one packet per RECV completion), with "
                            "the peer's address.",
                            MakeTraceSourceAccessor(&MetaRoceSocket::m_rxTrace),
                            "ns3::Packet::AddressTracedCallback")
            .AddTraceSource("State",
                            "The socket changed state.",
                            MakeTraceSourceAccessor(&MetaRoceSocket::m_stateTrace),
                            "ns3::MetaRoceSocket::StateTracedCallback");
    return tid;
}

MetaRoceSocket::MetaRoceSocket()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSocket::~MetaRoceSocket() = default;

void
MetaRoceSocket::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_establishEvent.Cancel();
    m_flushEvent.Cancel();
    if (m_qp != nullptr)
    {
        m_qp->SetCompletionCallback(MetaRoceQueuePair::CompletionCallback());
        m_qp = nullptr;
    }
    if (m_peer != nullptr)
    {
        // We stop re-posting RECVs: the peer must not post SENDs any more.
        m_peer->m_credits = 0;
        m_peer->m_peer = nullptr;
        m_peer = nullptr;
    }
    m_rxQueue.clear();
    m_factory = nullptr;
    m_nic = nullptr;
    m_node = nullptr;
    Socket::DoDispose();
}

void
MetaRoceSocket::SetFactory(Ptr<MetaRoceSocketFactory> factory, Ptr<Node> node)
{
    m_factory = factory;
    m_node = node;
    m_nic = node->GetObject<MetaRoceNic>();
}

void
MetaRoceSocket::SetTransport(metaroce::Transport transport)
{
    NS_ABORT_MSG_IF(m_qp != nullptr, "MetaRoceSocket::SetTransport: already connected");
    m_transport = transport;
}

metaroce::Transport
MetaRoceSocket::GetTransport() const
{
    return m_transport;
}

MetaRoceSocket::State
MetaRoceSocket::GetState() const
{
    return m_state;
}

Ptr<MetaRoceQueuePair>
MetaRoceSocket::GetQueuePair() const
{
    return m_qp;
}

void
MetaRoceSocket::SetState(State next)
{
    NS_ASSERT_MSG(kLegal[static_cast<std::size_t>(m_state)] & Bit(next),
                  "MetaRoceSocket: illegal transition " << StateName(m_state) << " -> "
                                                        << StateName(next));
    NS_LOG_INFO(this << " " << StateName(m_state) << " -> " << StateName(next));
    const State old = m_state;
    m_state = next;
    if (next == State::Closed && m_ownsPort && m_factory != nullptr)
    {
        m_factory->ReleasePort(m_localPort);
        m_ownsPort = false;
    }
    m_stateTrace(old, next);
}

int
MetaRoceSocket::Fail(SocketErrno error)
{
    m_errno = error;
    return -1;
}

Socket::SocketErrno
MetaRoceSocket::GetErrno() const
{
    return m_errno;
}

Socket::SocketType
MetaRoceSocket::GetSocketType() const
{
    return NS3_SOCK_STREAM;
}

Ptr<Node>
MetaRoceSocket::GetNode() const
{
    return m_node;
}

int
MetaRoceSocket::Bind(const Address& address)
{
    NS_LOG_FUNCTION(this << address);
    NS_ABORT_MSG_IF(m_factory == nullptr,
                    "MetaRoceSocket: create sockets with Socket::CreateSocket (the factory)");
    if (!InetSocketAddress::IsMatchingType(address))
    {
        return Fail(Inet6SocketAddress::IsMatchingType(address) ? ERROR_AFNOSUPPORT : ERROR_INVAL);
    }
    if (m_state != State::Unbound)
    {
        return Fail(ERROR_INVAL);
    }
    const InetSocketAddress inet = InetSocketAddress::ConvertFrom(address);
    const Ipv4Address ip = inet.GetIpv4();
    if (!ip.IsAny())
    {
        bool mine = false;
        for (uint32_t p = 0; p < m_nic->GetNPorts(); ++p)
        {
            mine = mine || m_nic->GetAddress(p) == ip;
        }
        if (!mine)
        {
            return Fail(ERROR_ADDRNOTAVAIL);
        }
    }
    const uint16_t port = m_factory->BindPort(inet.GetPort());
    if (port == 0)
    {
        return Fail(inet.GetPort() != 0 ? ERROR_ADDRINUSE : ERROR_ADDRNOTAVAIL);
    }
    m_localAddress = ip;
    m_localPort = port;
    m_ownsPort = true;
    SetState(State::Bound);
    return 0;
}

int
MetaRoceSocket::Bind()
{
    return Bind(InetSocketAddress(Ipv4Address::GetAny(), 0));
}

int
MetaRoceSocket::Bind6()
{
    return Fail(ERROR_AFNOSUPPORT);
}

int
MetaRoceSocket::Listen()
{
    NS_LOG_FUNCTION(this);
    if (m_state == State::Unbound && Bind() != 0)
    {
        return -1;
    }
    if (m_state != State::Bound)
    {
        return Fail(ERROR_INVAL);
    }
    m_factory->AddListener(m_localPort, this);
    SetState(State::Listening);
    return 0;
}

int
MetaRoceSocket::Connect(const Address& address)
{
    NS_LOG_FUNCTION(this << address);
    if (!InetSocketAddress::IsMatchingType(address))
    {
        return Fail(Inet6SocketAddress::IsMatchingType(address) ? ERROR_AFNOSUPPORT : ERROR_INVAL);
    }
    switch (m_state)
    {
    case State::Unbound:
        if (Bind() != 0)
        {
            return -1;
        }
        break;
    case State::Bound:
        break;
    case State::Listening:
        return Fail(ERROR_INVAL);
    case State::Closed:
        return Fail(ERROR_BADF);
    default:
        return Fail(ERROR_ISCONN);
    }
    const InetSocketAddress inet = InetSocketAddress::ConvertFrom(address);
    m_peerAddress = inet.GetIpv4();
    m_peerPort = inet.GetPort();
    SetState(State::Connecting);
    m_establishEvent = Simulator::ScheduleNow(&MetaRoceSocket::Establish, this);
    return 0;
}

void
MetaRoceSocket::Establish()
{
    NS_LOG_FUNCTION(this << m_peerAddress << m_peerPort);
    uint32_t plane = 0;
    Ptr<Node> owner = MetaRoceSocketFactory::FindOwner(m_peerAddress, plane);
    Ptr<MetaRoceNic> peerNic = owner != nullptr ? owner->GetObject<MetaRoceNic>() : nullptr;
    // No loopback: a NIC cannot hold both ends of a queue pair.
    if (owner == nullptr || owner == m_node || peerNic->GetNPorts() != m_nic->GetNPorts())
    {
        ConnectFailed(ERROR_NOROUTETOHOST);
        return;
    }
    if (owner->GetSystemId() != m_node->GetSystemId())
    {
        // A distributed run: the peer's queue pair would have to be made on its rank, now;
        // connections made during the run do not reach across ranks.
        std::clog << "MetaRoceSocket: node " << m_node->GetId() << " cannot connect to "
                  << m_peerAddress << ": that host is simulated by another MPI rank (sockets "
                  << "connect during the run; put both hosts on one rank, or use a collective or "
                  << "the flows workload)" << std::endl;
        ConnectFailed(ERROR_NOROUTETOHOST);
        return;
    }
    Ptr<MetaRoceSocketFactory> factory = owner->GetObject<MetaRoceSocketFactory>();
    Ptr<MetaRoceSocket> listener =
        factory != nullptr ? factory->FindListener(m_peerAddress, m_peerPort) : nullptr;
    const Ipv4Address local = m_nic->GetAddress(plane);
    const InetSocketAddress from(local, m_localPort);
    if (listener == nullptr || !listener->NotifyConnectionRequest(from))
    {
        ConnectFailed(ERROR_NOTCONN);
        return;
    }
    auto [mine, theirs] = MetaRoceNic::Connect(m_nic, peerNic, m_transport, plane);

    Ptr<MetaRoceSocket> accepted = CreateObject<MetaRoceSocket>();
    accepted->SetFactory(factory, owner);
    accepted->m_transport = m_transport;
    accepted->m_maxMessageSize = listener->m_maxMessageSize;
    accepted->m_recvBuffers = listener->m_recvBuffers;
    accepted->m_sndBufSize = listener->m_sndBufSize;
    accepted->m_shutdownSend = listener->m_shutdownSend; // as TcpSocketBase's Fork copies them
    accepted->m_shutdownRecv = listener->m_shutdownRecv;
    accepted->m_localPort = m_peerPort;
    accepted->m_peerAddress = local;
    accepted->m_peerPort = m_localPort;
    factory->Adopt(accepted);

    accepted->Attach(theirs, this, m_peerAddress);
    Attach(mine, accepted, local);
    listener->NotifyNewConnectionCreated(accepted, from);
    NotifyConnectionSucceeded();
    if (GetTxAvailable() > 0)
    {
        NotifySend(GetTxAvailable()); // as TcpSocketBase, right after the success
    }
    if (m_closeRequested && m_state == State::Connected)
    {
        SetState(State::Closing);
    }
    ScheduleFlush();
    MaybeFinish();
}

void
MetaRoceSocket::ConnectFailed(SocketErrno error)
{
    NS_LOG_FUNCTION(this << error);
    m_errno = error;
    m_txBuffered = 0;
    SetState(State::Closed);
    NotifyConnectionFailed();
}

void
MetaRoceSocket::Attach(Ptr<MetaRoceQueuePair> qp, Ptr<MetaRoceSocket> peer, Ipv4Address local)
{
    m_qp = qp;
    m_peer = peer;
    m_localAddress = local;
    m_credits = peer->m_recvBuffers;
    m_peerMessageSize = peer->m_maxMessageSize;
    qp->SetCompletionCallback(MakeCallback(&MetaRoceSocket::OnCompletion, this));
    SetState(State::Connected);
    for (uint32_t i = 0; i < m_recvBuffers; ++i)
    {
        qp->PostRecv(SOCKET_STREAM, m_maxMessageSize);
    }
}

int
MetaRoceSocket::GetSockName(Address& address) const
{
    address = InetSocketAddress(m_localAddress, m_localPort);
    return 0;
}

int
MetaRoceSocket::GetPeerName(Address& address) const
{
    if (m_state != State::Connected && m_state != State::Closing)
    {
        m_errno = ERROR_NOTCONN;
        return -1;
    }
    address = InetSocketAddress(m_peerAddress, m_peerPort);
    return 0;
}

bool
MetaRoceSocket::SetAllowBroadcast(bool allowBroadcast)
{
    return !allowBroadcast;
}

bool
MetaRoceSocket::GetAllowBroadcast() const
{
    return false;
}

} // namespace ns3
