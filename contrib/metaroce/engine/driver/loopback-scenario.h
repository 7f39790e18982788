/*
 * Ready-made loopback experiments (spec 12): a mixed WRITE/SEND workload over several streams
 * between two engines of one transport, run through the LoopbackHarness, then checked for the
 * reference properties - every work request completes exactly once, successfully, in posting
 * order per stream, and (in real-payload mode) every byte lands where it was meant to.
 *
 * The GoogleTest suites, the ns-3 TestSuites, the benchmarks and the quick-start example all
 * run these scenarios, so the properties are written once.
 */
#ifndef METAROCE_ENGINE_LOOPBACK_SCENARIO_H
#define METAROCE_ENGINE_LOOPBACK_SCENARIO_H

#include "../common/engine-counters.h"
#include "../metaroce/metaroce-config.h"
#include "loopback-harness.h"

#include <string>

namespace metaroce
{

/// What to run.
struct ScenarioConfig
{
    Transport transport{Transport::MetaRoce};
    MetaRoceConfig metaroce; ///< shape and tunables (MetaRoCE); mtu/rate/seed used by both
    ChannelConfig channel;
    uint32_t messages{60};            ///< WRITE/SEND work requests to post
    uint64_t maxMessageBytes{40'000}; ///< sizes are uniform in [1, max]
    uint64_t fixedMessageBytes{0};    ///< when non-zero, every message has this size
    double sendFraction{0.5};         ///< share of SENDs (the rest are WRITEs)
    bool realPayload{true};           ///< move and check real bytes
    TimeNs limit{10'000'000'000};     ///< give up at this virtual time
    int planeFailurePort{-1};         ///< when >= 0, this plane fails at planeFailureAt...
    TimeNs planeFailureAt{0};
    TimeNs planeRecoveryAt{kNever}; ///< ...and comes back then (kNever: stays down)
    /// MetaRoCE: each end's receiver admission target (spec 8.5, bytes; 0: no admission), as a
    /// driver that counts senders would set it. Pair it with metaroce.unscheduledBytes.
    uint64_t admissionTargetBytes{0};
    uint64_t seed{1};
};

/// What came out.
struct ScenarioResult
{
    bool finished{false};
    std::string error; ///< first violated property, empty when all hold
    TimeNs duration{0};
    uint64_t payloadBytes{0};
    Counters sender;
    Counters receiver;
    ChannelStats channel;
    uint64_t framesInFlight{0}; ///< on the wire when the run ended (LoopbackHarness)

    bool Ok() const
    {
        return finished && error.empty();
    }

    /// Application bytes per second of virtual time, in Gb/s.
    double GoodputGbps() const;
};

/// Runs one scenario. Throws std::invalid_argument for an invalid configuration.
ScenarioResult RunScenario(const ScenarioConfig& config);

} // namespace metaroce

#endif // METAROCE_ENGINE_LOOPBACK_SCENARIO_H
