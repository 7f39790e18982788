/*
 * Several jobs sharing one fabric (--jobs=J --placement=packed|spread|random): the hosts are cut
 * into J jobs of hosts / J hosts each, every job running the configured collective on its own
 * hosts, at the same time, its ranks in the order of its hosts. --jobWorkloads and --jobBytes
 * give each job a collective and a size of its own.
 *
 *  - packed: job j takes hosts j m .. j m + m - 1 (m = hosts / J), so a job fills whole leaves
 *    when m is a multiple of the hosts per leaf;
 *  - spread: host h goes to job h mod J, so every job has hosts on every leaf and its traffic
 *    crosses the spines;
 *  - random: a seeded shuffle of the hosts, then packed (the same seed and run, the same jobs).
 *
 * Each job's slowdown is its time over its time alone on the same hosts (--soloJob=j: the same
 * run with job j only), which MetaRoceExperiment measures after the shared run.
 */
#ifndef METAROCE_JOB_PLACEMENT_H
#define METAROCE_JOB_PLACEMENT_H

#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-experiment-config.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * Checks --jobs, --placement and --soloJob against the hosts and the workload (J divides the
 * hosts with at least two per job, a collective other than alltoallv, no stragglers); throws
 * std::invalid_argument naming the option.
 */
void ValidateJobs(const MetaRoceExperimentConfig& c);

/// A job's collective: its --jobWorkloads entry, or the workload.
MetaRoceCollective JobCollective(const MetaRoceExperimentConfig& c, uint32_t job);

/// A job's buffer per rank: its --jobBytes entry, or messageBytes.
uint64_t JobBytes(const MetaRoceExperimentConfig& c, uint32_t job);

/// --placement, --soloJob, --jobWorkloads or --jobBytes given (other than `d`'s) without --jobs
/// above 1.
std::vector<std::string> UnusedJobOptions(const MetaRoceExperimentConfig& c,
                                          const MetaRoceExperimentConfig& d);

/**
 * \ingroup metaroce
 * The hosts of every job (jobs[j][rank] is the host of rank `rank` of job j), placed by
 * c.placement; random draws from random stream `stream`.
 */
std::vector<std::vector<uint32_t>> PlaceJobs(const MetaRoceExperimentConfig& c, int64_t stream);

} // namespace ns3

#endif // METAROCE_JOB_PLACEMENT_H
