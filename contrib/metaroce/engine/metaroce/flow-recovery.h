/*
 * How a requester's flows recover (spec 6.3, 6.4, 4.5): the retransmission timeout of a flow,
 * the health changes a timeout, a take-down, a port event or an acknowledgement brings, and the
 * moves to a new route (entropy re-draws).
 *
 *   RTO:     min(base << min(consecutiveTimeouts, 8), rtoMax), base from the flow's own RTT
 *            samples (RFC 6298), or the initial RTO before it has one.
 *   Timeout: Suspect after flowSuspectTimeouts, Down after flowDownTimeouts; a timeout that
 *            leaves the flow up always moves it to a new route.
 *   Down:    PROBEs only, every probeInterval while the port is up; a covered PROBE brings the
 *            flow back Up with its initial window.
 *   Re-draw: on loss or persistent ECN marks at most once per flow srtt, from a generator
 *            seeded per connection, which also drew the flows' first entropies.
 *
 * What is in flight on a flow is the requester's business: it marks packets lost before the
 * health changes here (FlowRecovery never touches the outstanding list).
 */
#ifndef METAROCE_ENGINE_FLOW_RECOVERY_H
#define METAROCE_ENGINE_FLOW_RECOVERY_H

#include "../common/engine-counters.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace metaroce
{

/// Health and route changes of a requester's flows.
class FlowRecovery
{
  public:
    /// The generator is seeded from the connection's `ids` (its seed and local id).
    FlowRecovery(const MetaRoceConfig& config, Counters& counters, const ConnectionIds& ids);

    /// A fresh entropy (UDP source port) from the connection's generator (spec 6.4).
    uint16_t DrawEntropy();

    /**
     * Frees the generator's state (2.5 kB) until the next draw, which rebuilds it from the seed
     * and the number of draws so far: the same sequence. The requester calls it once its
     * flows have their first entropies, as most connections of a lossless fabric never move a
     * flow again. A connection that moved a flow keeps it: rebuilding costs a draw per draw
     * made so far, and a congested flow moves as often as once per round trip.
     */
    void ReleaseGenerator();

    /// The flow's retransmission timeout, backed off by its consecutive timeouts (spec 4.5),
    /// from a base of at least `floor`.
    TimeNs Rto(const Flow& flow, TimeNs floor = 0) const;

    /// True when this timeout (already counted in consecutiveTimeouts) takes the flow down.
    bool TimeoutTakesDown(const Flow& flow) const;

    /// After a timeout that leaves `flow` up: Suspect after enough, and a new route.
    void AfterTimeout(Flow& flow, TimeNs now);

    /// Takes `flow` Down (its in-flight packets already lost); it probes while its port is up.
    void TakeDown(Flow& flow, bool portUp, TimeNs now);

    /// The port of a Down `flow` came back: probe at once.
    void OnPortUp(Flow& flow, TimeNs now);

    /// A PROBE left on `flow` at `now`: the next one is due an interval later.
    void OnProbeSent(Flow& flow, TimeNs now);

    /// An ACK acknowledged in-flight packets of `flow`, among them a PROBE when `probeAcked`.
    void OnProgress(Flow& flow, bool probeAcked);

    /// An ACK of `flow` echoed `ceCount` marks having acknowledged `ackedPackets` in flight.
    void OnMarks(Flow& flow, uint16_t ceCount, uint32_t ackedPackets, TimeNs now);

    /// Moves `flow` to a new route, unless it moved less than one srtt ago (spec 6.4).
    void MaybeRedraw(Flow& flow, TimeNs now);

  private:
    /// When `flow` last moved to new entropy (kNever: not since its last timeout).
    TimeNs& LastRedraw(const Flow& flow);

    const MetaRoceConfig& m_config;
    Counters& m_counters;
    uint64_t m_seed;
    uint64_t m_draws{0};
    std::unique_ptr<std::mt19937_64> m_rng; ///< null after ReleaseGenerator(), until a draw
    std::vector<TimeNs> m_lastRedraw;       ///< per flow, kNever: never moved; empty until then
};

} // namespace metaroce

#endif // METAROCE_ENGINE_FLOW_RECOVERY_H
