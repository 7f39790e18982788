/*
 * Plays a scenario against an implementation through its adapter and reports the first
 * divergence, as packetdrill does: the DUT's emitted packets must match the `expect` lines one
 * by one, in emission order (by start time, then port), each within its time tolerance; every
 * packet emitted before the last line's time must be expected; completions likewise; counters
 * are compared when asked.
 */
#ifndef METAROCE_COMPLIANCE_SCENARIO_RUNNER_H
#define METAROCE_COMPLIANCE_SCENARIO_RUNNER_H

#include "compliance-adapter.h"
#include "scenario.h"

#include <optional>
#include <string>

namespace metaroce::compliance
{

/// Where a scenario and the DUT first disagreed.
struct Divergence
{
    int line{0};
    std::string expected; ///< the scenario line
    std::string actual;   ///< what the DUT did instead (a decoded packet, "nothing", ...)
    std::string reason;   ///< the fields that differ, or the error
};

/// Outcome of one scenario on one adapter.
struct ScenarioResult
{
    std::string name;
    std::string spec;
    std::string spec10; ///< the MetaRoCE 1.0 tag as written back (FormatSpec10Tag)
    std::string title;
    bool passed{false};
    std::size_t packetsMatched{0};
    std::size_t stepsRun{0};
    std::optional<Divergence> divergence;
};

/// Runs `scenario` on a freshly reset `adapter`.
ScenarioResult RunScenario(const Scenario& scenario, ComplianceAdapter& adapter);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_SCENARIO_RUNNER_H
