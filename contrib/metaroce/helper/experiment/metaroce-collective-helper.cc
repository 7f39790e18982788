#include "metaroce-collective-helper.h"

#include "ns3/metaroce-mpi.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

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

MetaRoceCollectiveHelper::MetaRoceCollectiveHelper(const MetaRoceTrafficMatrix& matrix)
    : m_collective(MetaRoceCollective::ALL_TO_ALLV)
    , m_bytes(0)
    , m_matrix(matrix)
{
    for (const auto& row : matrix)
    {
        if (row.size() != matrix.size())
        {
            throw std::invalid_argument("a traffic matrix has as many columns as rows");
        }
    }
    if (matrix.size() < 2 || MatrixBytes(matrix, true) == 0)
    {
        throw std::invalid_argument("a traffic matrix needs 2 ranks and a byte between them");
    }
    m_bytes = MatrixBytes(matrix, false) / matrix.size();
}

void
MetaRoceCollectiveHelper::SetTreeChunkBytes(uint64_t bytes)
{
    if (bytes == 0)
    {
        throw std::invalid_argument("the tree's chunks need at least 1 byte");
    }
    m_treeChunkBytes = bytes;
}

void
MetaRoceCollectiveHelper::SetRankDelay(const std::vector<uint32_t>& ranks, Time delay)
{
    m_delayedRanks = ranks;
    std::sort(m_delayedRanks.begin(), m_delayedRanks.end());
    m_rankDelay = delay;
}

MetaRoceCollectivePlan
MetaRoceCollectiveHelper::PlanOf(uint32_t ranks, uint32_t channel) const
{
    if (m_collective == MetaRoceCollective::ALL_TO_ALLV)
    {
        return SingleLanePlan(BuildAllToAllV(m_matrix, m_usedChannels, channel));
    }
    return BuildPlan(m_collective,
                     ranks,
                     BlockBytes(m_bytes, m_usedChannels, channel),
                     m_treeChunkBytes);
}

uint64_t
MetaRoceCollectiveHelper::ExpectedSentBytes(uint32_t rank) const
{
    uint64_t bytes = 0;
    for (const auto& plan : m_plans)
    {
        bytes += PlanSentBytes(plan, rank) * m_repetitions;
    }
    return bytes;
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
        m_plans.push_back(PlanOf(ranks, c));
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
    if (m_collective == MetaRoceCollective::ALL_TO_ALLV && m_matrix.size() != ranks)
    {
        throw std::invalid_argument("a traffic matrix of " + std::to_string(m_matrix.size()) +
                                    " ranks installed on " + std::to_string(ranks) + " NICs");
    }
    for (uint32_t r : m_delayedRanks)
    {
        if (r >= ranks)
        {
            throw std::invalid_argument("straggler rank " + std::to_string(r) + " of " +
                                        std::to_string(ranks));
        }
    }
    const uint32_t subChannels = m_collective == MetaRoceCollective::ALL_REDUCE_TREE ? 2 : 1;
    if (transport == metaroce::Transport::MetaRoce)
    {
        UintegerValue streams;
        nics[0]->GetAttribute("Streams", streams);
        if (m_usedChannels * subChannels > streams.Get())
        {
            throw std::invalid_argument(std::to_string(m_usedChannels * subChannels) +
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
    const uint32_t subChannels = m_plans[0].subChannels;
    // The host pairs that exchange messages and the sub-channels each pair uses, nearest on the
    // ring of ranks first: a NIC's round-robin visits its queue pairs in the order they were
    // made, so rank r serves r + 1, r - 1, r + 2, r - 2, ... as a collective library staggers
    // its peers, and at every turn the ranks send to distinct ranks (an all-to-all of one packet
    // per pair is a sequence of permutations, not of incasts at rank 0, 1, ...).
    const auto distance = [ranks](uint32_t a, uint32_t b) {
        return std::min(b - a, ranks - (b - a));
    };
    // (distance, lower rank, higher rank) -> sub-channels
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> pairs;
    for (const auto& plan : m_plans)
    {
        for (uint32_t l = 0; l < plan.lanes.size(); ++l)
        {
            for (uint32_t r = 0; r < ranks; ++r)
            {
                for (const auto& step : plan.lanes[l][r])
                {
                    for (const auto& t : step.sends)
                    {
                        const uint32_t lo = std::min(r, t.peer);
                        const uint32_t hi = std::max(r, t.peer);
                        pairs[{distance(lo, hi), lo, hi}].insert(plan.laneSubChannel[l]);
                    }
                }
            }
        }
    }
    // Stream (MetaRoCE) or queue pair (RoCEv2) index: channel x sub-channels + sub-channel.
    const uint32_t indices = m_usedChannels * subChannels;
    ChannelPeers peers(indices, std::vector<PeerMap>(ranks));
    for (const auto& [key, subs] : pairs)
    {
        const uint32_t a = std::get<1>(key);
        const uint32_t b = std::get<2>(key);
        if (transport == metaroce::Transport::MetaRoce)
        {
            auto [qa, qb] = MetaRoceNic::Connect(nics[a], nics[b], transport);
            m_qps.push_back(qa);
            m_qps.push_back(qb);
            for (uint32_t i = 0; i < indices; ++i)
            {
                peers[i][a][b] = {qa, static_cast<uint16_t>(i)};
                peers[i][b][a] = {qb, static_cast<uint16_t>(i)};
            }
            continue;
        }
        for (uint32_t i = 0; i < indices; ++i)
        {
            if (subs.count(i % subChannels) == 0)
            {
                continue;
            }
            // Channel c's queue pairs (one per sub-channel) on plane c mod planes, so that
            // each tree of allreduce-tree uses every plane as the channels do.
            const uint32_t plane = (i / subChannels) % planes;
            auto [qa, qb] = MetaRoceNic::Connect(nics[a], nics[b], transport, plane);
            m_qps.push_back(qa);
            m_qps.push_back(qb);
            peers[i][a][b] = {qa, 0};
            peers[i][b][a] = {qb, 0};
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
            const MetaRoceCollectivePlan& plan = m_plans[c];
            for (uint32_t l = 0; l < plan.lanes.size(); ++l)
            {
                app->AddChannel(plan.lanes[l][r],
                                peers[c * plan.subChannels + plan.laneSubChannel[l]][r],
                                plan.repetitionBarrier ? c : MetaRoceCollectiveApp::kNoBarrier);
            }
        }
        const bool late = std::binary_search(m_delayedRanks.begin(), m_delayedRanks.end(), r);
        app->SetAttribute("StartDelay", TimeValue(late ? m_rankDelay : Seconds(0)));
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
        expected += ExpectedSentBytes(rank);
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
        r.bytesExpected += ExpectedSentBytes(rank);
        const uint64_t* f = &figures[rank * fields];
        r.rankFinishUs.push_back(f[0] == 1 ? TimeStep(f[4]).GetNanoSeconds() / 1e3 : -1.0);
    }
    r.delayedRanks = m_delayedRanks;
    r.rankDelayUs = m_rankDelay.GetNanoSeconds() / 1e3;
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
        if (m_collective == MetaRoceCollective::ALL_TO_ALLV)
        {
            r.busBwGBps = r.algBwGBps * MatrixBytes(m_matrix, true) / MatrixBytes(m_matrix, false);
        }
    }
    if (m_collective == MetaRoceCollective::ALL_TO_ALLV)
    {
        r.busiestRankBytes = MatrixBusiestRankBytes(m_matrix);
    }
    return r;
}

} // namespace ns3
