/*
 * The flow-size distribution file of the flows workload, parsed without ns-3: one
 * "bytes cumulative-probability" pair per line. Kept apart from ReadFlowSizeCdf() (which turns
 * the points into an ns-3 EmpiricalRandomVariable) so that the parser, which reads a file a
 * user wrote, can be fuzzed on its own (test/fuzz, doc/reliability.md).
 */
#ifndef METAROCE_FLOW_SIZE_CDF_H
#define METAROCE_FLOW_SIZE_CDF_H

#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * A flow-size distribution: (bytes, cumulative probability) points, both non-decreasing, the
 * last probability 1, and the mean of the linearly interpolated distribution.
 */
struct MetaRoceFlowSizeCdf
{
    std::vector<std::pair<double, double>> points; ///< (bytes, cumulative probability)
    double meanBytes{0};                           ///< mean flow size, bytes
};

/// Largest flow size a CDF may name: one message, whose length field is 32 bits (spec 5.2).
constexpr double kMetaRoceMaxFlowBytes = 4294967295.0;

/**
 * \ingroup metaroce
 * Parses a distribution from `in`: one "bytes probability" pair per line, '#' starts a
 * comment, blank lines are skipped; bytes in [1, 2^32-1] (a flow is one message), probabilities
 * in [0, 1], both non-decreasing, the last probability exactly 1. Throws std::invalid_argument
 * naming `name` and the line on anything else.
 */
MetaRoceFlowSizeCdf ParseFlowSizeCdf(std::istream& in, const std::string& name);

} // namespace ns3

#endif // METAROCE_FLOW_SIZE_CDF_H
