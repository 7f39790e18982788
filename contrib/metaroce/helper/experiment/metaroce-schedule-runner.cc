#include "metaroce-schedule-runner.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceScheduleRunner");

namespace
{

/// A group's Message trace, its ranks turned into the hosts they run on.
void
LogGroupMessage(const std::vector<uint32_t>* hosts,
                MetaRoceMessageLog* log,
                uint32_t src,
                uint32_t dst,
                uint64_t bytes,
                Time posted,
                Time completed)
{
    log->OnMessage((*hosts)[src], (*hosts)[dst], bytes, posted, completed);
}

} // namespace

MetaRoceScheduleRunner::MetaRoceScheduleRunner(MetaRoceTrainingSchedule schedule,
                                               metaroce::Transport transport,
                                               uint32_t channels,
                                               uint64_t treeChunkBytes)
    : m_schedule(std::move(schedule))
    , m_transport(transport)
    , m_channels(channels)
    , m_treeChunkBytes(treeChunkBytes)
{
    m_groups.resize(m_schedule.groups.size());
    for (uint32_t g = 0; g < m_schedule.groups.size(); ++g)
    {
        const MetaRoceScheduleGroup& group = m_schedule.groups[g];
        m_hostsOfGroup.push_back(group.ranks);
        m_opsTotal += static_cast<uint64_t>(group.ops.size()) * m_schedule.iterations;
        for (const MetaRoceScheduleOp& op : group.ops)
        {
            if (op.kind == MetaRoceScheduleOp::Kind::BARRIER)
            {
                m_barrierGroups[op.name].insert(g);
            }
        }
    }
}

void
MetaRoceScheduleRunner::Start(const std::vector<Ptr<MetaRoceNic>>& nics, MetaRoceMessageLog& log)
{
    m_nics = nics;
    m_log = &log;
    for (uint32_t g = 0; g < m_groups.size(); ++g)
    {
        Advance(g);
    }
}

const MetaRoceScheduleOp&
MetaRoceScheduleRunner::CurrentOp(uint32_t g) const
{
    const MetaRoceScheduleGroup& group = m_schedule.groups[g];
    return group.ops[m_groups[g].next % group.ops.size()];
}

void
MetaRoceScheduleRunner::Advance(uint32_t g)
{
    const MetaRoceScheduleGroup& group = m_schedule.groups[g];
    GroupState& state = m_groups[g];
    if (state.next >= static_cast<uint64_t>(group.ops.size()) * m_schedule.iterations)
    {
        state.done = true;
        return;
    }
    const uint32_t iteration = state.next / group.ops.size();
    const uint32_t index = state.next % group.ops.size();
    const MetaRoceScheduleOp& op = group.ops[index];
    MetaRoceScheduleRecord record;
    record.group = group.name;
    record.iteration = iteration;
    record.op = index;
    record.startUs = Simulator::Now().GetNanoSeconds() / 1e3;
    record.kind = op.kind == MetaRoceScheduleOp::Kind::COMPUTE   ? "compute"
                  : op.kind == MetaRoceScheduleOp::Kind::BARRIER ? "barrier"
                                                                 : CollectiveName(op.collective);
    record.bytes = op.bytes;
    state.record = m_records.size();
    m_records.push_back(record);
    NS_LOG_INFO(group.name << " iteration " << iteration << " op " << index << ": " << record.kind);
    switch (op.kind)
    {
    case MetaRoceScheduleOp::Kind::COMPUTE:
        Simulator::Schedule(op.duration, &MetaRoceScheduleRunner::Finish, this, g);
        break;
    case MetaRoceScheduleOp::Kind::BARRIER:
        ArriveAtBarrier(g, op.name, iteration);
        break;
    case MetaRoceScheduleOp::Kind::COLLECTIVE:
        StartCollective(g, op);
        break;
    }
}

void
MetaRoceScheduleRunner::Finish(uint32_t g)
{
    GroupState& state = m_groups[g];
    m_records[state.record].endUs = Simulator::Now().GetNanoSeconds() / 1e3;
    ++state.next;
    ++m_opsDone;
    Advance(g);
}

void
MetaRoceScheduleRunner::StartCollective(uint32_t g, const MetaRoceScheduleOp& op)
{
    auto helper = std::make_unique<MetaRoceCollectiveHelper>(op.collective, op.bytes);
    helper->SetTreeChunkBytes(m_treeChunkBytes);
    helper->SetChannels(m_channels);
    std::vector<Ptr<MetaRoceNic>> nics;
    for (uint32_t host : m_hostsOfGroup[g])
    {
        nics.push_back(m_nics[host]);
    }
    // Installed now, the ranks start now: an application's start time counts from its
    // initialisation, which the node schedules at once.
    helper->SetStartTime(Seconds(0));
    helper->Install(nics, m_transport);
    m_groups[g].running = nics.size();
    for (const auto& app : helper->GetApps())
    {
        app->TraceConnectWithoutContext(
            "Message",
            MakeBoundCallback(&LogGroupMessage, &m_hostsOfGroup[g], m_log));
        app->TraceConnectWithoutContext(
            "Finished",
            MakeCallback(&MetaRoceScheduleRunner::OnRankFinished, this).Bind(g));
    }
    m_collectives.push_back(std::move(helper));
}

void
MetaRoceScheduleRunner::OnRankFinished(uint32_t g, uint32_t /* rank */, Time /* at */)
{
    GroupState& state = m_groups[g];
    if (--state.running == 0)
    {
        // nccl-tests' bus bandwidth of this collective, from its start and its last rank's end.
        MetaRoceScheduleRecord& record = m_records[state.record];
        const MetaRoceScheduleOp& op = CurrentOp(g);
        const double us = Simulator::Now().GetNanoSeconds() / 1e3 - record.startUs;
        const auto ranks = static_cast<uint32_t>(m_hostsOfGroup[g].size());
        record.busBwGBps =
            us > 0 ? op.bytes / us / 1e3 * BusBandwidthFactor(op.collective, ranks) : 0;
        // The group's next operation begins in an event of its own, not inside the last rank's
        // completion handling.
        Simulator::ScheduleNow(&MetaRoceScheduleRunner::Finish, this, g);
    }
}

void
MetaRoceScheduleRunner::ArriveAtBarrier(uint32_t g, const std::string& name, uint32_t iteration)
{
    std::set<uint32_t>& waiting = m_waiting[{name, iteration}];
    waiting.insert(g);
    if (waiting.size() < m_barrierGroups.at(name).size())
    {
        return;
    }
    for (uint32_t member : waiting)
    {
        Simulator::ScheduleNow(&MetaRoceScheduleRunner::Finish, this, member);
    }
}

bool
MetaRoceScheduleRunner::IsDone() const
{
    return std::all_of(m_groups.begin(), m_groups.end(), [](const GroupState& s) {
        return s.done;
    });
}

double
MetaRoceScheduleRunner::Progress() const
{
    return m_opsTotal == 0 ? 1.0 : static_cast<double>(m_opsDone) / m_opsTotal;
}

const std::vector<MetaRoceScheduleRecord>&
MetaRoceScheduleRunner::GetRecords() const
{
    return m_records;
}

const std::vector<std::unique_ptr<MetaRoceCollectiveHelper>>&
MetaRoceScheduleRunner::GetCollectives() const
{
    return m_collectives;
}

} // namespace ns3
