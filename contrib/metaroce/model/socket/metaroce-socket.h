/*
 * MetaRoceSocket: a stream socket (NS3_SOCK_STREAM) over one MetaRoCE connection or one RoCEv2
 * queue pair, so that ns-3's own applications (BulkSendApplication, PacketSink,
 * OnOffApplication, ...) run over RDMA transports unchanged. Sockets come from a
 * MetaRoceSocketFactory aggregated to the node (see metaroce-socket-factory.h).
 *
 * Addressing. InetSocketAddress: the IPv4 address of any plane of the peer's NIC, and a port.
 * Ports live in the node's factory. For MetaRoCE the plane does not matter (a connection uses
 * every plane); for RoCEv2 the queue pair runs on the plane of the address connected to.
 * IPv6 is not supported (Bind6 fails with ERROR_AFNOSUPPORT).
 *
 * Connection setup is out of band and instantaneous, as if RDMA CM had already exchanged the
 * queue pair attributes: no handshake packet is on the wire. Connect() schedules, at the
 * current time, one step that finds the node owning the address (MetaRoceSocketFactory::
 * FindOwner) and its listener on the port, asks the listener's application
 * (NotifyConnectionRequest), creates the pair of queue pairs with MetaRoceNic::Connect, makes
 * the accepted socket (NotifyNewConnectionCreated) and tells the client
 * (NotifyConnectionSucceeded). If the address belongs to no node the connection fails with
 * ERROR_NOROUTETOHOST; if nobody listens, or the listener refuses, with ERROR_NOTCONN (ns-3 has
 * no ECONNREFUSED). Either way through NotifyConnectionFailed, never an abort.
 *
 * Data. The byte stream is carried as RDMA SENDs on stream 0 of the queue pair. Send() only
 * appends to the send buffer ("SndBufSize") and schedules a flush at the current time, so an
 * application that fills the buffer in one go gets large messages (as TCP defers by one time
 * step). The flush cuts the buffer into SENDs of at most the peer's "MaxMessageSize". The
 * receiver keeps "RecvBuffers" RECVs of MaxMessageSize posted and re-posts each one as it
 * completes; each RECV completion becomes a packet of that many virtual bytes in the receive
 * queue (NotifyDataRecv), which Recv()/RecvFrom() hand out, fragmented to maxSize.
 *
 * Flow control. A SEND that reaches a peer with no RECV posted is refused (MetaRoCE drops it
 * and retransmits, RoCEv2 answers RNR NAK and waits). The socket never lets that happen: it
 * keeps at most the peer's RecvBuffers SENDs outstanding (credits, learnt at setup). This is
 * sufficient because completions are in order per stream: when the k-th SEND completes the
 * k-th RECV has completed, and has been re-posted, before the acknowledgement left the peer.
 *
 * Send buffer. GetTxAvailable() = SndBufSize - (bytes buffered + bytes posted and not yet
 * completed). A SEND completion frees its bytes: NotifyDataSent(bytes), then
 * NotifySend(GetTxAvailable()). Send() errors follow TcpSocketBase: a packet larger than the
 * free space gives -1 and ERROR_MSGSIZE (nothing is taken), a socket never connected gives
 * ERROR_NOTCONN, one shut down for sending ERROR_SHUTDOWN.
 *
 * Close. ShutdownSend() and Close() stop Send() at once; once the buffered and outstanding
 * bytes have all completed, the peer is told (out of band, like setup: it gets
 * NotifyNormalClose and Recv() then returns an empty packet, the EOF of TcpSocketBase). After
 * Close() the socket itself also gets NotifyNormalClose then, and goes to Closed. Data that
 * arrives after ShutdownRecv() or Close() is discarded, but receive buffers keep being
 * re-posted so the peer never stalls. A work request that fails (e.g. RoCEv2 RetryExceeded
 * after a link failure) closes the socket with NotifyErrorClose.
 *
 * Limitations: no loopback (a node cannot connect to itself), no urgent data and no flags
 * (MSG_PEEK etc. are ignored), virtual payload only (Recv returns zero-filled packets of the
 * right size: contents and packet tags are not carried end to end), one Recv() returns at most
 * one RECV's worth of bytes, the connecting side's factory chooses the transport (the listener
 * accepts either), NICs must agree on Mtu/FlowsPerPort/Streams (MetaRoceNic::Connect aborts
 * otherwise), and the queue pair is not torn down on close (the NIC has no API for that; it
 * is disposed with the node, as are the sockets).
 */
#ifndef METAROCE_SOCKET_H
#define METAROCE_SOCKET_H

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"
#include "ns3/transport-engine.h"

#include <deque>

namespace ns3
{

class MetaRoceNic;
class MetaRoceQueuePair;
class MetaRoceSocketFactory;
class Node;
class Packet;

/**
 * \ingroup metaroce
 * \brief A reliable, in-order stream socket over a MetaRoCE connection or a RoCEv2 queue pair.
 */
class MetaRoceSocket : public Socket
{
  public:
    /// Socket states; transitions go through SetState(), which checks them.
    enum class State : uint8_t
    {
        Unbound,
        Bound,
        Listening,
        Connecting,
        Connected,
        Closing, ///< Close() was called; buffered and outstanding sends still draining
        Closed,
    };

