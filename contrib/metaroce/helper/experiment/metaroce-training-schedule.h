/*
 * A training schedule (--schedule=FILE, doc/schedules.md "Schedules"): groups of ranks, each
 * with its operations in order - collectives, compute gaps and barriers with other groups -
 * repeated for a number of iterations. Enough to describe the data-, tensor- and
 * expert-parallel groups of a few training steps.
 *
 * The file is JSON:
 *
 *   {"format": "metaroce-schedule/1",
 *    "iterations": 2,
 *    "groups": [
 *      {"name": "tp0", "ranks": [0, 1, 2, 3],
 *       "ops": [{"compute": "40us"},
 *               {"collective": "allreduce-ring", "bytes": 1048576},
 *               {"barrier": "backward"}]},
 *      ...]}
 *
 * ReadTrainingSchedule() checks every key and value and throws std::invalid_argument with one
 * line naming the file and the place ("step.json: groups[1].ops[2].bytes: ..."). The experiment's
 * runner is metaroce-schedule-runner.h.
 */
#ifndef METAROCE_TRAINING_SCHEDULE_H
#define METAROCE_TRAINING_SCHEDULE_H

#include "ns3/metaroce-collective-schedule.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/// One operation of a group.
struct MetaRoceScheduleOp
{
    /// What the operation is.
    enum class Kind
    {
        COMPUTE,    ///< a gap: the group's ranks compute for `duration`
        COLLECTIVE, ///< a collective over the group's ranks, a buffer of `bytes` per rank
        BARRIER,    ///< waits until every group with a barrier of this `name` has reached it
    };

    Kind kind{Kind::COMPUTE};
    Time duration;                                                      ///< COMPUTE
    MetaRoceCollective collective{MetaRoceCollective::ALL_REDUCE_RING}; ///< COLLECTIVE
    uint64_t bytes{0};                                                  ///< COLLECTIVE
    std::string name;                                                   ///< BARRIER
};

/// A group of ranks (hosts) and its operations, in order.
struct MetaRoceScheduleGroup
{
    std::string name;
    std::vector<uint32_t> ranks; ///< hosts; rank i of the group's collectives is ranks[i]
    std::vector<MetaRoceScheduleOp> ops;
};

/// A parsed schedule.
struct MetaRoceTrainingSchedule
{
    uint32_t iterations{1}; ///< every group runs its ops this many times
    std::vector<MetaRoceScheduleGroup> groups;
};

/**
 * \ingroup metaroce
 * Parses a schedule from JSON text for a fabric of `hosts` hosts. Throws std::invalid_argument
 * naming the place and the problem: malformed JSON, an unknown key, a wrong type, a rank out of
 * range or repeated, a negative or zero size, an unknown collective, a group name used twice,
 * barriers that two groups reach in different orders (they would wait for each other forever).
 */
MetaRoceTrainingSchedule ParseTrainingSchedule(const std::string& text, uint32_t hosts);

/// ParseTrainingSchedule() of a file's contents; a file that cannot be read throws too.
MetaRoceTrainingSchedule ReadTrainingSchedule(const std::string& path, uint32_t hosts);

/**
 * \ingroup metaroce
 * Checks that every collective of `schedule` can be built over its group split over `channels`
 * channels (halving-doubling on a power of two, a block per rank in each channel, ...); throws
 * std::invalid_argument naming the operation otherwise.
 */
void CheckTrainingSchedule(const MetaRoceTrainingSchedule& schedule,
                           uint32_t channels,
                           uint64_t treeChunkBytes);

} // namespace ns3

#endif // METAROCE_TRAINING_SCHEDULE_H
