#include "metaroce-collective-helper.h"

#include "ns3/metaroce-mpi.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

MetaRoceCollectiveHelper::MetaRoceCollectiveHelper(MetaRoceCollective collective, uint64_t bytes)
    : m_collective(collective)
    , m_bytes(bytes)
{
    if (bytes == 0)
    {
        throw std::invalid_argument("collective message size must be at least 1 byte");
    }
}

void
MetaRoceCollectiveHelper::SetChannels(uint32_t channels)
{
    if (channels > 65535)
    {
        throw std::invalid_argument("channels must be at most 65535, not " +
                                    std::to_string(channels));
    }
    m_channels = channels;
}

void
MetaRoceCollectiveHelper::SetRepetitions(uint32_t repetitions)
{
    if (repetitions == 0)
    {
        throw std::invalid_argument("repetitions must be at least 1");
    }
    m_repetitions = repetitions;
}

void
MetaRoceCollectiveHelper::SetStartTime(Time start)
{
    m_start = start;
}

ApplicationContainer
MetaRoceCollectiveHelper::Install(const std::vector<Ptr<MetaRoceNic>>& nics,
                                  metaroce::Transport transport)
{
    CheckShape(nics, transport);
    const auto ranks = static_cast<uint32_t>(nics.size());
    for (uint32_t c = 0; c < m_usedChannels; ++c)
    {
        m_schedules.push_back(
            BuildSchedule(m_collective, ranks, BlockBytes(m_bytes, m_usedChannels, c)));
    }

    return MakeApps(nics, ConnectPeers(nics, transport));
}

void
MetaRoceCollectiveHelper::CheckShape(const std::vector<Ptr<MetaRoceNic>>& nics,
                                     metaroce::Transport transport)
{
    const uint32_t ranks = nics.size();
    if (ranks < 2)
    {
        throw std::invalid_argument("a collective needs at least 2 hosts, not " +
                                    std::to_string(ranks));
    }
    if (!m_apps.empty())
    {
        throw std::invalid_argument("MetaRoceCollectiveHelper::Install called twice");
    }
    const uint32_t planes = nics[0]->GetNPorts();
    if (planes == 0)
    {
        throw std::invalid_argument("the NICs have no ports");
    }
    m_usedChannels = m_channels == 0 ? planes : m_channels;
    if (transport == metaroce::Transport::MetaRoce)
    {
        UintegerValue streams;
        nics[0]->GetAttribute("Streams", streams);
        if (m_usedChannels > streams.Get())
        {
            throw std::invalid_argument(std::to_string(m_usedChannels) +
                                        " channels need as many MetaRoCE streams; the "
                                        "NICs' Streams attribute is " +
                                        std::to_string(streams.Get()));
        }
    }
    if (m_bytes < m_usedChannels)
    {
        throw std::invalid_argument(std::to_string(m_bytes) + " bytes cannot be split over " +
                                    std::to_string(m_usedChannels) + " channels");
    }
}

MetaRoceCollectiveHelper::ChannelPeers
MetaRoceCollectiveHelper::ConnectPeers(const std::vector<Ptr<MetaRoceNic>>& nics,
                                       metaroce::Transport transport)
{
    const auto ranks = static_cast<uint32_t>(nics.size());
    const uint32_t planes = nics[0]->GetNPorts();
    // The host pairs that exchange messages (the same on every channel).
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (const auto& step : m_schedules[0][r])
        {
            for (const auto& t : step.sends)
            {
                pairs.insert({std::min(r, t.peer), std::max(r, t.peer)});
            }
        }
    }
    ChannelPeers peers(m_usedChannels, std::vector<PeerMap>(ranks));
    for (const auto& [a, b] : pairs)
    {
        if (transport == metaroce::Transport::MetaRoce)
        {
            auto [qa, qb] = MetaRoceNic::Connect(nics[a], nics[b], transport);
            m_qps.push_back(qa);
            m_qps.push_back(qb);
            for (uint32_t c = 0; c < m_usedChannels; ++c)
            {
                peers[c][a][b] = {qa, static_cast<uint16_t>(c)};
                peers[c][b][a] = {qb, static_cast<uint16_t>(c)};
            }
            continue;
        }
        for (uint32_t c = 0; c < m_usedChannels; ++c)
        {
            auto [qa, qb] = MetaRoceNic::Connect(nics[a], nics[b], transport, c % planes);
            m_qps.push_back(qa);
            m_qps.push_back(qb);
            peers[c][a][b] = {qa, 0};
            peers[c][b][a] = {qb, 0};
        }
    }
    return peers;
}

