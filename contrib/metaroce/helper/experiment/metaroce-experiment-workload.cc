#include "metaroce-experiment-workload.h"

#include "metaroce-job-placement.h"
#include "metaroce-options.h"
#include "metaroce-transports.h"
#include "metaroce-workload-inputs.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/metaroce-mpi.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

MetaRoceExperimentWorkload::MetaRoceExperimentWorkload(const MetaRoceExperimentConfig& config)
    : m_config(config)
{
    if (m_config.workload == "flows")
    {
        m_flowSizes = ReadFlowSizeCdf(m_config.cdfFile);
    }
    if (m_config.workload == "schedule")
    {
        m_schedule = std::make_unique<MetaRoceScheduleRunner>(
            ReadTrainingSchedule(m_config.schedule, m_config.hosts),
            TransportOf(m_config),
            ChannelsOf(m_config),
            m_config.treeChunkBytes);
    }
}

metaroce::Transport
MetaRoceExperimentWorkload::TransportOf(const MetaRoceExperimentConfig& config)
{
    const MetaRoceTransportInfo* t = FindMetaRoceTransport(config.transport);
    return t == nullptr ? metaroce::Transport::RoceV2 : t->engine;
}

uint32_t
MetaRoceExperimentWorkload::ChannelsOf(const MetaRoceExperimentConfig& config)
{
    return MetaRoceChannels(config.transport, config.channels, config.planes);
}

uint32_t
MetaRoceExperimentWorkload::StreamsOf(const MetaRoceExperimentConfig& config)
{
    const bool tree = config.workload == "allreduce-tree" || config.workload == "schedule" ||
                      config.jobWorkloads.find("allreduce-tree") != std::string::npos;
    return ChannelsOf(config) * (tree ? 2 : 1);
}

int64_t
MetaRoceExperimentWorkload::Install(MetaRoceFabricHelper& fabric,
                                    int64_t stream,
                                    MetaRoceMessageLog& log)
{
    std::vector<Ptr<MetaRoceNic>> nics;
    for (uint32_t h = 0; h < m_config.hosts; ++h)
    {
        nics.push_back(fabric.GetNic(h));
    }
    if (m_schedule)
    {
        m_schedule->Start(nics, log);
    }
    else if (m_config.workload == "flows")
    {
        stream = InstallFlows(fabric, nics, stream, log);
    }
    else
    {
        stream = InstallCollective(nics, stream, log);
    }
    return stream;
}

int64_t
MetaRoceExperimentWorkload::InstallFlows(MetaRoceFabricHelper& fabric,
                                         const std::vector<Ptr<MetaRoceNic>>& nics,
                                         int64_t stream,
                                         MetaRoceMessageLog& log)
{
    for (uint32_t h = 0; h < m_config.hosts; ++h)
    {
        Ptr<MetaRoceFlowGenerator> g = CreateObject<MetaRoceFlowGenerator>();
        g->SetAttribute("Load", DoubleValue(m_config.load));
        g->SetAttribute("MaxFlows", UintegerValue(m_config.flowsPerHost));
        g->SetAttribute("QueuePairPerFlow", BooleanValue(m_config.qpPerFlow));
        g->Setup(nics,
                 h,
                 TransportOf(m_config),
                 MakeFlowSizeVariable(m_flowSizes),
                 m_flowSizes.meanBytes);
        stream += g->AssignStreams(stream);
        // Every rank draws every host's flows and connects their queue pairs now.
        g->Plan();
        fabric.GetHost(h)->AddApplication(g);
        g->SetStartTime(Seconds(0));
        g->TraceConnectWithoutContext("Flow", MakeCallback(&MetaRoceMessageLog::OnMessage, &log));
        m_generators.push_back(g);
    }
    return stream;
}

