/*
 * MetaRoceExperiment: one experiment run from a MetaRoceExperimentConfig - build the fabric,
 * add loss and failures, install the workload, run, measure - in one call:
 *
 *   MetaRoceExperimentConfig config;
 *   config.hosts = 64; config.planes = 8; config.workload = "alltoall";
 *   config.transport = "rocev2-pfc"; config.loss = 0.01;
 *   MetaRoceExperimentResults r = MetaRoceExperiment(config).Run();
 *   r.Print(std::cout);
 *
 * Run() reads as its steps: BuildFabric(), MetaRoceExperimentWorkload::Install(), Simulate()
 * and Collect() (metaroce-experiment.cc; the workload in metaroce-experiment-workload.h, the
 * messages in metaroce-message-log.h).
 *
 * Run() owns the ns-3 simulator for its duration (Simulator::Destroy() at the end), so runs
 * are independent: a sweep is a loop of Run() calls, or one process per run.
 */
#ifndef METAROCE_EXPERIMENT_H
#define METAROCE_EXPERIMENT_H

#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-options.h"
#include "ns3/metaroce-results.h"

namespace ns3
{

class MetaRoceExperimentWorkload;
class MetaRoceFabricHelper;
class MetaRoceFabricMonitor;
class MetaRoceMessageLog;

/**
 * \ingroup metaroce
 * \brief Runs one experiment described by a MetaRoceExperimentConfig.
 */
class MetaRoceExperiment
{
  public:
    /// Validates `config`; throws std::invalid_argument naming the first bad field.
    explicit MetaRoceExperiment(const MetaRoceExperimentConfig& config);

    /**
     * Runs the experiment and returns what it measured; writes the result files when
     * config.output is set. Throws std::invalid_argument for a configuration that only fails
     * once the fabric exists (e.g. a failure naming a spine that is not there) and
     * std::runtime_error when a result file cannot be written.
     */
    MetaRoceExperimentResults Run();

  private:
    /**
     * Builds the configured fabric with its loss models and scheduled failures, after seeding
     * the random number generator; every NIC and switch gets `nicSettings` and
     * `switchSettings` (MetaRoceExperimentConfig::NicSettings). Returns the first random stream
     * left for the workload.
     */
    int64_t BuildFabric(MetaRoceFabricHelper& fabric,
                        const MetaRoceAttributeList& nicSettings,
                        const MetaRoceAttributeList& switchSettings) const;
    /// Runs the simulator until the workload is done or the stop time is reached.
    void Simulate(const MetaRoceExperimentWorkload& workload, MetaRoceFabricMonitor& monitor) const;
    /// What the run measured, from the message log and the counters of the fabric.
    MetaRoceExperimentResults Collect(const MetaRoceFabricHelper& fabric,
                                      const MetaRoceExperimentWorkload& workload,
                                      MetaRoceMessageLog& log,
                                      MetaRoceFabricMonitor& monitor) const;

    /// With several jobs: each job's time alone on its hosts (the same run with --soloJob),
    /// and its slowdown on the shared fabric.
    void MeasureJobsAlone(MetaRoceExperimentResults& r) const;

    MetaRoceExperimentConfig m_config;
};

} // namespace ns3

#endif // METAROCE_EXPERIMENT_H
