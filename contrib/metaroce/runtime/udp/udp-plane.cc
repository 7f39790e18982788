#include "udp-plane.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace metaroce::udp
{

namespace
{

/// Receive buffer asked of the kernel: a window of 4 KiB datagrams arriving while the loop
/// is busy sending must not overflow it (an overflow is a silent drop, a real loss).
constexpr int kReceiveBufferBytes = 8 << 20;

/// ECN field of the IP TOS byte: CE.
constexpr uint8_t kEcnCe = 0x03;

std::string
Describe(const sockaddr_in& a)
{
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &a.sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}

/// A non-blocking UDP socket bound to `local`, or -1 with errno set.
int
OpenBound(const sockaddr_in& local, bool receiver)
{
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
    {
        return -1;
    }
    if (receiver)
    {
        // FORCE needs CAP_NET_ADMIN; without it the kernel caps SO_RCVBUF at rmem_max.
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &kReceiveBufferBytes, sizeof(int)) < 0)
        {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kReceiveBufferBytes, sizeof(int));
        }
        const int on = 1;
        setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &on, sizeof(on));
    }
    if (bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof(local)) < 0)
    {
        const int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

} // namespace

sockaddr_in
ParseIpv4(const std::string& addr, uint16_t port, const std::string& what)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1)
    {
        throw std::invalid_argument(what + "='" + addr + "': not an IPv4 address (a.b.c.d)");
    }
    return a;
}

UdpPlane::UdpPlane(const PlaneEndpoint& endpoint, EntropyMode mode, uint32_t maxEntropySockets)
    : m_endpoint(endpoint)
    , m_mode(mode)
    , m_maxEntropySockets(maxEntropySockets)
    , m_local(ParseIpv4(endpoint.localAddr, endpoint.localPort, "local address"))
    , m_remote(ParseIpv4(endpoint.remoteAddr, endpoint.remotePort, "remote address"))
{
    if (endpoint.peerSrcPortCount > 65536 - uint32_t{endpoint.peerSrcPortBase})
    {
        throw std::invalid_argument("PlaneEndpoint: peer source ports beyond 65535");
    }
    m_fd = OpenBound(m_local, true);
    if (m_fd < 0)
    {
        throw std::runtime_error("cannot bind UDP " + Describe(m_local) + ": " +
                                 std::strerror(errno));
    }
}

UdpPlane::~UdpPlane()
{
    for (const auto& [port, fd] : m_entropyFds)
    {
        if (fd >= 0)
        {
            close(fd);
        }
    }
    close(m_fd);
}

int
UdpPlane::EntropySocket(uint16_t srcPort)
{
    if (srcPort == m_endpoint.localPort)
    {
        return m_fd;
    }
    auto it = m_entropyFds.find(srcPort);
    if (it != m_entropyFds.end())
    {
        return it->second;
    }
    int fd = -1;
    if (m_stats.entropySockets < m_maxEntropySockets)
    {
        sockaddr_in local = m_local;
        local.sin_port = htons(srcPort);
        fd = OpenBound(local, false);
        m_stats.entropySockets += fd >= 0;
    }
    // A port that failed once is not retried: each retry would cost a socket() and a bind().
    m_entropyFds.emplace(srcPort, fd);
    return fd;
}

int
UdpPlane::Send(uint16_t srcPort, const iovec* iov, int iovCount, uint8_t tos)
{
    int fd = m_fd;
    int used = m_endpoint.localPort;
    if (m_mode == EntropyMode::Bind && srcPort != 0)
    {
        const int entropyFd = EntropySocket(srcPort);
        if (entropyFd >= 0)
        {
            fd = entropyFd;
            used = srcPort;
        }
        else
        {
            ++m_stats.entropyFallbacks;
        }
    }
    msghdr msg{};
    msg.msg_name = &m_remote;
    msg.msg_namelen = sizeof(m_remote);
    msg.msg_iov = const_cast<iovec*>(iov);
    msg.msg_iovlen = iovCount;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (tos != 0)
    {
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = IPPROTO_IP;
        c->cmsg_type = IP_TOS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        const int value = tos;
        std::memcpy(CMSG_DATA(c), &value, sizeof(int));
    }
    if (sendmsg(fd, &msg, 0) >= 0)
    {
        return used;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
    {
        ++m_stats.sendWouldBlock;
        return 0;
    }
    ++m_stats.sendErrors;
    return -1;
}

bool
UdpPlane::Receive(uint8_t* buffer, std::size_t capacity, ReceivedDatagram& out)
{
    iovec iov{buffer, capacity};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_name = &out.from;
    msg.msg_namelen = sizeof(out.from);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t n = recvmsg(m_fd, &msg, 0);
    if (n < 0)
    {
        return false;
    }
    if (msg.msg_flags & MSG_TRUNC)
    {
        ++m_stats.truncated;
    }
    out.size = static_cast<std::size_t>(n);
    out.ecnCe = false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c))
    {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
        {
            uint8_t tos = 0;
            std::memcpy(&tos, CMSG_DATA(c), 1);
            out.ecnCe = (tos & kEcnCe) == kEcnCe;
        }
    }
    return true;
}

std::optional<UdpDropReason>
UdpPlane::Screen(const sockaddr_in& from) const
{
    if (from.sin_family != AF_INET || from.sin_addr.s_addr != m_remote.sin_addr.s_addr)
    {
        return UdpDropReason::ForeignAddress;
    }
    const uint16_t port = ntohs(from.sin_port);
    const uint32_t entropy = uint32_t{port} - m_endpoint.peerSrcPortBase; // wraps when below
    if (from.sin_port != m_remote.sin_port && entropy >= m_endpoint.peerSrcPortCount)
    {
        return UdpDropReason::ForeignPort;
    }
    return std::nullopt;
}

} // namespace metaroce::udp
