/*
 * One side of a metaroce-perf test: registered memory, the engine (a MetaRoceConnection or a
 * RoCEv2 queue pair, configured from the options and the peer's identity) and the UDP driver
 * that runs it, plus the byte pattern both sides agree on.
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

/// What one side tells the other about itself.
struct Identity
{
    std::vector<std::string> udpAddrs; ///< per plane
    uint16_t udpPort{0};
    uint32_t connection{0}; ///< MetaRoCE connection id or RoCEv2 QP number
    uint64_t bufferAddr{0};
    uint64_t bufferLength{0};
    uint32_t rkey{0};
};

/// The engine and driver of one side, with its registered buffer.
class Session
{
  public:
    /// The registered buffer is `bufferBytes` long (zeroed); throws what the engine or the
    /// driver throw (bad configuration, a UDP address that cannot be bound).
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

    /// One line of engine and driver counters (retransmissions, timeouts, drops, faults).
    std::string CountersLine() const;

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
