/*
 * MetaRoceScheduleRunner: plays a training schedule (metaroce-training-schedule.h) on a built
 * fabric. Groups run at the same time, each through its operations in order, iteration after
 * iteration:
 *
 *   compute     the group waits the gap;
 *   collective  a MetaRoceCollectiveHelper over the group's hosts (rank i on ranks[i]), its
 *               queue pairs connected and its ranks started when the group reaches it; the
 *               operation ends when the last rank of the group has finished;
 *   barrier     the group waits until every group with a barrier of that name has reached it
 *               in the same iteration.
 *
 * An operation starts when the previous one of its group ends (a group-wide order, as the
 * ranks of a NCCL communicator meet in each collective). Every operation is recorded with its
 * start and end (MetaRoceScheduleRecord).
 */
#ifndef METAROCE_SCHEDULE_RUNNER_H
#define METAROCE_SCHEDULE_RUNNER_H

#include "metaroce-training-schedule.h"

#include "ns3/metaroce-collective-helper.h"
#include "ns3/metaroce-message-log.h"
#include "ns3/metaroce-results.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Runs the groups of a training schedule over collectives and compute gaps.
 */
class MetaRoceScheduleRunner
{
  public:
    /**
     * \param schedule the parsed schedule
     * \param transport every collective's transport
     * \param channels every collective's channels (0: one per plane)
     * \param treeChunkBytes allreduce-tree's pipeline chunk
     */
    MetaRoceScheduleRunner(MetaRoceTrainingSchedule schedule,
                           metaroce::Transport transport,
                           uint32_t channels,
                           uint64_t treeChunkBytes);

    /// Starts every group at the current time on `nics` (all hosts), messages to `log`.
    void Start(const std::vector<Ptr<MetaRoceNic>>& nics, MetaRoceMessageLog& log);

    /// True when every group has finished its last operation.
    bool IsDone() const;
    /// Operations finished over all operations, in [0, 1].
    double Progress() const;
    /// Every operation begun so far, in the order they began.
    const std::vector<MetaRoceScheduleRecord>& GetRecords() const;
    /// Every collective run so far (their results, in the order they began).
    const std::vector<std::unique_ptr<MetaRoceCollectiveHelper>>& GetCollectives() const;

  private:
    /// Where a group is.
    struct GroupState
    {
        uint64_t next{0};      ///< the current operation, counted over iterations
        uint32_t running{0};   ///< ranks of the current collective not finished yet
        std::size_t record{0}; ///< the current operation's record
        bool done{false};
    };

    /// The operation the group is at.
    const MetaRoceScheduleOp& CurrentOp(uint32_t group) const;
    /// Begins the group's current operation (or finishes the group past the last).
    void Advance(uint32_t group);
    /// Ends the group's current operation now and begins the next.
    void Finish(uint32_t group);
    void StartCollective(uint32_t group, const MetaRoceScheduleOp& op);
    void ArriveAtBarrier(uint32_t group, const std::string& name, uint32_t iteration);
    void OnRankFinished(uint32_t group, uint32_t rank, Time at);

    MetaRoceTrainingSchedule m_schedule;
    metaroce::Transport m_transport;
    uint32_t m_channels;
    uint64_t m_treeChunkBytes;
    std::vector<Ptr<MetaRoceNic>> m_nics;
    MetaRoceMessageLog* m_log{nullptr};
    std::vector<GroupState> m_groups;
    /// Per barrier name, the groups that have one.
    std::map<std::string, std::set<uint32_t>> m_barrierGroups;
    /// Per barrier name and iteration, the groups waiting there.
    std::map<std::pair<std::string, uint32_t>, std::set<uint32_t>> m_waiting;
    std::vector<MetaRoceScheduleRecord> m_records;
    std::vector<std::unique_ptr<MetaRoceCollectiveHelper>> m_collectives;
    std::vector<std::vector<uint32_t>> m_hostsOfGroup; ///< for the message log
    uint64_t m_opsDone{0};
    uint64_t m_opsTotal{0};
};

} // namespace ns3

#endif // METAROCE_SCHEDULE_RUNNER_H
