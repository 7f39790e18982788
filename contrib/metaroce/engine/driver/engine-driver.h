/*
 * What every driver of a TransportEngine does (spec 1.3), written once: the ns-3 NIC, the
 * loopback harness and the compliance suite's engine adapter each hold one EngineDriver per
 * engine and supply only what their host does differently, through a DriverHost.
 *
 *   Service(now)  after any call into the engine: hand completions to the host, offer the
 *                 engine every idle port, re-arm the timer;
 *   Pull(port)    the engine's next packet for a free port (re-arming after it if asked: a
 *                 pull may move the deadline, as a pull held back by pacing does);
 *   OnTimer(now)  the timer fired: OnTimeout(), guarded against an engine whose deadline does
 *                 not advance past a timeout it was given (it would spin the host forever;
 *                 std::logic_error "<engine>: NextTimeout() does not advance");
 *   Rearm(now)    (re)arms the host timer at NextTimeout() under a RearmPolicy.
 *
 * The policy is each host's own because results depend on it: the NIC moves its timer only
 * when the deadline moves earlier (a timer that fires early finds nothing to do and re-arms,
 * which costs less than rescheduling on every packet), the harness whenever it differs, and
 * the compliance adapter, which has no event queue, keeps its timer equal to the deadline.
 */
#ifndef METAROCE_ENGINE_ENGINE_DRIVER_H
#define METAROCE_ENGINE_ENGINE_DRIVER_H

#include "../common/transport-engine.h"

#include <cstdint>
#include <optional>

namespace metaroce
{

/// When a driver moves its timer to the engine's NextTimeout().
enum class RearmPolicy : uint8_t
{
    WhenEarlier, ///< only to an earlier deadline (or when none is armed); kNever: leave it
    WhenChanged, ///< to any other deadline; kNever: leave it (it fires early, harmlessly)
    Track,       ///< always to the deadline, kNever included (the timer is cancelled)
};

/// How a driver drives its engine.
struct DriverOptions
{
    RearmPolicy rearm{RearmPolicy::WhenChanged};
    /// Re-arm after every Pull(): for a host that pulls outside Service() (a NIC pulls when
    /// its device asks for the next packet).
    bool rearmAfterPull{false};
    /// Offer an idle port only when the engine's HasWork() says it may have a packet.
    bool offerOnlyWithWork{true};
    /// More timeouts than this at one instant means the deadline does not advance.
    uint32_t maxTimeoutsPerInstant{10'000};
};

/// What a driver's host provides: a timer, ports, and the application.
class DriverHost
{
  public:
    virtual ~DriverHost() = default;

    /// Schedules the engine's timer to fire at `at` (not before the present), replacing the
    /// one scheduled before; kNever cancels it.
    virtual void ScheduleTimer(TimeNs at) = 0;

    /// True when `port` is up and not transmitting: Service() may offer it to the engine.
    virtual bool PortIdle(uint16_t port) const = 0;

    /// `port` is idle and the engine may have a packet for it: pull now (EngineDriver::Pull)
    /// or let the port pull when it is ready.
    virtual void StartPort(uint16_t port) = 0;

    /// A completion for the application.
    virtual void Deliver(const Completion& c) = 0;
};

/// Drives one engine for one host.
class EngineDriver
{
  public:
    /// `ports`: the host's ports, 0 .. ports - 1. Engine and host must outlive the driver.
    EngineDriver(TransportEngine& engine, uint16_t ports, DriverHost& host, DriverOptions options);

    /// After any call into the engine: Collect(), ServePorts(), Rearm(now).
    void Service(TimeNs now);

    /// Hands the engine's completions to the host.
    void Collect();

    /// Starts every idle port the engine may have a packet for.
    void ServePorts();

    /// Moves the host timer to the engine's deadline when the policy says so.
    void Rearm(TimeNs now);

    /// The engine's next packet of `kind` for `port`, if any.
    std::optional<OutPacket> Pull(uint16_t port, TimeNs now, PullKind kind = PullKind::Any);

    /// The host timer fired at `now`: the engine acts on its deadlines.
    void OnTimer(TimeNs now);

    /// The deadline the host timer is armed for, or kNever.
    TimeNs TimerAt() const
    {
        return m_timerAt;
    }

    TransportEngine& Engine() const
    {
        return m_engine;
    }

  private:
    /// True when the policy moves a timer armed at m_timerAt to `next`.
    bool Moves(TimeNs next) const;

    TransportEngine& m_engine;
    uint16_t m_ports;
    DriverHost& m_host;
    DriverOptions m_options;
    TimeNs m_timerAt{kNever};
    TimeNs m_lastTimeoutAt{kNever}; ///< instant of the latest OnTimer()
    uint32_t m_timeoutsAtSameTime{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_ENGINE_DRIVER_H
