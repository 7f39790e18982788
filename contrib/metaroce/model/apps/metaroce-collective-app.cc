#include "metaroce-collective-app.h"

#include "ns3/log.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-nic.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceCollectiveApp");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceCollectiveApp);

TypeId
MetaRoceCollectiveApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceCollectiveApp")
            .SetParent<Application>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceCollectiveApp>()
            .AddAttribute("Repetitions",
                          "Times the schedule runs back to back (nccl-tests' iterations).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&MetaRoceCollectiveApp::m_repetitions),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("StartDelay",
                          "How late the rank begins its part (a straggler): its RECVs are "
                          "posted at its start, its first SENDs this much later.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&MetaRoceCollectiveApp::m_startDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Message",
                            "A SEND completed (source, destination, bytes, posted, completed).",
                            MakeTraceSourceAccessor(&MetaRoceCollectiveApp::m_messageTrace),
                            "ns3::MetaRoceCollectiveApp::MessageTracedCallback")
            .AddTraceSource("Finished",
                            "The rank finished its part (rank, time).",
                            MakeTraceSourceAccessor(&MetaRoceCollectiveApp::m_finishedTrace),
                            "ns3::MetaRoceCollectiveApp::FinishedTracedCallback");
    return tid;
}

MetaRoceCollectiveApp::MetaRoceCollectiveApp() = default;

MetaRoceCollectiveApp::~MetaRoceCollectiveApp() = default;

void
MetaRoceCollectiveApp::SetRank(uint32_t rank)
{
    m_rank = rank;
}

uint32_t
MetaRoceCollectiveApp::GetRank() const
{
    return m_rank;
}

void
MetaRoceCollectiveApp::AddChannel(
    const std::vector<MetaRoceCollectiveStep>& steps,
    const std::map<uint32_t, std::pair<Ptr<MetaRoceQueuePair>, uint16_t>>& peers,
    uint32_t barrierGroup)
{
    NS_ABORT_MSG_IF(m_started, "MetaRoceCollectiveApp: AddChannel after the application started");
    for (const auto& step : steps)
    {
        for (const auto* list : {&step.sends, &step.recvs})
        {
            for (const auto& t : *list)
            {
                NS_ABORT_MSG_IF(peers.find(t.peer) == peers.end(),
                                "MetaRoceCollectiveApp rank "
                                    << m_rank << ": no queue pair to peer " << t.peer);
                NS_ABORT_MSG_IF(t.bytes == 0,
                                "MetaRoceCollectiveApp rank "
                                    << m_rank << ": zero-byte message to or from " << t.peer);
            }
        }
    }
    for (const auto& [peer, qpStream] : peers)
    {
        NS_ABORT_MSG_IF(!qpStream.first, "MetaRoceCollectiveApp: null queue pair to " << peer);
        NS_ABORT_MSG_IF(GetNode() && qpStream.first->GetNic() &&
                            qpStream.first->GetNic() != GetNode()->GetObject<MetaRoceNic>(),
                        "MetaRoceCollectiveApp rank " << m_rank << ": the queue pair to " << peer
                                                      << " belongs to another node");
    }
    Channel channel;
    channel.steps = steps;
    channel.peers = peers;
    channel.barrierGroup = barrierGroup;
    m_channels.push_back(std::move(channel));
}

bool
MetaRoceCollectiveApp::IsFinished() const
{
    return m_finish >= Time(0);
}

Time
MetaRoceCollectiveApp::GetFinishTime() const
{
    return m_finish;
}

std::vector<Time>
MetaRoceCollectiveApp::GetRepetitionEnds() const
{
    std::vector<Time> ends;
    for (const auto& ch : m_channels)
    {
        ends.resize(std::max(ends.size(), ch.repetitionEnds.size()), Time(0));
        for (std::size_t i = 0; i < ch.repetitionEnds.size(); ++i)
        {
            ends[i] = std::max(ends[i], ch.repetitionEnds[i]);
        }
    }
    return ends;
}

uint64_t
MetaRoceCollectiveApp::GetMessagesPosted() const
{
    return m_messagesPosted;
}

uint64_t
MetaRoceCollectiveApp::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
MetaRoceCollectiveApp::GetBytesReceived() const
{
    return m_bytesReceived;
}

uint64_t
MetaRoceCollectiveApp::GetErrors() const
{
    return m_errors;
}

void
MetaRoceCollectiveApp::DoDispose()
{
    m_channels.clear();
    m_sends.Clear();
    m_recvs.Clear();
    Application::DoDispose();
}

void
MetaRoceCollectiveApp::StartApplication()
{
    NS_LOG_FUNCTION(this << m_rank);
    if (GetNode()->GetSystemId() != Simulator::GetSystemId())
    {
        return; // a distributed run: the host's own rank runs it (every rank builds every app)
    }
    // An event of the node: after its arrivals of this instant.
    MetaRoceArrivals::Of(GetNode())->Run(&MetaRoceCollectiveApp::Prepare, this);
}

