/*
 * The interface every transport engine implements: MetaRoCE and the RoCEv2 baseline alike, so
 * that drivers and experiments swap transports with one setting.
 *
 * One engine object is one end of one connection (a MetaRoCE connection or a RoCEv2 RC queue
 * pair). It is a deterministic state machine: the same calls with the same arguments produce the
 * same packets, byte for byte. It is driven as follows (spec section "Engine interface"):
 *
 *   - PostSend / PostRecv: work requests from the application;
 *   - OnPacket: a packet arrived on a port at time `now`;
 *   - OnTimeout: called at (or after) NextTimeout();
 *   - OnPortState: a NIC port went down or came back;
 *   - PullPacket: the driver's port is free; the engine may hand it one packet. Pulling (instead
 *     of pushing into a queue) is what lets a NIC never drop its own packets: the engine keeps
 *     its data until a port can take it, and decides at that moment what is most urgent.
 *   - TakeCompletions: finished work requests, in posting order per stream.
 *
 * After any call, the driver should try PullPacket on every idle port and re-arm its timer to
 * NextTimeout().
 */
#ifndef METAROCE_ENGINE_TRANSPORT_ENGINE_H
#define METAROCE_ENGINE_TRANSPORT_ENGINE_H

#include "engine-counters.h"
#include "engine-types.h"

#include <optional>
#include <string>
#include <vector>

namespace metaroce
{

/// The transports a driver can choose between.
enum class Transport
{
    MetaRoce,
    RoceV2,
};

/// Printable name; ParseTransport() accepts it back.
const char* TransportName(Transport t);

/// Parses "metaroce" or "rocev2"; throws std::invalid_argument otherwise.
Transport ParseTransport(const std::string& name);

/// Result of handing a packet to an engine.
struct RxResult
{
    bool accepted{true};
    DropReason reason{DropReason::Count}; ///< valid when !accepted
    /// An accepted DATA packet (MetaRoCE WRITE/SEND, RoCEv2 request), duplicates included:
    /// its sender is active, whatever the packet's size (the fair share, spec 8.3).
    bool carriedData{false};
};

/// What a driver pulls from an engine (EngineDriver::Pull).
enum class PullKind : uint8_t
{
    Any,      ///< the next packet of any kind (PullPacket)
    Control,  ///< only ACK, NAK or CNP (PullControlPacket)
    Recovery, ///< control first, else only recovery (PullRecoveryPacket)
};

/// The ports on which an engine has work, bit p for port p, by kind (TransportEngine::HasWork,
/// HasControlWork, HasRecoveryWork).
struct PortWork
{
    uint64_t any{0};
    uint64_t control{0};
    uint64_t recovery{0};
};

/// The PortWork bits of ports 0 to `ports` - 1 (all 64 when `ports` >= 64).
constexpr uint64_t
PortBits(uint16_t ports)
{
    return ports >= 64 ? ~uint64_t{0} : (uint64_t{1} << ports) - 1;
}

/// Common interface of the MetaRoCE and RoCEv2 engines.
class TransportEngine
{
  public:
    virtual ~TransportEngine() = default;

    /// Short name of the transport ("metaroce", "rocev2").
    virtual const char* Name() const = 0;

    /**
     * Posts a WRITE or SEND. Throws std::invalid_argument for a malformed request (wrong
     * opcode, zero length, unknown stream, bad local key) and for a sequence the engine's
     * completion order does not support; nothing is changed then.
     */
    virtual void PostSend(const WorkRequest& wr, TimeNs now) = 0;

    /// Posts a RECV buffer on a stream. Throws std::invalid_argument on a malformed request.
    virtual void PostRecv(const WorkRequest& wr) = 0;

    /// Hands an arriving packet to the engine. A refused packet changes no state.
    virtual RxResult OnPacket(const RxPacket& pkt) = 0;

    /// Lets the engine act on expired deadlines (retransmission, ACK timers, pacing).
    virtual void OnTimeout(TimeNs now) = 0;

    /// A port (plane) went down or came back up.
    virtual void OnPortState(uint16_t port, bool up, TimeNs now) = 0;

    /// The next packet to send on `port` now, if any is allowed.
    virtual std::optional<OutPacket> PullPacket(uint16_t port, TimeNs now) = 0;

    /// The next control packet (ACK, NAK, CNP) to send on `port` now, if any: what a driver
    /// pulls while the port's data class is paused (PFC), so that data stays in the engine,
    /// unsent and untimed, until the pause ends.
    virtual std::optional<OutPacket> PullControlPacket(uint16_t port, TimeNs now) = 0;

    /// True when the engine has something it might send on `port`: pacing and windows are
    /// not checked, so PullPacket() may still return nothing.
    virtual bool HasWork(uint16_t port) const = 0;

    /// True when PullControlPacket(port) would return a packet now: what a driver that sends
    /// control packets before any engine's data asks of each engine.
    virtual bool HasControlWork(uint16_t port) const = 0;

    /// True when the engine may have recovery to send on `port`: the retransmission of a packet
    /// proven lost, or a packet that finds a lost tail (a tail marker, a tail-loss probe); a
    /// hint, as HasWork is. What a driver that serves recovery before other engines' new data
    /// asks of each engine; PullPacket() returns it first too.
    virtual bool HasRecoveryWork(uint16_t port) const = 0;

    /// The next control packet for `port`, else the next recovery packet (as HasRecoveryWork),
    /// else nothing - never new data: what such a driver pulls in its recovery turn.
    virtual std::optional<OutPacket> PullRecoveryPacket(uint16_t port, TimeNs now) = 0;

    /// True when the engine's last packet on `port` left on a path that takes its next packets
    /// for `port` too (a burst, spec 6.2) and more data waits: a driver that wants a burst to
    /// leave back to back pulls `port` from this engine again before it turns to others. At
    /// most a burst's length of pulls in a row; this default never asks for one.
    virtual bool ContinuesBurst(uint16_t /* port */) const
    {
        return false;
    }

    /// HasWork, HasControlWork and HasRecoveryWork of ports 0 to `ports` - 1 (at most 64), in
    /// one call: what a driver that keeps a note of the engines with work asks after every call
    /// into one, while its state is still in the cache. This default asks port by port.
    virtual PortWork WorkOnPorts(uint16_t ports) const;

    /// Earliest time the engine wants OnTimeout(), or kNever.
    virtual TimeNs NextTimeout() const = 0;

    /// Completions since the last call, in posting order per stream.
    virtual std::vector<Completion> TakeCompletions() = 0;

    /// True when every posted WRITE/SEND has completed and nothing waits to be acknowledged.
    virtual bool Idle() const = 0;

    virtual const Counters& GetCounters() const = 0;
};

/**
 * Reads the destination connection (MetaRoCE) or destination QP number (RoCEv2) from a packet
 * so that a NIC can demultiplex without a full parse. Returns nullopt when the packet is too
 * short or not of the given transport.
 */
std::optional<uint32_t> PeekDestination(const uint8_t* data, std::size_t size, uint16_t udpDstPort);

} // namespace metaroce

#endif // METAROCE_ENGINE_TRANSPORT_ENGINE_H