ApplicationContainer
MetaRoceCollectiveHelper::MakeApps(const std::vector<Ptr<MetaRoceNic>>& nics,
                                   const ChannelPeers& peers)
{
    const auto ranks = static_cast<uint32_t>(nics.size());
    ApplicationContainer apps;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        Ptr<MetaRoceCollectiveApp> app = CreateObject<MetaRoceCollectiveApp>();
        app->SetRank(r);
        app->SetAttribute("Repetitions", UintegerValue(m_repetitions));
        Ptr<Node> node = nics[r]->GetObject<Node>();
        if (!node)
        {
            throw std::invalid_argument("NIC of rank " + std::to_string(r) +
                                        " is not aggregated to a node");
        }
        node->AddApplication(app);
        for (uint32_t c = 0; c < m_usedChannels; ++c)
        {
            app->AddChannel(m_schedules[c][r], peers[c][r]);
        }
        app->SetStartTime(m_start);
        m_apps.push_back(app);
        apps.Add(app);
    }
    return apps;
}

const std::vector<Ptr<MetaRoceCollectiveApp>>&
MetaRoceCollectiveHelper::GetApps() const
{
    return m_apps;
}

const std::vector<Ptr<MetaRoceQueuePair>>&
MetaRoceCollectiveHelper::GetQueuePairs() const
{
    return m_qps;
}

double
MetaRoceCollectiveHelper::GetLocalProgress() const
{
    uint64_t sent = 0;
    uint64_t expected = 0;
    for (uint32_t rank = 0; rank < m_apps.size(); ++rank)
    {
        if (!MetaRoceMpi::IsLocal(*m_apps[rank]->GetNode()))
        {
            continue;
        }
        sent += m_apps[rank]->GetBytesSent();
        for (const auto& schedule : m_schedules)
        {
            expected += ScheduleSentBytes(schedule, rank) * m_repetitions;
        }
    }
    return expected == 0 ? 1.0 : static_cast<double>(sent) / expected;
}

MetaRoceCollectiveResult
MetaRoceCollectiveHelper::GetResult() const
{
    MetaRoceCollectiveResult r;
    r.name = CollectiveName(m_collective);
    r.ranks = m_apps.size();
    r.channels = m_usedChannels;
    r.repetitions = m_repetitions;
    r.bytes = m_bytes;
    r.startUs = m_start.GetNanoSeconds() / 1e3;
    // Each app's figures, from the rank that simulates it (zero elsewhere), summed over the
    // ranks: finished, errors, bytes sent, messages posted, finish time and repetition ends.
    const std::size_t fields = 5 + m_repetitions;
    std::vector<uint64_t> figures(m_apps.size() * fields, 0);
    for (std::size_t i = 0; i < m_apps.size(); ++i)
    {
        const Ptr<MetaRoceCollectiveApp>& app = m_apps[i];
        if (!MetaRoceMpi::IsLocal(*app->GetNode()))
        {
            continue;
        }
        uint64_t* f = &figures[i * fields];
        f[0] = app->IsFinished() ? 1 : 0;
        f[1] = app->GetErrors();
        f[2] = app->GetBytesSent();
        f[3] = app->GetMessagesPosted();
        f[4] = std::max<int64_t>(app->GetFinishTime().GetTimeStep(), 0);
        const std::vector<Time> appEnds = app->GetRepetitionEnds();
        for (std::size_t k = 0; k < appEnds.size() && k < m_repetitions; ++k)
        {
            f[5 + k] = std::max<int64_t>(appEnds[k].GetTimeStep(), 0);
        }
    }
    figures = MetaRoceMpi::Sum(std::move(figures));
    bool complete = !m_apps.empty();
    std::vector<Time> ends(m_repetitions, m_start);
    Time end = m_start;
    for (std::size_t i = 0; i < m_apps.size(); ++i)
    {
        const uint64_t* f = &figures[i * fields];
        complete = complete && f[0] == 1 && f[1] == 0;
        r.errors += f[1];
        r.bytesSent += f[2];
        r.messagesPosted += f[3];
        end = std::max(end, TimeStep(f[4]));
        for (std::size_t k = 0; k < m_repetitions; ++k)
        {
            ends[k] = std::max(ends[k], TimeStep(f[5 + k]));
        }
    }
    for (uint32_t rank = 0; rank < m_apps.size(); ++rank)
    {
        for (const auto& schedule : m_schedules)
        {
            r.bytesExpected += ScheduleSentBytes(schedule, rank) * m_repetitions;
        }
    }
    r.complete = complete && r.bytesSent == r.bytesExpected;
    r.endUs = end.GetNanoSeconds() / 1e3;
    Time previous = m_start;
    for (const Time& e : ends)
    {
        r.repetitionUs.push_back((e - previous).GetNanoSeconds() / 1e3);
        previous = e;
    }
    if (r.complete)
    {
        const double ns = static_cast<double>((end - m_start).GetNanoSeconds()) / m_repetitions;
        r.timeUs = ns / 1e3;
        r.algBwGBps = ns > 0 ? m_bytes / ns : 0; // bytes per ns = GB/s
        r.busBwGBps = r.algBwGBps * BusBandwidthFactor(m_collective, r.ranks);
    }
    return r;
}

} // namespace ns3
