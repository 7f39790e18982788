/*
 * metaroce-perf's output, in perftest's layout: a banner naming the test and its settings,
 * one row per message size, dashed rules. Bandwidth rows carry ib_write_bw's columns (bytes,
 * iterations, peak and average bandwidth, message rate) with the bandwidth both in Gb/s (as
 * perftest's --report_gbits) and MB/s; latency rows ib_send_lat's (min, max, typical =
 * median, average, standard deviation, 99% and 99.9% percentiles, in microseconds).
 *
 * Peak bandwidth: perftest takes it over its shortest measured interval; here it is the best
 * rate over any run of max(1, iterations/20) consecutive completions (a steadier figure on a
 * host whose scheduler stalls a process now and then). Average: all bytes over the time from
 * the first post to the last completion.
 */
#ifndef METAROCE_RUNTIME_PERF_REPORT_H
#define METAROCE_RUNTIME_PERF_REPORT_H

#include "perf-identity.h"
#include "perf-options.h"

#include <ostream>
#include <string>
#include <vector>

namespace metaroce::perf
{

/// Prints the banner of the test (perftest's header block), with both ends' identities as
/// perftest's "local address" and "remote address" lines (QPN, PSN, RKey, VAddr).
void PrintBanner(std::ostream& out,
                 const PerfOptions& options,
                 const Identity& local,
                 const Identity& remote);

/// Prints the table's column header.
void PrintColumns(std::ostream& out, Test test);

/**
 * Prints a bandwidth row from the completion times (ns) of `iters` messages of `size` bytes
 * posted from `startNs`.
 */
void PrintBandwidthRow(std::ostream& out,
                       uint64_t size,
                       uint64_t startNs,
                       const std::vector<uint64_t>& completionNs);

/// Prints a latency row from per-iteration samples in nanoseconds.
void PrintLatencyRow(std::ostream& out, uint64_t size, std::vector<uint64_t> samplesNs);

/// The closing rule.
void PrintRule(std::ostream& out);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_REPORT_H
