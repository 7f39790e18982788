/*
 * The UDP driver: one TransportEngine (a MetaRoceConnection or a RoCEv2 queue pair) driven by
 * real non-blocking UDP sockets, one per plane, and a monotonic clock, through the engine's
 * own EngineDriver (engine/driver/engine-driver.h), as the loopback harness and the ns-3 NIC
 * drive it. Plain C++17 and Linux (epoll, timerfd); no ns-3.
 *
 * The DriverHost it provides:
 *   ScheduleTimer  the engine's deadline; the event loop sleeps on a timerfd armed at the
 *                  earliest of it, a pacing release and a held (delayed) packet;
 *   PortIdle       the plane is up, its last frame has been "serialised" at the configured
 *                  line rate (payload + frameOverheadBytes) and its socket took the last
 *                  packet (an EAGAIN keeps the packet and the port busy until it is retried).
 *                  A loop that wakes late may catch up at most burstNs of line time at once,
 *                  so the engine's pacing and windows still shape the traffic;
 *   StartPort      pulls and sends while the port stays idle (at most a batch per call, so
 *                  that receiving is not starved);
 *   Deliver        hands completions to the application's callback.
 *
 * Packets arrive whole (real-payload mode: the engine places their bytes into registered
 * memory). Timing is the host's: a syscall per datagram each way, and a single thread; see
 * doc/runtime.md for what that costs.
 *
 * The clock is real by default. With ClockMode::Virtual it reads a value the caller sets
 * (SetVirtualNow), and the caller steps the driver itself (Receive, Step, NextWake) instead
 * of RunUntil(): the compliance suite's udp adapter runs its scripted scenarios that way, with
 * real sockets and exact time.
 */
#ifndef METAROCE_RUNTIME_UDP_DRIVER_H
#define METAROCE_RUNTIME_UDP_DRIVER_H

