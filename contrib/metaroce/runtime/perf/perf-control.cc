#include "perf-control.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace metaroce::perf
{

namespace
{

/// Longest key, and how much of a bad line an error quotes.
constexpr std::size_t kMaxKeyBytes = 32;
constexpr std::size_t kQuotedBytes = 48;

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

bool
WaitReadable(int fd, double seconds)
{
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, static_cast<int>(seconds * 1000)) > 0;
}

bool
Printable(char c)
{
    return c >= 0x20 && c <= 0x7e;
}

bool
KeyChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/// `text` cut to kQuotedBytes with what is not printable shown as '?', for an error line.
std::string
Quote(const std::string& text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size() && i < kQuotedBytes; ++i)
    {
        out += Printable(text[i]) ? text[i] : '?';
    }
    return "'" + out + (text.size() > kQuotedBytes ? "...'" : "'");
}

std::string
Describe(const sockaddr_in& a)
{
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &a.sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}

sockaddr_in
Address(const std::string& addr, uint16_t port, const std::string& what)
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

void
SetTimeoutOption(int fd, int option, double seconds)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(seconds);
    tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
    setsockopt(fd, SOL_SOCKET, option, &tv, sizeof(tv));
}

/// Where the buffered bytes hold a whole message: the offset of its "end" line, or npos.
std::size_t
FindEnd(const std::string& buffer)
{
    if (buffer.rfind("end\n", 0) == 0)
    {
        return 0;
    }
    const std::size_t at = buffer.find("\nend\n");
    return at == std::string::npos ? at : at + 1;
}

} // namespace

std::string
Abridged(const std::string& text)
{
    constexpr std::size_t kMax = 300;
    return text.size() <= kMax ? text : text.substr(0, kMax - 3) + "...";
}

Message&
Message::Set(const std::string& key, const std::string& value)
{
    std::string clean = value;
    for (char& c : clean)
    {
        c = Printable(c) ? c : '?';
    }
    m_values[key] = clean;
    return *this;
}

Message&
Message::Set(const std::string& key, uint64_t value)
{
    return Set(key, std::to_string(value));
}

Message&
Message::SetReal(const std::string& key, double value)
{
    std::ostringstream text;
    text << std::setprecision(17) << value;
    return Set(key, text.str());
}

bool
Message::Has(const std::string& key) const
{
    return m_values.count(key) > 0;
}

const std::string&
Message::Get(const std::string& key) const
{
    auto it = m_values.find(key);
    if (it == m_values.end())
    {
        throw ControlError("a control message without '" + key + "'");
    }
    return it->second;
}

