/*
 * The engine adapter: drives a TransportEngine (MetaRoceConnection or RoceV2QueuePair)
 * directly on a virtual clock, as a NIC would (spec 1.3), through the engine's own
 * EngineDriver: after every event it pulls on every idle port that is up, keeps a port busy for
 * the frame's serialisation time, and calls OnTimeout when NextTimeout() comes due (its timer
 * tracks the deadline exactly: it has no event queue, only the next event to jump to). It links
 * the engine only, never ns-3.
 *
 * To make its timing comparable with the ns-3 NIC adapter, a port is busy for the frame a
 * point-to-point link carries: the UDP payload plus kFrameOverheadBytes, at the port's rate.
 */
#ifndef METAROCE_COMPLIANCE_ENGINE_ADAPTER_H
#define METAROCE_COMPLIANCE_ENGINE_ADAPTER_H

#include "compliance-adapter.h"
#include "engine-driver.h"
#include "transport-engine.h"

#include <memory>

namespace metaroce::compliance
{

/// IPv4 (20) + UDP (8) + PPP (2): what MetaRoceNic puts around a UDP payload on its links.
constexpr uint64_t kFrameOverheadBytes = 30;

/// Serialisation time of `udpPayloadBytes` at `rateBps`, rounded to the nearest nanosecond.
TimeNs FrameTimeNs(uint64_t udpPayloadBytes, uint64_t rateBps);

/// Drives an engine directly.
class EngineAdapter : public ComplianceAdapter, private DriverHost
{
  public:
    const char* Name() const override;
    void Reset(const DutSetup& setup) override;
    TimeNs Now() const override;
    void AdvanceTo(TimeNs t, bool stopOnOutput) override;
    void Inject(const WirePacket& pkt) override;
    uint64_t Post(const WorkRequest& wr) override;
    void SetPortState(uint16_t port, bool up) override;
    Counters ReadCounters() const override;

  private:
    /// Nothing to schedule: NextEvent() reads the driver's TimerAt().
    void ScheduleTimer(TimeNs at) override;
    bool PortIdle(uint16_t port) const override;
    /// Pulls the engine's packet for `port`, emits it and keeps the port busy for its frame.
    void StartPort(uint16_t port) override;
    void Deliver(const Completion& c) override;

    /// Collects completions, starts every idle port that is up, re-arms.
    void Service();
    /// The earliest pending event (a port becoming free, the engine's deadline), or kNever.
    TimeNs NextEvent() const;
    bool HasOutput() const;

    DutSetup m_setup;
    std::unique_ptr<MemoryRegistry> m_memory;
    std::unique_ptr<TransportEngine> m_engine;
    std::unique_ptr<EngineDriver> m_driver;
    TimeNs m_now{0};
    std::vector<TimeNs> m_busyUntil; ///< per port; kNever when idle
    std::vector<bool> m_portUp;
    uint64_t m_nextWrId{1};
};

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_ENGINE_ADAPTER_H
