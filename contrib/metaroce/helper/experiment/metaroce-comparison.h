/*
 * MetaRoceComparison: runs one experiment configuration over several workloads, transports and
 * loss rates, and prints the side-by-side table the plane examples show (nccl-tests' busbw,
 * the share of the lossless result each transport keeps, tail FCT, recovery work).
 *
 * Every run is an independent MetaRoceExperiment; with an output prefix, each writes its files
 * as <prefix>-<workload>-<transport>-loss<percent>, and so does a capture prefix (--pcap).
 */
#ifndef METAROCE_COMPARISON_H
#define METAROCE_COMPARISON_H

#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-results.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A grid of experiments (workload x transport x loss) and its printed comparison.
 */
class MetaRoceComparison
{
  public:
    /**
     * `base` is the configuration every run starts from; the lists are comma-separated
     * ("allreduce-ring,alltoall", "metaroce,rocev2", "0,0.01"). Every run's configuration is
     * validated here, before any runs: throws std::invalid_argument naming the list and item,
     * the first bad field of a run, or an option that differs from `defaults` (the program's)
     * yet no run of the grid uses (MetaRoceExperimentConfig::UnusedOptions).
     */
    MetaRoceComparison(const MetaRoceExperimentConfig& base,
                       const std::string& workloads,
                       const std::string& transports,
                       const std::string& losses,
                       const MetaRoceExperimentConfig& defaults = MetaRoceExperimentConfig());

    /// Runs every combination, printing a row as each finishes. Returns the results in order.
    std::vector<MetaRoceExperimentResults> Run(std::ostream& os);

    /// The number of runs (workloads x transports x losses).
    std::size_t GetNRuns() const;

    /// True when every run completed.
    bool AllComplete() const;

  private:
    std::vector<MetaRoceExperimentConfig> m_runs;
    bool m_allComplete{true};
};

/**
 * \ingroup metaroce
 * The main() of the plane examples: `base` with every MetaRoceExperimentConfig field as a
 * --option, plus --workloads, --transports and --losses lists (defaults: ring all-reduce and
 * all-to-all; MetaRoCE, RoCEv2, RoCEv2 with PFC; 0 and 1%), run and printed. Returns 0 when
 * every run completed, 1 when one did not, 2 on a bad option (reported on stderr as
 * "<program>: <message>").
 *
 * Launched as N MPI processes (mpirun -np N, where ns-3 has its MPI module), it runs one
 * experiment - the lists must name one combination - split over the ranks (--sync=granted or
 * null), and rank 0 prints and writes the same table and files as a sequential run.
 */
int RunComparisonMain(int argc,
                      char* argv[],
                      const std::string& program,
                      const MetaRoceExperimentConfig& base);

} // namespace ns3

#endif // METAROCE_COMPARISON_H
