/*
 * Reports of a compliance run: a human-readable line per scenario (with the first divergence
 * of a failing one as expected line vs actual packet) and a machine-readable JSON summary.
 */
#ifndef METAROCE_COMPLIANCE_REPORT_H
#define METAROCE_COMPLIANCE_REPORT_H

#include "scenario-runner.h"

#include <ostream>
#include <string>
#include <vector>

namespace metaroce::compliance
{

/// Prints one result: "PASS name (spec ...)" or FAIL with the divergence.
void PrintResult(std::ostream& os, const ScenarioResult& r);

/// Writes the JSON summary of a run on `adapter`.
void WriteJson(std::ostream& os, const std::string& adapter, const std::vector<ScenarioResult>& rs);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_REPORT_H
