#include "perf-control.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace metaroce::perf
{

namespace
{

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

} // namespace

Message&
Message::Set(const std::string& key, const std::string& value)
{
    m_values[key] = value;
    return *this;
}

Message&
Message::Set(const std::string& key, uint64_t value)
{
    return Set(key, std::to_string(value));
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
        throw std::runtime_error("control message without '" + key + "'");
    }
    return it->second;
}

uint64_t
Message::GetU64(const std::string& key) const
{
    return std::stoull(Get(key));
}

double
Message::GetDouble(const std::string& key) const
{
    return std::stod(Get(key));
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

ControlChannel::ControlChannel(int fd)
    : m_fd(fd)
{
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

ControlChannel::ControlChannel(ControlChannel&& other) noexcept
    : m_fd(other.m_fd)
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
ControlChannel::Accept(uint16_t port, double timeoutSeconds)
{
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 || listen(listener, 1) < 0)
    {
        const std::string what = "cannot listen on TCP port " + std::to_string(port);
        close(listener);
        Fail(what);
    }
    if (!WaitReadable(listener, timeoutSeconds))
    {
        close(listener);
        throw std::runtime_error("no client connected within the timeout");
    }
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    close(listener);
    if (fd < 0)
    {
        Fail("accept");
    }
    return ControlChannel(fd);
}

ControlChannel
ControlChannel::Connect(const std::string& host, uint16_t port, double timeoutSeconds)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000));
    while (true)
    {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0)
        {
            return ControlChannel(fd);
        }
        close(fd);
        if (std::chrono::steady_clock::now() > deadline)
        {
            Fail("cannot connect to " + host + ":" + std::to_string(port));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
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
            Fail("control connection");
        }
        sent += static_cast<std::size_t>(n);
    }
}

std::optional<Message>
ControlChannel::TryReceive()
{
    char chunk[4096];
    while (m_buffer.find("\nend\n") == std::string::npos && m_buffer.rfind("end\n", 0) != 0)
    {
        const ssize_t n = recv(m_fd, chunk, sizeof(chunk), MSG_DONTWAIT);
        if (n == 0)
        {
            throw std::runtime_error("the peer closed the control connection");
        }
        if (n < 0)
        {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
            {
                return std::nullopt;
            }
            Fail("control connection");
        }
        m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
    Message m;
    std::size_t pos = 0;
    for (std::size_t eol; (eol = m_buffer.find('\n', pos)) != std::string::npos; pos = eol + 1)
    {
        const std::string line = m_buffer.substr(pos, eol - pos);
        if (line == "end")
        {
            m_buffer.erase(0, eol + 1);
            return m;
        }
        const std::size_t eq = line.find('=');
        m.m_values[line.substr(0, eq)] = eq == std::string::npos ? "" : line.substr(eq + 1);
    }
    throw std::logic_error("unreachable: a message end was found");
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
            throw std::runtime_error("the peer sent nothing within the timeout");
        }
    }
}

} // namespace metaroce::perf
