/*
 * The out-of-band control connection of metaroce-perf, as perftest has one: a TCP connection
 * from the client to the server's control port over which the two ends exchange what RDMA
 * peers must agree on before the first packet (connection ids or QP numbers, the UDP address
 * of every plane, the target buffer's address, length and rkey) and then pace the test (one
 * round per message size: "ready", "done", the server's verdict on the bytes).
 *
 * A message is "key=value" lines closed by a line "end". Reading is non-blocking, so that an
 * end waiting for the peer keeps its engine serviced: the UDP driver watches the descriptor
 * and its loop stops as soon as a whole message is in.
 */
#ifndef METAROCE_RUNTIME_PERF_CONTROL_H
#define METAROCE_RUNTIME_PERF_CONTROL_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace metaroce::perf
{

/// One control message.
class Message
{
  public:
    Message& Set(const std::string& key, const std::string& value);
    Message& Set(const std::string& key, uint64_t value);

    /// The value of `key`; throws std::runtime_error naming it when absent.
    const std::string& Get(const std::string& key) const;
    uint64_t GetU64(const std::string& key) const;
    double GetDouble(const std::string& key) const;
    bool Has(const std::string& key) const;

    std::string Encode() const;

  private:
    friend class ControlChannel;
    std::map<std::string, std::string> m_values;
};

/// A connected control socket.
class ControlChannel
{
  public:
    /// Server: listens on `port` (all addresses) and accepts one client within
    /// `timeoutSeconds`; throws std::runtime_error.
    static ControlChannel Accept(uint16_t port, double timeoutSeconds);
    /// Client: connects to `host:port`, retrying for `timeoutSeconds` (a server may still
    /// be starting); throws std::runtime_error.
    static ControlChannel Connect(const std::string& host, uint16_t port, double timeoutSeconds);

    ControlChannel(ControlChannel&& other) noexcept;
    ~ControlChannel();
    ControlChannel(const ControlChannel&) = delete;
    ControlChannel& operator=(const ControlChannel&) = delete;

    int Fd() const
    {
        return m_fd;
    }

    /// Sends a message (blocking); throws std::runtime_error when the peer is gone.
    void Send(const Message& m);

    /// Reads what is available; returns a whole message when one is in. Throws
    /// std::runtime_error when the peer closed the connection.
    std::optional<Message> TryReceive();

    /// Blocks for a whole message, for up to `timeoutSeconds`; throws on timeout.
    Message Receive(double timeoutSeconds);

  private:
    explicit ControlChannel(int fd);

    int m_fd{-1};
    std::string m_buffer;
};

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_CONTROL_H
