#include "metaroce-experiment-workload.h"

#include "metaroce-transports.h"

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
    if (m_config.workload == "flows")
    {
        stream = InstallFlows(fabric, nics, stream, log);
    }
    else
    {
        InstallCollective(nics, log);
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

void
MetaRoceExperimentWorkload::InstallCollective(const std::vector<Ptr<MetaRoceNic>>& nics,
                                              MetaRoceMessageLog& log)
{
    m_collective = std::make_unique<MetaRoceCollectiveHelper>(ParseCollective(m_config.workload),
                                                              m_config.messageBytes);
    m_collective->SetChannels(ChannelsOf(m_config));
    m_collective->SetRepetitions(m_config.repetitions);
    m_collective->Install(nics, TransportOf(m_config));
    for (const auto& app : m_collective->GetApps())
    {
        app->TraceConnectWithoutContext("Message",
                                        MakeCallback(&MetaRoceMessageLog::OnMessage, &log));
    }
}

bool
MetaRoceExperimentWorkload::IsDone() const
{
    // In a distributed run only this rank's applications run here (the others' never start).
    const auto finished = [](const auto& app) {
        return !MetaRoceMpi::IsLocal(*app->GetNode()) || app->IsFinished();
    };
    if (m_collective)
    {
        const auto& apps = m_collective->GetApps();
        return std::all_of(apps.begin(), apps.end(), finished);
    }
    return std::all_of(m_generators.begin(), m_generators.end(), finished);
}

double
MetaRoceExperimentWorkload::Progress() const
{
    if (m_collective)
    {
        return m_collective->GetLocalProgress();
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
    if (m_collective)
    {
        r.collective = m_collective->GetResult();
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