int64_t
MetaRoceExperimentWorkload::InstallCollective(const std::vector<Ptr<MetaRoceNic>>& nics,
                                              int64_t stream,
                                              MetaRoceMessageLog& log)
{
    const MetaRoceCollective collective = ParseCollective(m_config.workload);
    if (m_config.jobs > 1)
    {
        m_jobHosts = PlaceJobs(m_config, stream + 2);
        for (uint32_t j = 0; j < m_config.jobs; ++j)
        {
            if (m_config.soloJob < 0 || static_cast<uint32_t>(m_config.soloJob) == j)
            {
                InstallJob(nics, j, m_jobHosts[j], log);
            }
        }
        return stream + 3;
    }
    if (collective == MetaRoceCollective::ALL_TO_ALLV)
    {
        m_collective =
            std::make_unique<MetaRoceCollectiveHelper>(MakeTrafficMatrix(m_config, stream));
    }
    else
    {
        m_collective =
            std::make_unique<MetaRoceCollectiveHelper>(collective, m_config.messageBytes);
        m_collective->SetTreeChunkBytes(m_config.treeChunkBytes);
    }
    if (m_config.stragglers > 0)
    {
        m_collective->SetRankDelay(ChooseStragglers(m_config, stream + 1),
                                   ParseTimeOption("stragglerDelay", m_config.stragglerDelay));
    }
    m_collective->SetChannels(ChannelsOf(m_config));
    m_collective->SetRepetitions(m_config.repetitions);
    m_collective->Install(nics, TransportOf(m_config));
    for (const auto& app : m_collective->GetApps())
    {
        app->TraceConnectWithoutContext("Message",
                                        MakeCallback(&MetaRoceMessageLog::OnMessage, &log));
    }
    return stream + 2;
}

namespace
{

/// A job's Message trace, its ranks turned into the hosts they run on.
void
LogJobMessage(const std::vector<uint32_t>* hosts,
              MetaRoceMessageLog* log,
              uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              Time posted,
              Time completed)
{
    log->OnMessage(hosts->at(src), hosts->at(dst), bytes, posted, completed);
}

} // namespace

void
MetaRoceExperimentWorkload::InstallJob(const std::vector<Ptr<MetaRoceNic>>& nics,
                                       uint32_t job,
                                       const std::vector<uint32_t>& hosts,
                                       MetaRoceMessageLog& log)
{
    auto helper = std::make_unique<MetaRoceCollectiveHelper>(JobCollective(m_config, job),
                                                             JobBytes(m_config, job));
    helper->SetTreeChunkBytes(m_config.treeChunkBytes);
    helper->SetChannels(ChannelsOf(m_config));
    helper->SetRepetitions(m_config.repetitions);
    std::vector<Ptr<MetaRoceNic>> mine;
    for (uint32_t h : hosts)
    {
        mine.push_back(nics[h]);
    }
    helper->Install(mine, TransportOf(m_config));
    for (const auto& app : helper->GetApps())
    {
        app->TraceConnectWithoutContext("Message", MakeBoundCallback(&LogJobMessage, &hosts, &log));
    }
    m_jobs.push_back(std::move(helper));
    m_jobIds.push_back(job);
}

std::vector<const MetaRoceCollectiveHelper*>
MetaRoceExperimentWorkload::Collectives() const
{
    std::vector<const MetaRoceCollectiveHelper*> all;
    if (m_collective)
    {
        all.push_back(m_collective.get());
    }
    for (const auto& job : m_jobs)
    {
        all.push_back(job.get());
    }
    return all;
}

void
MetaRoceExperimentWorkload::CollectJobs(MetaRoceExperimentResults& r) const
{
    for (std::size_t i = 0; i < m_jobs.size(); ++i)
    {
        MetaRoceJobRecord job;
        job.job = m_jobIds[i];
        job.hosts = m_jobHosts[m_jobIds[i]];
        job.collective = m_jobs[i]->GetResult();
        r.jobs.push_back(std::move(job));
    }
    // The collective of the union: the slowest job's times (the common start to the last
    // job's end, its repetitions), every job's ranks and bytes, the jobs' mean bandwidths.
    const auto slowest =
        std::max_element(r.jobs.begin(), r.jobs.end(), [](const auto& a, const auto& b) {
            return a.collective.endUs < b.collective.endUs;
        });
    MetaRoceCollectiveResult all = slowest->collective;
    all.ranks = all.bytesSent = all.bytesExpected = all.errors = all.messagesPosted = 0;
    all.algBwGBps = all.busBwGBps = 0;
    all.rankFinishUs.clear();
    for (const auto& job : r.jobs)
    {
        const MetaRoceCollectiveResult& c = job.collective;
        all.complete = all.complete && c.complete;
        all.ranks += c.ranks;
        all.bytesSent += c.bytesSent;
        all.bytesExpected += c.bytesExpected;
        all.errors += c.errors;
        all.messagesPosted += c.messagesPosted;
        all.algBwGBps += c.algBwGBps / r.jobs.size();
        all.busBwGBps += c.busBwGBps / r.jobs.size();
    }
    r.collective = all;
}

