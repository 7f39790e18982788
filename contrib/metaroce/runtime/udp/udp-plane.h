/*
 * The sockets of one plane (one NIC port) of the UDP runtime.
 *
 * A plane is a local IPv4 address and UDP port the peer sends to (4792 for MetaRoCE, 4791 for
 * RoCEv2, as on a real fabric) and the peer's address and port. The main socket, bound to the
 * local address and port, receives everything and sends what has no entropy socket.
 *
 * Path entropy. The engine names a UDP source port per packet (a MetaRoCE path's entropy, a
 * RoCEv2 queue pair's fixed port). A switch hashes it; the receiving engine never reads it. In
 * EntropyMode::Bind the plane sends each packet from a socket bound to (local address, that
 * source port), opened the first time the port is used, so that the datagram on the wire
 * really carries the engine's entropy: a capture shows it, and a Linux router between network
 * namespaces with a layer-4 multipath hash (fib_multipath_hash_policy=1) spreads it as an ECMP
 * switch would. On loopback nothing hashes, so the entropy only labels packets there; the
 * driver does not pretend otherwise. A source port that cannot be bound (in use, or more than
 * maxEntropySockets open) falls back to the main socket and is counted. EntropyMode::Fixed
 * sends everything from the main socket (one source port per plane, fewer file descriptors).
 */
#ifndef METAROCE_RUNTIME_UDP_PLANE_H
#define METAROCE_RUNTIME_UDP_PLANE_H

#include "udp-drop-reasons.h"

#include <cstdint>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <sys/uio.h>
#include <unordered_map>

namespace metaroce::udp
{

/**
 * Where a plane's datagrams come from and go to. The plane accepts a datagram only from its
 * peer: source address remoteAddr, and source port remotePort or one of the peer's path
 * entropy ports [peerSrcPortBase, peerSrcPortBase + peerSrcPortCount); anything else is
 * dropped and counted (udp-drop-reasons.h). The default range takes every source port of the
 * peer's address (the compliance suite's tester sends from any port a scenario names).
 */
struct PlaneEndpoint
{
    std::string localAddr{"127.0.0.1"}; ///< IPv4 address the plane's sockets bind to
    uint16_t localPort{4792};           ///< where the peer sends (the transport's UDP port)
    std::string remoteAddr{"127.0.0.1"};
    uint16_t remotePort{4792};
    uint16_t peerSrcPortBase{0};      ///< first entropy source port of the peer
    uint32_t peerSrcPortCount{65536}; ///< how many (0: the peer sends from remotePort only)
};

/// How the engine's UDP source port reaches the wire (see the file comment).
enum class EntropyMode : uint8_t
{
    Bind,  ///< send from a socket bound to the engine's source port
    Fixed, ///< send everything from the plane's main socket
};

/// Parses "a.b.c.d" into a socket address; throws std::invalid_argument naming `what`.
sockaddr_in ParseIpv4(const std::string& addr, uint16_t port, const std::string& what);

/// A datagram read from a plane.
struct ReceivedDatagram
{
    std::size_t size{0};
    bool ecnCe{false};  ///< the IP header's ECN field was CE (11)
    sockaddr_in from{}; ///< source address and port as the kernel saw them
};

/// What a plane's sockets did.
struct PlaneStats
{
    uint64_t entropySockets{0};   ///< source-port sockets opened (Bind)
    uint64_t entropyFallbacks{0}; ///< packets sent from the main socket instead (Bind)
    uint64_t sendWouldBlock{0};   ///< sendmsg() said EAGAIN: the packet is retried
    uint64_t sendErrors{0};       ///< sendmsg() failed otherwise: the packet is lost
    uint64_t truncated{0};        ///< datagrams larger than the receive buffer
};

/// One plane's sockets.
class UdpPlane
{
  public:
    /// Opens and binds the main socket; throws std::runtime_error naming the address.
    UdpPlane(const PlaneEndpoint& endpoint, EntropyMode mode, uint32_t maxEntropySockets);
    ~UdpPlane();
    UdpPlane(const UdpPlane&) = delete;
    UdpPlane& operator=(const UdpPlane&) = delete;

    /// The main socket (non-blocking): what an event loop watches for input.
    int Fd() const
    {
        return m_fd;
    }

    /**
     * Sends one datagram (`iov` gathers header and payload) to the peer from `srcPort`.
     * Returns the source port used, 0 when the socket would block (nothing was sent: retry),
     * or -1 after a hard error (counted; the packet is lost as on a wire). A non-zero `tos`
     * sets the IP TOS byte of this datagram (the ECN field: a tester marking CE).
     */
    int Send(uint16_t srcPort, const iovec* iov, int iovCount, uint8_t tos = 0);

    /// Reads one datagram into `buffer`; false when none is waiting.
    bool Receive(uint8_t* buffer, std::size_t capacity, ReceivedDatagram& out);

    /// Why a datagram from `from` is not the peer's (see PlaneEndpoint), or nothing.
    std::optional<UdpDropReason> Screen(const sockaddr_in& from) const;

    const PlaneEndpoint& Endpoint() const
    {
        return m_endpoint;
    }

    const sockaddr_in& LocalAddress() const
    {
        return m_local;
    }

    const sockaddr_in& RemoteAddress() const
    {
        return m_remote;
    }

    const PlaneStats& Stats() const
    {
        return m_stats;
    }

  private:
    /// The socket to send from `srcPort` (Bind mode), opening it if needed; -1: none.
    int EntropySocket(uint16_t srcPort);

    PlaneEndpoint m_endpoint;
    EntropyMode m_mode;
    uint32_t m_maxEntropySockets;
    sockaddr_in m_local{};
    sockaddr_in m_remote{};
    int m_fd{-1};
    std::unordered_map<uint16_t, int> m_entropyFds; ///< -1: could not be bound
    PlaneStats m_stats;
};

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_UDP_PLANE_H
