/*
 * libsoftmetaroce: the vocabulary shared by every engine and every driver.
 *
 * The engine is sans-I/O: it never reads a clock, never owns a socket and never schedules an
 * event. Drivers (the ns-3 NIC, the loopback harness, benchmarks, fuzzers) hand it work
 * requests, packets and the current time, and pull from it packets to transmit, completions and
 * the next deadline it wants. Everything here is plain data.
 */
#ifndef METAROCE_ENGINE_TYPES_H
#define METAROCE_ENGINE_TYPES_H

#include "header-bytes.h"
#include "ring.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

namespace metaroce
{

/// Time in integer nanoseconds since an arbitrary origin chosen by the driver.
using TimeNs = uint64_t;

/// "No deadline": returned by NextTimeout() when the engine wants no wake-up.
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

/// Work request kinds (verbs-like).
enum class Opcode : uint8_t
{
    Write, ///< one-sided RDMA WRITE into a remote registered region
    Send,  ///< two-sided SEND, matched to a posted RECV on the same stream
    Recv,  ///< a receive buffer for a future SEND
};

/// Printable name of an opcode.
const char* OpcodeName(Opcode op);

/// Outcome of a work request.
enum class CompletionStatus : uint8_t
{
    Success,
    RemoteAccessError, ///< the responder refused the placement (bad key or out of bounds)
    RetryExceeded,     ///< the requester gave up: a packet was sent the maximum number of times
    LocalLengthError,  ///< an incoming SEND did not fit the posted RECV buffer
    Flushed,           ///< the connection failed before the request could finish
};

/// Printable name of a completion status.
const char* CompletionStatusName(CompletionStatus status);

/**
 * A work request posted by the application. WRITE and SEND use (localAddr, localKey) as their
 * source; RECV uses them as its sink. WRITE also names its target (remoteAddr, remoteKey).
 * When the local key is 0 the request is "virtual": no bytes are read or written, only sizes
 * travel (the mode large simulations use).
 */
struct WorkRequest
{
    uint64_t id{0};
    Opcode op{Opcode::Write};
    uint16_t stream{0};
    uint64_t length{0};
    uint64_t localAddr{0};
    uint32_t localKey{0};
    uint64_t remoteAddr{0};
    uint32_t remoteKey{0};
};

/// A finished work request, delivered in posting order per stream.
struct Completion
{
    uint64_t wrId{0};
    Opcode op{Opcode::Write};
    uint16_t stream{0};
    CompletionStatus status{CompletionStatus::Success};
    uint64_t bytes{0};
    TimeNs time{0};
};

/**
 * A packet the engine wants transmitted. `header` is the transport header (the start of the UDP
 * payload). `payload` holds real bytes in real-payload mode and is empty otherwise; `payloadSize`
 * is what goes on the wire either way.
 */
struct OutPacket
{
    HeaderBytes header; ///< inline: no allocation per packet
    std::vector<uint8_t> payload;
    uint32_t payloadSize{0};
    uint16_t port{0};       ///< NIC port (= plane) to transmit on
    uint16_t udpSrcPort{0}; ///< ECMP entropy
    uint16_t udpDstPort{0};
    bool isControl{false}; ///< ACK/NAK/CNP: small, never paced

    std::size_t WireSize() const
    {
        return header.size() + payloadSize;
    }
};

/**
 * A packet handed to the engine. `data` holds at least the transport header; it holds the whole
 * UDP payload (header and payload bytes) when `size == wireSize`, which is how real-payload mode
 * is recognised. Otherwise the payload is virtual and only its size is known.
 */
struct RxPacket
{
    const uint8_t* data{nullptr};
    std::size_t size{0};
    std::size_t wireSize{0};
    uint16_t port{0};
    bool ecnCe{false}; ///< the IP header arrived with ECN Congestion Experienced
    TimeNs now{0};
    /// The driver's channel corrupted the packet where no bytes are carried to check (a
    /// virtual payload in the simulator): an engine with a bit-error check refuses it.
    bool corrupted{false};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_TYPES_H