void
MetaRoceCollectiveApp::Prepare()
{
    m_started = true;
    for (uint32_t c = 0; c < m_channels.size(); ++c)
    {
        Channel& ch = m_channels[c];
        for (const auto& [peer, qpStream] : ch.peers)
        {
            qpStream.first->SetCompletionCallback(
                MakeCallback(&MetaRoceCollectiveApp::OnCompletion, this));
        }
        const uint32_t nSteps = ch.steps.size();
        ch.remaining.assign(nSteps * m_repetitions, 0);
        // Every RECV up front, in schedule order: a SEND never waits for its buffer.
        for (uint32_t g = 0; g < ch.remaining.size(); ++g)
        {
            for (const auto& t : ch.steps[g % nSteps].recvs)
            {
                const auto& [qp, stream] = ch.peers.at(t.peer);
                qp->PostRecv(stream, t.bytes);
                m_recvs.At(qp->GetLocalId(), stream).push_back({t.peer, t.bytes, c, g, Now()});
                ++ch.remaining[g];
            }
        }
    }
    if (m_startDelay.IsStrictlyPositive())
    {
        // Through the node's arrivals, as every event of the node (metaroce-arrivals.h).
        MetaRoceArrivals::Of(GetNode())->Schedule(nullptr,
                                                  m_startDelay,
                                                  &MetaRoceCollectiveApp::Begin,
                                                  this);
        return;
    }
    Begin();
}

void
MetaRoceCollectiveApp::Begin()
{
    m_begun = true;
    for (uint32_t c = 0; c < m_channels.size(); ++c)
    {
        Channel& ch = m_channels[c];
        if (!ch.steps.empty())
        {
            ch.current = 0;
            PostSends(c);
            Advance(c);
        }
    }
    CheckFinished();
}

void
MetaRoceCollectiveApp::StopApplication()
{
    NS_LOG_FUNCTION(this << m_rank);
}

void
MetaRoceCollectiveApp::PostSends(uint32_t channel)
{
    Channel& ch = m_channels[channel];
    for (const auto& t : ch.steps[ch.current % ch.steps.size()].sends)
    {
        const auto& [qp, stream] = ch.peers.at(t.peer);
        qp->PostSend(stream, t.bytes);
        m_sends.At(qp->GetLocalId(), stream)
            .push_back({t.peer, t.bytes, channel, ch.current, Now()});
        ++m_sendsOutstanding;
        ++m_messagesPosted;
    }
}

bool
MetaRoceCollectiveApp::BarrierOpen(uint32_t channel, uint32_t repetition) const
{
    const uint32_t group = m_channels[channel].barrierGroup;
    if (group == kNoBarrier)
    {
        return true;
    }
    for (const auto& other : m_channels)
    {
        if (other.barrierGroup == group && !other.steps.empty() &&
            other.repetitionEnds.size() < repetition)
        {
            return false;
        }
    }
    return true;
}

void
MetaRoceCollectiveApp::ReleaseBarrier(uint32_t group)
{
    for (uint32_t c = 0; c < m_channels.size(); ++c)
    {
        Channel& ch = m_channels[c];
        // A lane at a repetition's first step whose SENDs are not posted yet: it waits.
        if (ch.barrierGroup == group && ch.waiting && BarrierOpen(c, ch.current / ch.steps.size()))
        {
            ch.waiting = false;
            PostSends(c);
            Advance(c);
        }
    }
}

void
MetaRoceCollectiveApp::Advance(uint32_t channel)
{
    Channel& ch = m_channels[channel];
    const uint32_t nSteps = ch.steps.size();
    const uint32_t total = ch.remaining.size();
    while (!ch.waiting && ch.current < total && ch.remaining[ch.current] == 0)
    {
        NS_LOG_LOGIC("rank " << m_rank << " channel " << channel << " left step " << ch.current);
        const bool repetitionEnd = (ch.current + 1) % nSteps == 0;
        if (repetitionEnd)
        {
            ch.repetitionEnds.push_back(Now());
        }
        ++ch.current;
        if (ch.current == total)
        {
            break;
        }
        if (repetitionEnd && !BarrierOpen(channel, ch.current / nSteps))
        {
            ch.waiting = true; // its group's last lane to finish the repetition releases it
            break;
        }
        PostSends(channel);
    }
    if (ch.barrierGroup != kNoBarrier && !ch.waiting)
    {
        ReleaseBarrier(ch.barrierGroup);
    }
}

void
MetaRoceCollectiveApp::OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    const uint32_t id = qp->GetLocalId();
    const bool isRecv = c.op == metaroce::Opcode::Recv;
    auto& queue = (isRecv ? m_recvs : m_sends).At(id, c.stream);
    if (queue.empty())
    {
        // A queue pair in error flushes what it holds (a RoCEv2 QP past its retry limit): a
        // completion the schedule did not post is an error of the run, not of the program.
        NS_LOG_WARN("rank " << m_rank << ": unexpected completion on queue pair " << id
                            << " stream " << c.stream);
        ++m_errors;
        return;
    }
    const Pending p = queue.front();
    queue.pop_front();
    if (c.status != metaroce::CompletionStatus::Success || (isRecv && c.bytes != p.bytes))
    {
        NS_LOG_WARN("rank " << m_rank << ": completion error from peer " << p.peer << " ("
                            << c.bytes << " of " << p.bytes << " bytes)");
        ++m_errors;
        return;
    }
    if (isRecv)
    {
        m_bytesReceived += c.bytes;
        Channel& ch = m_channels[p.channel];
        --ch.remaining[p.step];
        if (m_begun && p.step == ch.current && !ch.waiting)
        {
            Advance(p.channel);
        }
    }
    else
    {
        m_bytesSent += p.bytes;
        --m_sendsOutstanding;
        m_messageTrace(m_rank, p.peer, p.bytes, p.posted, Now());
    }
    CheckFinished();
}

void
MetaRoceCollectiveApp::CheckFinished()
{
    if (!m_begun || IsFinished() || m_sendsOutstanding != 0)
    {
        return;
    }
    for (const auto& ch : m_channels)
    {
        if (ch.current < ch.remaining.size())
        {
            return;
        }
    }
    m_finish = Now();
    NS_LOG_INFO("rank " << m_rank << " finished at " << m_finish.As(Time::US));
    m_finishedTrace(m_rank, m_finish);
}

} // namespace ns3