uint64_t
Message::GetU64(const std::string& key, uint64_t lo, uint64_t hi) const
{
    const std::string& v = Get(key);
    uint64_t n = 0;
    bool ok = !v.empty() && v.size() <= 20;
    for (std::size_t i = 0; ok && i < v.size(); ++i)
    {
        const auto digit = static_cast<uint64_t>(v[i] - '0');
        ok = v[i] >= '0' && v[i] <= '9' && n <= (UINT64_MAX - digit) / 10;
        n = n * 10 + digit;
    }
    if (!ok || n < lo || n > hi)
    {
        throw ControlError(key + "=" + Quote(v) + ": expected an integer in [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return n;
}

void
Message::Expect(const std::vector<std::string>& required,
                const std::vector<std::string>& optional) const
{
    for (const auto& [key, value] : m_values)
    {
        if (std::find(required.begin(), required.end(), key) == required.end() &&
            std::find(optional.begin(), optional.end(), key) == optional.end())
        {
            throw ControlError("unexpected key '" + key + "' in a control message");
        }
    }
    for (const std::string& key : required)
    {
        Get(key);
    }
}

std::string
Message::Encode() const
{
    std::string out;
    for (const auto& [k, v] : m_values)
    {
        out += k + "=" + v + "\n";
    }
    return out + "end\n";
}

Message
Message::Parse(const std::string& text)
{
    Message m;
    std::size_t pos = 0;
    for (std::size_t eol; (eol = text.find('\n', pos)) != std::string::npos; pos = eol + 1)
    {
        const std::string line = text.substr(pos, eol - pos);
        const std::size_t eq = line.find('=');
        const bool keyOk = eq != std::string::npos && eq > 0 && eq <= kMaxKeyBytes &&
                           std::all_of(line.begin(), line.begin() + eq, KeyChar);
        if (!keyOk || !std::all_of(line.begin() + eq + 1, line.end(), Printable))
        {
            throw ControlError("a control line that is not key=value: " + Quote(line));
        }
        if (!m.m_values.emplace(line.substr(0, eq), line.substr(eq + 1)).second)
        {
            throw ControlError("key '" + line.substr(0, eq) + "' twice in a control message");
        }
    }
    return m;
}

ControlChannel::ControlChannel(int fd, std::string peer)
    : m_fd(fd)
    , m_peer(std::move(peer))
{
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    SetSendTimeout(10);
}

ControlChannel::ControlChannel(ControlChannel&& other) noexcept
    : m_fd(other.m_fd)
    , m_peer(std::move(other.m_peer))
    , m_buffer(std::move(other.m_buffer))
{
    other.m_fd = -1;
}

ControlChannel::~ControlChannel()
{
    if (m_fd >= 0)
    {
        close(m_fd);
    }
}

ControlChannel
ControlChannel::Connect(const std::string& host,
                        uint16_t port,
                        const std::string& bindAddr,
                        double timeoutSeconds)
{
    const sockaddr_in a = Address(host, port, "host");
    const sockaddr_in from = Address(bindAddr.empty() ? "0.0.0.0" : bindAddr, 0, "--bind");
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000));
    while (true)
    {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            Fail("socket");
        }
        // A connect() the network does not answer waits at most this long (Linux applies the
        // send timeout to it).
        SetTimeoutOption(fd, SO_SNDTIMEO, timeoutSeconds);
        if (bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof(from)) < 0)
        {
            const int saved = errno;
            close(fd);
            errno = saved;
            Fail("cannot bind the control connection to " + bindAddr);
        }
        if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) == 0)
        {
            return ControlChannel(fd, Describe(a));
        }
        const int saved = errno;
        close(fd);
        errno = saved;
        if (std::chrono::steady_clock::now() > deadline)
        {
            Fail("cannot connect to " + host + ":" + std::to_string(port));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

void
ControlChannel::SetSendTimeout(double seconds)
{
    SetTimeoutOption(m_fd, SO_SNDTIMEO, seconds);
}

void
ControlChannel::Send(const Message& m)
{
    const std::string text = m.Encode();
    std::size_t sent = 0;
    while (sent < text.size())
    {
        const ssize_t n = send(m_fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n <= 0)
        {
            throw ControlError(errno == EAGAIN || errno == EWOULDBLOCK
                                   ? std::string("the peer took no control message bytes within "
                                                 "the send timeout")
                                   : std::string("control connection: ") + std::strerror(errno));
        }
        sent += static_cast<std::size_t>(n);
    }
}

std::optional<Message>
ControlChannel::TryReceive()
{
    char chunk[4096];
    std::size_t end;
    while ((end = FindEnd(m_buffer)) == std::string::npos)
    {
        const std::size_t room = std::min(sizeof(chunk), kMaxMessageBytes - m_buffer.size());
        if (room == 0)
        {
            throw ControlError("a control message longer than " + std::to_string(kMaxMessageBytes) +
                               " bytes");
        }
        const ssize_t n = recv(m_fd, chunk, room, MSG_DONTWAIT);
        if (n == 0)
        {
            throw ControlError("the peer closed the control connection");
        }
        if (n < 0)
        {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            {
                return std::nullopt;
            }
            throw ControlError(std::string("control connection: ") + std::strerror(errno));
        }
        m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
    Message m = Message::Parse(m_buffer.substr(0, end));
    m_buffer.erase(0, end + 4);
    return m;
}

Message
ControlChannel::Receive(double timeoutSeconds)
{
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000));
    while (true)
    {
        if (std::optional<Message> m = TryReceive())
        {
            return *m;
        }
        const double left =
            std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0 || !WaitReadable(m_fd, left))
        {
            std::ostringstream what;
            what << "the peer sent no whole control message within " << timeoutSeconds
                 << " s (--timeout)";
            throw ControlError(what.str());
        }
    }
}

ControlListener::ControlListener(const std::string& addr, uint16_t port)
{
    const sockaddr_in a = Address(addr, port, "--bind");
    m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    if (m_fd < 0 || setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
        bind(m_fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) < 0 || listen(m_fd, 8) < 0)
    {
        const int saved = errno;
        if (m_fd >= 0)
        {
            close(m_fd);
        }
        errno = saved;
        Fail("cannot listen on TCP " + Describe(a));
    }
}

ControlListener::~ControlListener()
{
    close(m_fd);
}

std::optional<ControlChannel>
ControlListener::Accept(double timeoutSeconds)
{
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000));
    while (true)
    {
        const double left =
            std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0 || !WaitReadable(m_fd, left))
        {
            return std::nullopt;
        }
        sockaddr_in peer{};
        socklen_t length = sizeof(peer);
        const int fd = accept4(m_fd, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
        if (fd >= 0)
        {
            return ControlChannel(fd, Describe(peer));
        }
        // A client that reset its connection before it was taken is not the server's error.
        if (errno != ECONNABORTED && errno != EINTR && errno != EAGAIN && errno != EPROTO)
        {
            Fail("accept");
        }
    }
}

} // namespace metaroce::perf