#include "engine-driver.h"
#include "fault-injector.h"
#include "pcap-writer.h"
#include "udp-drop-reasons.h"
#include "udp-plane.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace metaroce::udp
{

/// How a driver reads time.
enum class ClockMode : uint8_t
{
    Real,    ///< CLOCK_MONOTONIC, from 0 at construction
    Virtual, ///< SetVirtualNow(); the caller steps the driver
};

/// Shape and behaviour of a UDP driver.
struct UdpDriverConfig
{
    std::vector<PlaneEndpoint> planes; ///< one per engine port, in port order
    uint64_t rateBps{10'000'000'000};  ///< line rate each plane is paced at
    uint32_t frameOverheadBytes{46};   ///< Ethernet 14 + FCS 4 + IPv4 20 + UDP 8
    TimeNs burstNs{20'000};            ///< line time a late loop may send back to back
    /// After traffic the loop polls instead of sleeping for this long: a sleeping receiver
    /// costs a wake-up (often a context switch on the sender's core) per datagram, which
    /// perftest's busy-polled completion queues avoid; an idle process still sleeps. On a
    /// host whose cores are shared with other work, polling takes their time: 0 turns it off.
    TimeNs busyPollNs{200'000};
    EntropyMode entropy{EntropyMode::Bind};
    uint32_t maxEntropySockets{1024}; ///< per plane
    FaultConfig faults;
    std::string pcapPath; ///< empty: no capture
    uint32_t pcapSnapLength{0};
    ClockMode clock{ClockMode::Real};
};

/// What the driver did (the engine's own counters are GetCounters()).
struct UdpDriverStats
{
    uint64_t txDatagrams{0};
    uint64_t txBytes{0}; ///< UDP payload bytes handed to the kernel
    uint64_t rxDatagrams{0};
    uint64_t rxBytes{0};
    uint64_t rxRefused{0}; ///< datagrams the engine refused (counted under its drop reasons)
    /// Datagrams dropped before the engine, per reason: not from the plane's peer.
    UdpDropCounts rxDropped{};
    uint64_t loopIterations{0};
    uint64_t sleeps{0}; ///< times the loop blocked in epoll_wait
    FaultStats faults;
    PlaneStats planes; ///< summed over planes
};

/// One engine on real sockets.
class UdpDriver : private DriverHost
{
  public:
    /// Opens the planes' sockets; throws std::runtime_error (bind) or std::invalid_argument.
    UdpDriver(TransportEngine& engine, const UdpDriverConfig& config);
    ~UdpDriver() override;
    UdpDriver(const UdpDriver&) = delete;
    UdpDriver& operator=(const UdpDriver&) = delete;

    /// The driver's time: monotonic nanoseconds since construction, or the virtual time.
    TimeNs Now() const;

    /// Sets the virtual time (ClockMode::Virtual only; never backwards).
    void SetVirtualNow(TimeNs t);

    /// Called for every completion the engine delivers.
    void OnCompletion(std::function<void(const Completion&)> cb)
    {
        m_onCompletion = std::move(cb);
    }

    /// Called for every datagram handed to the kernel: (time, port, source port, bytes).
    void OnTransmit(std::function<void(TimeNs, uint16_t, uint16_t, const std::vector<uint8_t>&)> cb)
    {
        m_onTransmit = std::move(cb);
    }

    /// Posts a WRITE or SEND (throws as the engine does), then services the engine.
    void PostSend(const WorkRequest& wr);
    /// Posts a RECV, then services the engine.
    void PostRecv(const WorkRequest& wr);
    /// Takes a plane down or brings it back (the engine is told), then services the engine.
    void SetPortState(uint16_t port, bool up);

    /// Reads up to `max` waiting datagrams per plane; those from the plane's peer go to the
    /// engine, the others are counted (UdpDriverStats::rxDropped). Returns how many went to
    /// the engine.
    std::size_t Receive(std::size_t max);

    /// Waits up to `timeoutMs` for a datagram on `port`'s socket, then reads what is waiting
    /// on every plane (at most one datagram each); returns how many were read.
    std::size_t ReceiveBlocking(uint16_t port, int timeoutMs);

    /// One round at Now(): the timer if due, held packets due, retries, EngineDriver::Service.
    void Step();

    /// Earliest time Step() has something to do (timer, pacing release of a port with work,
    /// held packet, retry), or kNever. Input is not in it: it wakes the loop by itself.
    TimeNs NextWake() const;

    /// Blocks until a plane (or a watched descriptor) is readable or `timeoutNs` passes.
    void WaitInput(TimeNs timeoutNs);

    /// Also wakes the event loop when `fd` is readable (a control connection).
    void WatchFd(int fd);

    /// True once since the loop last saw a watched descriptor readable (or since WatchFd):
    /// lets a caller try its read only when there may be something, one syscall saved per
    /// round.
    bool TakeWatchedReadable();

    /**
     * The real-time event loop: runs until `done()` holds (checked after every round), or
     * Now() passes `limit`. Returns true when `done()` held.
     */
    bool RunUntil(const std::function<bool()>& done, TimeNs limit);

    TransportEngine& Engine() const
    {
        return m_engine;
    }

    /// The driver's statistics, planes and faults summed in.
    UdpDriverStats Stats() const;

    /// Completes the capture (--pcap): flushed, closed and moved to its name. Throws
    /// std::runtime_error naming the file when a write, the close or the rename failed. A
    /// capture never finished (the driver destroyed first) is removed.
    void FinishCapture();

    const UdpPlane& Plane(uint16_t port) const
    {
        return *m_planes[port];
    }

  private:
    /// A plane's transmit state.
    struct PortState
    {
        TimeNs busyUntil{0};
        bool up{true};
        bool readable{true};
        bool hasPending{false}; ///< a datagram the socket refused (EAGAIN), retried first
        uint16_t pendingSrcPort{0};
        std::vector<uint8_t> pending;
    };

    void ScheduleTimer(TimeNs at) override;
    bool PortIdle(uint16_t port) const override;
    void StartPort(uint16_t port) override;
    void Deliver(const Completion& c) override;

    /// Applies the fault injector, then sends (or holds) the packet's copies.
    void Transmit(uint16_t port, const OutPacket& pkt);
    /// Hands one datagram to the socket; false when it would block (kept as pending).
    bool SendNow(uint16_t port, uint16_t srcPort, const iovec* iov, int iovCount);
    /// Sends held packets that are due and pending ones the sockets refused.
    void Flush();
    /// Arms the timerfd at `at` (kNever: disarms).
    void ArmTimerFd(TimeNs at);

    TransportEngine& m_engine;
    UdpDriverConfig m_config;
    std::vector<std::unique_ptr<UdpPlane>> m_planes;
    std::vector<PortState> m_ports;
    EngineDriver m_driver;
    FaultInjector m_faults;
    std::unique_ptr<PcapWriter> m_pcap;
    std::vector<uint8_t> m_rxBuffer;
    TimeNs m_origin{0};
    TimeNs m_virtualNow{0};
    TimeNs m_timerAt{kNever};
    TimeNs m_timerFdAt{kNever};
    bool m_watchedReadable{false};
    TimeNs m_lastTraffic{0}; ///< last datagram sent or received (busy polling)
    int m_epoll{-1};
    int m_timerFd{-1};
    std::function<void(const Completion&)> m_onCompletion;
    std::function<void(TimeNs, uint16_t, uint16_t, const std::vector<uint8_t>&)> m_onTransmit;
    UdpDriverStats m_stats;
};

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_UDP_DRIVER_H