void
MetaRoceExperimentWorkload::CollectSchedule(MetaRoceExperimentResults& r) const
{
    r.schedule = m_schedule->GetRecords();
    r.complete = m_schedule->IsDone();
    r.messages = 0;
    for (const auto& c : m_schedule->GetCollectives())
    {
        const MetaRoceCollectiveResult result = c->GetResult();
        r.complete = r.complete && result.complete;
        r.messages += result.messagesPosted;
    }
    r.durationUs = 0;
    for (const auto& op : r.schedule)
    {
        r.durationUs = std::max(r.durationUs, op.endUs);
    }
}

bool
MetaRoceExperimentWorkload::IsDone() const
{
    // In a distributed run only this rank's applications run here (the others' never start).
    const auto finished = [](const auto& app) {
        return !MetaRoceMpi::IsLocal(*app->GetNode()) || app->IsFinished();
    };
    if (m_schedule)
    {
        return m_schedule->IsDone();
    }
    const auto collectives = Collectives();
    if (!collectives.empty())
    {
        return std::all_of(collectives.begin(), collectives.end(), [&finished](const auto* c) {
            return std::all_of(c->GetApps().begin(), c->GetApps().end(), finished);
        });
    }
    return std::all_of(m_generators.begin(), m_generators.end(), finished);
}

double
MetaRoceExperimentWorkload::Progress() const
{
    if (m_schedule)
    {
        return m_schedule->Progress();
    }
    const auto collectives = Collectives();
    if (!collectives.empty())
    {
        double done = 0;
        for (const auto* c : collectives)
        {
            done += c->GetLocalProgress() / collectives.size();
        }
        return done;
    }
    uint64_t completed = 0;
    uint64_t flows = 0;
    for (const auto& g : m_generators)
    {
        if (MetaRoceMpi::IsLocal(*g->GetNode()))
        {
            completed += g->GetCompleted();
            flows += m_config.flowsPerHost;
        }
    }
    return flows == 0 ? 1.0 : static_cast<double>(completed) / flows;
}

void
MetaRoceExperimentWorkload::Collect(MetaRoceExperimentResults& r) const
{
    if (m_schedule)
    {
        CollectSchedule(r);
        return;
    }
    if (!m_jobs.empty())
    {
        CollectJobs(r);
        r.complete = r.collective.complete;
        r.durationUs = r.collective.endUs - r.collective.startUs;
        r.messages = r.collective.messagesPosted;
        return;
    }
    if (m_collective)
    {
        r.collective = m_collective->GetResult();
        const double bytesPerUs =
            ParseRateOption("hostRate", m_config.hostRate).GetBitRate() / 8e6 * m_config.planes;
        r.collective.boundUs = r.collective.busiestRankBytes / bytesPerUs;
        r.complete = r.collective.complete;
        r.durationUs = r.collective.endUs - r.collective.startUs;
        r.messages = r.collective.messagesPosted;
        return;
    }
    const double first = r.flows.empty() ? 0 : r.flows.front().startUs;
    double last = 0;
    for (const auto& f : r.flows)
    {
        last = std::max(last, f.endUs);
    }
    r.durationUs = last - first;
    // Each generator's figures from its own rank, summed: flows started, and finished ones.
    std::vector<uint64_t> counts{0, 0};
    for (const auto& g : m_generators)
    {
        if (MetaRoceMpi::IsLocal(*g->GetNode()))
        {
            counts[0] += g->GetStarted();
            counts[1] += g->IsFinished() ? 1 : 0;
        }
    }
    counts = MetaRoceMpi::Sum(std::move(counts));
    r.messages = counts[0];
    r.complete = counts[1] == m_generators.size();
}

} // namespace ns3
