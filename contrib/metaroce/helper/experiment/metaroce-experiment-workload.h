/*
 * MetaRoceExperimentWorkload: the workload of one MetaRoceExperiment - a collective
 * (MetaRoceCollectiveHelper) or the flows workload (a MetaRoceFlowGenerator per host) -
 * installed on a built fabric, reporting its messages to a MetaRoceMessageLog, stopping the
 * simulator as soon as it is done, and filling its part of the results.
 */
#ifndef METAROCE_EXPERIMENT_WORKLOAD_H
#define METAROCE_EXPERIMENT_WORKLOAD_H

#include "ns3/metaroce-collective-helper.h"
#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-flow-generator.h"
#include "ns3/metaroce-message-log.h"
#include "ns3/metaroce-results.h"
#include "ns3/metaroce-schedule-runner.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Installs and watches the workload of one experiment run.
 */
class MetaRoceExperimentWorkload
{
  public:
    /**
     * Reads what may still fail - the flows workload's CDF file - so it fails before anything
     * is scheduled. Throws std::invalid_argument.
     */
    explicit MetaRoceExperimentWorkload(const MetaRoceExperimentConfig& config);

    /// The engine of the transport the configuration names (metaroce, or a rocev2 baseline).
    static metaroce::Transport TransportOf(const MetaRoceExperimentConfig& config);
    /// The channels a collective is split over: config.channels, or the transport's per plane.
    static uint32_t ChannelsOf(const MetaRoceExperimentConfig& config);
    /// The MetaRoCE streams per connection the collective uses: a channel's, or two per channel
    /// for allreduce-tree (a stream per tree).
    static uint32_t StreamsOf(const MetaRoceExperimentConfig& config);

    /**
     * Installs the applications on every host of the built `fabric`, their messages reported
     * to `log`, and stops the simulator once all have finished. The flows workload draws from
     * the random streams from `stream` on, a collective's traffic matrix and stragglers the
     * first two; returns the first stream it left unused.
     */
    int64_t Install(MetaRoceFabricHelper& fabric, int64_t stream, MetaRoceMessageLog& log);

    /// True when every application of this process has finished (in a distributed run, the
    /// other ranks' applications are theirs to finish).
    bool IsDone() const;

    /// The share of this process's part of the workload done, in [0, 1]: bytes sent of a
    /// collective's schedule, or flows completed of all the hosts' flows.
    double Progress() const;

    /// Fills complete, durationUs, messages and the collective of `r`, whose flows are set
    /// (every rank of a distributed run calls it, after the run).
    void Collect(MetaRoceExperimentResults& r) const;

  private:
    int64_t InstallFlows(MetaRoceFabricHelper& fabric,
                         const std::vector<Ptr<MetaRoceNic>>& nics,
                         int64_t stream,
                         MetaRoceMessageLog& log);
    int64_t InstallCollective(const std::vector<Ptr<MetaRoceNic>>& nics,
                              int64_t stream,
                              MetaRoceMessageLog& log);

    /// Installs job j of several (--jobs) on `hosts`, its messages logged by host.
    void InstallJob(const std::vector<Ptr<MetaRoceNic>>& nics,
                    uint32_t job,
                    const std::vector<uint32_t>& hosts,
                    MetaRoceMessageLog& log);
    /// Fills the results of several jobs: each job, and the collective as their union.
    void CollectJobs(MetaRoceExperimentResults& r) const;
    /// Fills the results of a schedule: its operations, and whether every one completed.
    void CollectSchedule(MetaRoceExperimentResults& r) const;
    /// Every installed collective: the one, or each job's.
    std::vector<const MetaRoceCollectiveHelper*> Collectives() const;

    MetaRoceExperimentConfig m_config;
    MetaRoceFlowSizeCdf m_flowSizes; ///< flows workload only
    std::unique_ptr<MetaRoceCollectiveHelper> m_collective;
    std::vector<std::unique_ptr<MetaRoceCollectiveHelper>> m_jobs; ///< with --jobs above 1
    std::vector<uint32_t> m_jobIds;                                ///< each installed job's
    std::vector<std::vector<uint32_t>> m_jobHosts;                 ///< every job's hosts
    std::vector<Ptr<MetaRoceFlowGenerator>> m_generators;
    std::unique_ptr<MetaRoceScheduleRunner> m_schedule; ///< workload "schedule"
};

} // namespace ns3

#endif // METAROCE_EXPERIMENT_WORKLOAD_H
