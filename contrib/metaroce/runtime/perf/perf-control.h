/*
 * The out-of-band control connection of metaroce-perf, as perftest has one: a TCP connection
 * from the client to the server's control port over which the two ends exchange what RDMA
 * peers must agree on before the first packet (connection ids or QP numbers, initial PSNs,
 * the UDP address and source ports of every plane, the target buffer's address, length and
 * rkey) and then pace the test (one round per message size: "ready", "done", the server's
 * verdict on the bytes).
 *
 * A message is "key=value" lines closed by a line "end". Reading is non-blocking, so that an
 * end waiting for the peer keeps its engine serviced: the UDP driver watches the descriptor
 * and its loop stops as soon as a whole message is in.
 *
 * Nothing the peer sends is trusted. A message is at most kMaxMessageBytes (a peer sending
 * more without "end" is refused, never buffered without bound); a line is "key=value" with a
 * key of lower-case letters, digits and '-', a value of printable ASCII, no key twice; the
 * receiver then checks which keys a message may and must have (Expect) and reads numbers
 * strictly (digits only, in range). Anything else, silence past the timeout, or a closed
 * connection is a ControlError: it ends the session, not the process.
 */
#ifndef METAROCE_RUNTIME_PERF_CONTROL_H
#define METAROCE_RUNTIME_PERF_CONTROL_H

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace metaroce::perf
{

/// What the peer of a control connection got wrong or failed to do: a malformed, incomplete
/// or out-of-range message, one too long, silence past the timeout, a closed connection.
class ControlError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// Most bytes of one control message, its "end" line included.
constexpr std::size_t kMaxMessageBytes = 16384;

/// `text` cut to 300 characters ("..." marks a cut): what a peer sent, quoted in an error
/// line, keeps the line readable.
std::string Abridged(const std::string& text);

/// One control message.
class Message
{
  public:
    /// Sets `key` (lower-case letters, digits, '-'); a character of `value` outside printable
    /// ASCII is sent as '?'.
    Message& Set(const std::string& key, const std::string& value);
    Message& Set(const std::string& key, uint64_t value);
    /// A real number, to 17 significant digits (what the peer reads back is this value).
    Message& SetReal(const std::string& key, double value);

    /// The value of `key`; throws ControlError naming it when absent.
    const std::string& Get(const std::string& key) const;
    /// The value of `key` as a decimal integer in [lo, hi] (digits only); throws ControlError
    /// naming the key and the value otherwise.
    uint64_t GetU64(const std::string& key, uint64_t lo, uint64_t hi) const;
    bool Has(const std::string& key) const;

    /// Throws ControlError naming the first key that is neither in `required` nor in
    /// `optional`, or the first key of `required` that is missing.
    void Expect(const std::vector<std::string>& required,
                const std::vector<std::string>& optional = {}) const;

    const std::map<std::string, std::string>& Values() const
    {
        return m_values;
    }

    std::string Encode() const;

    /// Parses a message's lines (without the "end" line); throws ControlError naming the
    /// first line that is not "key=value" as described above.
    static Message Parse(const std::string& text);

  private:
    std::map<std::string, std::string> m_values;
};

/// A connected control socket.
class ControlChannel
{
  public:
    /// Client: connects to `host:port` (from `bindAddr`, or any address when empty), retrying
    /// for `timeoutSeconds` (a server may still be starting); throws std::runtime_error.
    static ControlChannel Connect(const std::string& host,
                                  uint16_t port,
                                  const std::string& bindAddr,
                                  double timeoutSeconds);

    ControlChannel(ControlChannel&& other) noexcept;
    ~ControlChannel();
    ControlChannel(const ControlChannel&) = delete;
    ControlChannel& operator=(const ControlChannel&) = delete;
    ControlChannel& operator=(ControlChannel&&) = delete;

    int Fd() const
    {
        return m_fd;
    }

    /// The peer's address, "a.b.c.d:port".
    const std::string& Peer() const
    {
        return m_peer;
    }

    /// Sends a message; throws ControlError when the peer is gone or has taken nothing for
    /// the send timeout (SetSendTimeout).
    void Send(const Message& m);

    /// Bounds how long Send() waits for the peer to take bytes (default 10 s).
    void SetSendTimeout(double seconds);

    /// Reads what is available; returns a whole message when one is in. Throws ControlError
    /// when the peer closed the connection or sent what is not a message.
    std::optional<Message> TryReceive();

    /// Blocks for a whole message, for up to `timeoutSeconds`; throws ControlError on timeout.
    Message Receive(double timeoutSeconds);

  private:
    friend class ControlListener;
    ControlChannel(int fd, std::string peer);

    int m_fd{-1};
    std::string m_peer;
    std::string m_buffer;
};

/// The server's listening control socket.
class ControlListener
{
  public:
    /// Listens on TCP `addr:port`; throws std::runtime_error naming them.
    ControlListener(const std::string& addr, uint16_t port);
    ~ControlListener();
    ControlListener(const ControlListener&) = delete;
    ControlListener& operator=(const ControlListener&) = delete;

    /// The next client, or nothing when none connected within `timeoutSeconds`.
    std::optional<ControlChannel> Accept(double timeoutSeconds);

  private:
    int m_fd{-1};
};

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_CONTROL_H
