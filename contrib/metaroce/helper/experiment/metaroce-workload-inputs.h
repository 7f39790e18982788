/*
 * The inputs of the workloads for fabric-architecture studies, from a MetaRoceExperimentConfig:
 * the all-to-allv's traffic matrix (a file, or a mixture-of-experts router's, seeded), the tree
 * all-reduce's chunk, and the stragglers (a seeded choice of ranks that start late). Each is
 * checked before anything is built, with a one-line message naming the option, and made with
 * the run's random streams, so that the same seed and run give the same matrix and the same
 * stragglers.
 */
#ifndef METAROCE_WORKLOAD_INPUTS_H
#define METAROCE_WORKLOAD_INPUTS_H

#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-traffic-matrix.h"

#include <string>
#include <vector>

namespace ns3
{

/// Largest number of tokens a rank routes (--skew): the router draws each one.
constexpr uint64_t kMaxTokensPerRank = 1000000;
/// Largest number of chunks per tree and channel (--treeChunkBytes): each is a message per hop.
constexpr uint64_t kMaxTreeChunks = 65536;

/**
 * \ingroup metaroce
 * Checks the options of alltoallv (a matrix file that reads well and matches --hosts, or a
 * skew with its router's parameters), allreduce-tree (its chunk) and the stragglers (a count
 * within the ranks, a delay, a collective); throws std::invalid_argument naming the option.
 */
void ValidateWorkloadInputs(const MetaRoceExperimentConfig& c);

/**
 * \ingroup metaroce
 * The workload options given (different from `d`) that the run would not use, each as the
 * message that refuses it (see MetaRoceExperimentConfig::UnusedOptions).
 */
std::vector<std::string> UnusedWorkloadInputs(const MetaRoceExperimentConfig& c,
                                              const MetaRoceExperimentConfig& d);

/// The routing parameters --skew, --experts, --topK, --tokenBytes and --messageBytes give.
MetaRoceMoeRouting MoeRoutingOf(const MetaRoceExperimentConfig& c);

/**
 * \ingroup metaroce
 * The all-to-allv's matrix: the file's, or the router's drawn from random stream `stream`.
 */
MetaRoceTrafficMatrix MakeTrafficMatrix(const MetaRoceExperimentConfig& c, int64_t stream);

/**
 * \ingroup metaroce
 * The c.stragglers ranks that start late, ascending: a uniform choice among c.hosts ranks
 * drawn from random stream `stream`.
 */
std::vector<uint32_t> ChooseStragglers(const MetaRoceExperimentConfig& c, int64_t stream);

} // namespace ns3

#endif // METAROCE_WORKLOAD_INPUTS_H
