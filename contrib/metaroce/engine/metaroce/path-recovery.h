/*
 * How a requester's paths recover (spec 4.3, 4.4, 5.5): the retransmission timeout of a path,
 * the health changes a timeout, a take-down, a port event or an acknowledgement brings, and the
 * moves to a new route (entropy re-draws).
 *
 *   RTO:     min(base << min(consecutiveTimeouts, 8), rtoMax), base from the path's own RTT
 *            samples (RFC 6298), or the initial RTO before it has one.
 *   Timeout: Suspect after pathSuspectTimeouts, Down after pathDownTimeouts; a timeout that
 *            leaves the path up always moves it to a new route.
 *   Down:    PROBEs only, every probeInterval while the port is up; a covered PROBE brings the
 *            path back Up with its initial window.
 *   Re-draw: on loss or persistent ECN marks at most once per path srtt, from a generator
 *            seeded per connection, which also drew the paths' first entropies.
 *
 * What is in flight on a path is the requester's business: it marks packets lost before the
 * health changes here (PathRecovery never touches the outstanding list).
 */
#ifndef METAROCE_ENGINE_PATH_RECOVERY_H
#define METAROCE_ENGINE_PATH_RECOVERY_H

#include "../common/engine-counters.h"
#include "metaroce-config.h"
#include "metaroce-path.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace metaroce
{

/// Health and route changes of a requester's paths.
class PathRecovery
{
  public:
    /// The generator is seeded from the connection's `ids` (its seed and local id).
    PathRecovery(const MetaRoceConfig& config, Counters& counters, const ConnectionIds& ids);

    /// A fresh entropy (UDP source port) from the connection's generator (spec 4.4).
    uint16_t DrawEntropy();

    /**
     * Frees the generator's state (2.5 kB) until the next draw, which rebuilds it from the seed
     * and the number of draws so far: the same sequence. The requester calls it once its
     * paths have their first entropies, as most connections of a lossless fabric never move a
     * path again. A connection that moved a path keeps it: rebuilding costs a draw per draw
     * made so far, and a congested path moves as often as once per round trip.
     */
    void ReleaseGenerator();

    /// The path's retransmission timeout, backed off by its consecutive timeouts (spec 5.5),
    /// from a base of at least `floor`.
    TimeNs Rto(const Path& path, TimeNs floor = 0) const;

    /// True when this timeout (already counted in consecutiveTimeouts) takes the path down.
    bool TimeoutTakesDown(const Path& path) const;

    /// After a timeout that leaves `path` up: Suspect after enough, and a new route.
    void AfterTimeout(Path& path, TimeNs now);

    /// Takes `path` Down (its in-flight packets already lost); it probes while its port is up.
    void TakeDown(Path& path, bool portUp, TimeNs now);

    /// The port of a Down `path` came back: probe at once.
    void OnPortUp(Path& path, TimeNs now);

    /// A PROBE left on `path` at `now`: the next one is due an interval later.
    void OnProbeSent(Path& path, TimeNs now);

    /// An ACK acknowledged in-flight packets of `path`, among them a PROBE when `probeAcked`.
    void OnProgress(Path& path, bool probeAcked);

    /// An ACK of `path` echoed `ceCount` marks having acknowledged `ackedPackets` in flight.
    void OnMarks(Path& path, uint16_t ceCount, uint32_t ackedPackets, TimeNs now);

    /// Moves `path` to a new route, unless it moved less than one srtt ago (spec 4.4).
    void MaybeRedraw(Path& path, TimeNs now);

  private:
    /// When `path` last moved to new entropy (kNever: not since its last timeout).
    TimeNs& LastRedraw(const Path& path);

    const MetaRoceConfig& m_config;
    Counters& m_counters;
    uint64_t m_seed;
    uint64_t m_draws{0};
    std::unique_ptr<std::mt19937_64> m_rng; ///< null after ReleaseGenerator(), until a draw
    std::vector<TimeNs> m_lastRedraw;       ///< per path, kNever: never moved; empty until then
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PATH_RECOVERY_H
