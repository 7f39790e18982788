/*
 * One side of a metaroce-perf test: registered memory, the engine (a MetaRoceConnection or a
 * RoCEv2 queue pair, configured from the options and both identities: connection ids or QP
 * numbers, initial PSNs, keys) and the UDP driver that runs it, whose planes accept only the
 * peer's datagrams, plus the byte pattern both sides agree on.
 *
 * Timers. The engines' defaults are a fabric's (an 8 us RTT, a 60 us minimum RTO). A process
 * on a shared host is descheduled for milliseconds at a time, so the session raises the
 * timers to what a host can keep (RuntimeTimers in perf-session.cc; doc/runtime.md): with the
 * fabric's values every scheduling pause would be a timeout and a burst of retransmissions.
 *
 * The pattern. Message i of a test carries a word sequence of its own (one SplitMix64 of the
 * seed and i, then a cheap mix per 64-bit word, the last word cut to the message's size):
 * every message differs from every other, so a lost, stale, misplaced or corrupted message
 * shows as a mismatch, and generating or checking it runs near memory speed.
 */
#ifndef METAROCE_RUNTIME_PERF_SESSION_H
#define METAROCE_RUNTIME_PERF_SESSION_H

#include "engine-memory.h"
#include "perf-identity.h"
#include "perf-options.h"
#include "udp-driver.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace metaroce::perf
{

/// Fills `dst` with message `index`'s pattern.
void FillPattern(uint8_t* dst, uint64_t length, uint64_t seed, uint64_t index);

/// Offset of the first byte of `src` that differs from message `index`'s pattern, or -1.
int64_t CheckPattern(const uint8_t* src, uint64_t length, uint64_t seed, uint64_t index);

/// The engine and driver of one side, with its registered buffer.
class Session
{
  public:
    /// The registered buffer is `bufferBytes` long (zeroed), with `local.rkey` as its key; the
    /// planes accept datagrams from `peer`'s addresses and source ports only. Throws what the
    /// engine or the driver throw (bad configuration, a UDP address that cannot be bound) and
    /// std::runtime_error when the buffer cannot be allocated.
    Session(const PerfOptions& options,
            bool server,
            const Identity& local,
            const Identity& peer,
            uint64_t bufferBytes);

    udp::UdpDriver& Driver()
    {
        return *m_driver;
    }

    TransportEngine& Engine()
    {
        return *m_engine;
    }

    /// The registered buffer and its key.
    uint8_t* Buffer()
    {
        return m_buffer.get();
    }

    uint64_t BufferAddr() const
    {
        return reinterpret_cast<uint64_t>(m_buffer.get());
    }

    uint32_t Key() const
    {
        return m_key;
    }

    /// Completions delivered and not yet taken.
    std::deque<Completion>& Completions()
    {
        return m_completions;
    }

    /// One line of engine and driver counters (retransmissions, timeouts, drops, faults,
    /// datagrams not from the peer).
    std::string CountersLine() const;

    /// Completes the capture, if any (UdpDriver::FinishCapture); throws naming the file.
    void FinishCapture();

  private:
    std::unique_ptr<uint8_t[]> m_buffer;
    uint32_t m_key;
    MemoryRegistry m_memory;
    std::unique_ptr<TransportEngine> m_engine;
    std::unique_ptr<udp::UdpDriver> m_driver;
    std::deque<Completion> m_completions;
};

/// The UDP port of the options' transport (4792, 4791) unless --udp-port overrides it.
uint16_t TransportUdpPort(const PerfOptions& options);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_SESSION_H