    /// Printable name of a state.
    static const char* StateName(State s);

    /// TracedCallback signature for state changes.
    typedef void (*StateTracedCallback)(State oldState, State newState);

    static TypeId GetTypeId();
    MetaRoceSocket();
    ~MetaRoceSocket() override;

    /// Sets the node and factory; called by MetaRoceSocketFactory::CreateSocket().
    void SetFactory(Ptr<MetaRoceSocketFactory> factory, Ptr<Node> node);
    void SetTransport(metaroce::Transport transport);
    metaroce::Transport GetTransport() const;
    State GetState() const;
    /// The queue pair carrying this connection (nullptr until connected).
    Ptr<MetaRoceQueuePair> GetQueuePair() const;

    // ns3::Socket
    SocketErrno GetErrno() const override;
    SocketType GetSocketType() const override;
    Ptr<Node> GetNode() const override;
    int Bind(const Address& address) override;
    int Bind() override;
    int Bind6() override;
    int Close() override;
    int ShutdownSend() override;
    int ShutdownRecv() override;
    int Connect(const Address& address) override;
    int Listen() override;
    uint32_t GetTxAvailable() const override;
    int Send(Ptr<Packet> p, uint32_t flags) override;
    int SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress) override;
    uint32_t GetRxAvailable() const override;
    Ptr<Packet> Recv(uint32_t maxSize, uint32_t flags) override;
    Ptr<Packet> RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress) override;
    int GetSockName(Address& address) const override;
    int GetPeerName(Address& address) const override;
    /// Broadcast makes no sense on a connection: only `false` is accepted.
    bool SetAllowBroadcast(bool allowBroadcast) override;
    bool GetAllowBroadcast() const override;

  protected:
    void DoDispose() override;

  private:
    /// The stream the socket's bytes travel on (the queue pair carries nothing else).
    static constexpr uint16_t SOCKET_STREAM = 0;

    int Fail(SocketErrno error);
    void SetState(State next);
    /// The scheduled out-of-band connection setup (see the file comment).
    void Establish();
    void ConnectFailed(SocketErrno error);
    /// Makes this (accepted or connecting) socket the end of `qp` towards `peer`.
    void Attach(Ptr<MetaRoceQueuePair> qp, Ptr<MetaRoceSocket> peer, Ipv4Address local);
    void OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c);
    void OnSendCompleted(uint64_t bytes);
    void OnRecvCompleted(uint64_t bytes);
    void ScheduleFlush();
    /// Posts SENDs while there are buffered bytes and credits.
    void Flush();
    /// Sends the end of stream once ShutdownSend/Close was asked and everything has completed.
    void MaybeFinish();
    void OnPeerFinished();
    void NotifyClosedNormally();

    // Attributes.
    uint32_t m_maxMessageSize;
    uint32_t m_recvBuffers;
    uint32_t m_sndBufSize;

    Ptr<Node> m_node;
    Ptr<MetaRoceSocketFactory> m_factory;
    Ptr<MetaRoceNic> m_nic;
    metaroce::Transport m_transport{metaroce::Transport::MetaRoce};
    State m_state{State::Unbound};
    mutable SocketErrno m_errno{ERROR_NOTERROR}; ///< mutable: GetPeerName() const sets it

    Ipv4Address m_localAddress; ///< bound address (any), or the plane's address once connected
    uint16_t m_localPort{0};
    bool m_ownsPort{false}; ///< accepted sockets share their listener's port
    Ipv4Address m_peerAddress;
    uint16_t m_peerPort{0};
    EventId m_establishEvent;

    Ptr<MetaRoceQueuePair> m_qp;
    Ptr<MetaRoceSocket> m_peer; ///< the other end; cleared when either is disposed
    uint32_t m_credits{0};      ///< the peer's RecvBuffers
    uint32_t m_peerMessageSize{0};

    uint64_t m_txBuffered{0};        ///< accepted by Send(), not yet posted
    std::deque<uint64_t> m_txPosted; ///< lengths of posted, uncompleted SENDs, in order
    uint64_t m_txPostedBytes{0};
    EventId m_flushEvent;
    std::deque<Ptr<Packet>> m_rxQueue;
    uint64_t m_rxBytes{0};

    bool m_shutdownSend{false};
    bool m_shutdownRecv{false};
    bool m_finishRequested{false}; ///< ShutdownSend() or Close() on a connection
    bool m_closeRequested{false};  ///< Close() (not only ShutdownSend)
    bool m_finished{false};        ///< our end of stream was delivered to the peer
    bool m_peerFinished{false};
    bool m_closeNotified{false};

    TracedCallback<Ptr<const Packet>> m_txTrace;
    TracedCallback<Ptr<const Packet>, const Address&> m_rxTrace;
    TracedCallback<State, State> m_stateTrace;
};

} // namespace ns3

#endif // METAROCE_SOCKET_H
