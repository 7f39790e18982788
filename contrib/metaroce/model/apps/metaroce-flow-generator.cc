#include "metaroce-flow-generator.h"

#include "metaroce-flow-size-cdf.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFlowGenerator");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceFlowGenerator);

MetaRoceFlowSizeCdf
ReadFlowSizeCdf(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument("flow-size CDF " + path + ": cannot read the file");
    }
    return ParseFlowSizeCdf(in, path);
}

Ptr<EmpiricalRandomVariable>
MakeFlowSizeVariable(const MetaRoceFlowSizeCdf& cdf)
{
    Ptr<EmpiricalRandomVariable> rv = CreateObject<EmpiricalRandomVariable>();
    rv->SetInterpolate(true);
    for (const auto& [bytes, prob] : cdf.points)
    {
        rv->CDF(bytes, prob);
    }
    return rv;
}

TypeId
MetaRoceFlowGenerator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceFlowGenerator")
            .SetParent<Application>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceFlowGenerator>()
            .AddAttribute("Load",
                          "Offered load: fraction of this host's line rate (all ports).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MetaRoceFlowGenerator::m_load),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("MaxFlows",
                          "Flows this host starts before it stops.",
                          UintegerValue(100),
                          MakeUintegerAccessor(&MetaRoceFlowGenerator::m_maxFlows),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("QueuePairPerFlow",
                          "Each flow on its own connection (MetaRoCE) or queue pair (RoCEv2), "
                          "opened when it starts and released when it completes; false: one per "
                          "destination (and plane, RoCEv2), opened before the run, so that a "
                          "flow may wait behind an earlier one to the same host. True needs "
                          "every host on one simulator process.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceFlowGenerator::m_qpPerFlow),
                          MakeBooleanChecker())
            .AddTraceSource("Flow",
                            "A flow completed (source, destination, bytes, start, end).",
                            MakeTraceSourceAccessor(&MetaRoceFlowGenerator::m_flowTrace),
                            "ns3::MetaRoceCollectiveApp::MessageTracedCallback");
    return tid;
}

MetaRoceFlowGenerator::MetaRoceFlowGenerator()
    : m_interArrival(CreateObject<ExponentialRandomVariable>())
    , m_destination(CreateObject<UniformRandomVariable>())
{
}

MetaRoceFlowGenerator::~MetaRoceFlowGenerator() = default;

void
MetaRoceFlowGenerator::Setup(const std::vector<Ptr<MetaRoceNic>>& hosts,
                             uint32_t self,
                             metaroce::Transport transport,
                             Ptr<RandomVariableStream> sizes,
                             double meanBytes)
{
    if (hosts.size() < 2 || self >= hosts.size() || !sizes || !(meanBytes >= 1))
    {
        throw std::invalid_argument("MetaRoceFlowGenerator::Setup: needs at least 2 hosts, a "
                                    "valid self index and a size distribution with mean >= 1");
    }
    m_hosts = hosts;
    m_self = self;
    m_transport = transport;
    m_sizes = sizes;
    m_meanBytes = meanBytes;
}

uint64_t
MetaRoceFlowGenerator::GetStarted() const
{
    return m_started;
}

uint64_t
MetaRoceFlowGenerator::GetCompleted() const
{
    return m_completed;
}

bool
MetaRoceFlowGenerator::IsFinished() const
{
    return m_started == m_maxFlows && m_completed == m_started;
}

int64_t
MetaRoceFlowGenerator::AssignStreams(int64_t stream)
{
    m_interArrival->SetStream(stream);
    m_destination->SetStream(stream + 1);
    if (m_sizes)
    {
        m_sizes->SetStream(stream + 2);
    }
    return 3;
}

double
MetaRoceFlowGenerator::LineBps() const
{
    const Ptr<MetaRoceNic> nic = m_hosts[m_self];
    double lineBps = 0;
    for (uint32_t p = 0; p < nic->GetNPorts(); ++p)
    {
        DataRateValue rate;
        nic->GetPort(p)->GetAttribute("DataRate", rate);
        lineBps += rate.Get().GetBitRate();
    }
    return lineBps;
}

void
MetaRoceFlowGenerator::Plan()
{
    NS_ABORT_MSG_IF(m_hosts.empty(), "MetaRoceFlowGenerator::Plan() before Setup()");
    if (m_planned)
    {
        return;
    }
    m_planned = true;
    m_interArrival->SetAttribute("Mean", DoubleValue(m_meanBytes * 8 / (m_load * LineBps())));
    const uint32_t n = m_hosts.size();
    const uint32_t planes = m_hosts[m_self]->GetNPorts();
    const bool roce = m_transport != metaroce::Transport::MetaRoce;
    for (uint32_t i = 0; i < m_maxFlows; ++i)
    {
        PlannedFlow f;
        f.gap = Seconds(m_interArrival->GetValue());
        // A destination other than this host, uniformly.
        f.dst = m_destination->GetInteger(0, n - 2);
        f.dst += f.dst >= m_self ? 1 : 0;
        f.bytes = static_cast<uint64_t>(std::max(1.0, std::round(m_sizes->GetValue())));
        f.plane = roce ? i % planes : 0;
        m_plan.push_back(f);
        if (!m_qpPerFlow)
        {
            QueuePairTo(f.dst, f.plane);
        }
    }
}

void
MetaRoceFlowGenerator::StartApplication()
{
    NS_ABORT_MSG_IF(m_hosts.empty(), "MetaRoceFlowGenerator started without Setup()");
    Plan();
    if (GetNode()->GetSystemId() != Simulator::GetSystemId())
    {
        return; // a distributed run: the host's own rank runs it (every rank builds every app)
    }
    // Each flow starts in an event of the node, after its arrivals of that instant.
    m_arrivals = MetaRoceArrivals::Of(GetNode());
    m_next =
        m_arrivals->Schedule(&m_next, m_plan.front().gap, &MetaRoceFlowGenerator::StartFlow, this);
}

void
MetaRoceFlowGenerator::StopApplication()
{
    m_next.Cancel();
}

void
MetaRoceFlowGenerator::DoDispose()
{
    m_next.Cancel();
    m_arrivals = nullptr;
    m_hosts.clear();
    m_qps.clear();
    m_flowPeers.clear();
    m_inFlight.clear();
    m_plan.clear();
    Application::DoDispose();
}

void
MetaRoceFlowGenerator::StartFlow()
{
    const PlannedFlow& f = m_plan[m_started];
    const uint32_t dst = f.dst;
    const uint64_t bytes = f.bytes;
    const bool roce = m_transport != metaroce::Transport::MetaRoce;
    Ptr<MetaRoceQueuePair> qp = m_qpPerFlow ? ConnectFlow(dst, f.plane) : QueuePairTo(dst, f.plane);
    UintegerValue streams;
    m_hosts[m_self]->GetAttribute("Streams", streams);
    const auto stream = static_cast<uint16_t>(roce || m_qpPerFlow ? 0 : m_started % streams.Get());
    qp->PostWrite(stream, bytes);
    m_inFlight[{qp->GetLocalId(), stream}].push_back({dst, bytes, Now()});
    NS_LOG_INFO("host " << m_self << " flow " << m_started << " to " << dst << ": " << bytes
                        << " B");
    ++m_started;
    if (m_started < m_plan.size())
    {
        m_next = m_arrivals->Schedule(&m_next,
                                      m_plan[m_started].gap,
                                      &MetaRoceFlowGenerator::StartFlow,
                                      this);
    }
}

Ptr<MetaRoceQueuePair>
MetaRoceFlowGenerator::QueuePairTo(uint32_t dst, uint32_t plane)
{
    auto it = m_qps.find({dst, plane});
    if (it != m_qps.end())
    {
        return it->second;
    }
    auto [local, remote] = MetaRoceNic::Connect(m_hosts[m_self], m_hosts[dst], m_transport, plane);
    local->SetCompletionCallback(MakeCallback(&MetaRoceFlowGenerator::OnCompletion, this));
    m_qps[{dst, plane}] = local;
    return local;
}

Ptr<MetaRoceQueuePair>
MetaRoceFlowGenerator::ConnectFlow(uint32_t dst, uint32_t plane)
{
    NS_ABORT_MSG_IF(m_hosts[dst]->GetObject<Node>() != nullptr &&
                        m_hosts[dst]->GetObject<Node>()->GetSystemId() != Simulator::GetSystemId(),
                    "MetaRoceFlowGenerator: QueuePairPerFlow needs every host on one process");
    auto [local, remote] = MetaRoceNic::Connect(m_hosts[m_self], m_hosts[dst], m_transport, plane);
    local->SetCompletionCallback(MakeCallback(&MetaRoceFlowGenerator::OnCompletion, this));
    m_flowPeers[local->GetLocalId()] = remote;
    return local;
}

void
MetaRoceFlowGenerator::ReleaseFlow(Ptr<MetaRoceQueuePair> local, Ptr<MetaRoceQueuePair> remote)
{
    m_hosts[m_self]->ReleaseQueuePair(local);
    remote->GetNic()->ReleaseQueuePair(remote);
}

void
MetaRoceFlowGenerator::OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    const auto key = std::make_pair(qp->GetLocalId(), c.stream);
    auto& queue = m_inFlight[key];
    NS_ABORT_MSG_IF(queue.empty(), "MetaRoceFlowGenerator: completion without a flow");
    const Flow f = queue.front();
    queue.pop_front();
    if (m_qpPerFlow)
    {
        // Its one flow is done: both ends go once this callback has returned.
        m_inFlight.erase(key);
        const auto peer = m_flowPeers.find(qp->GetLocalId());
        Simulator::ScheduleNow(&MetaRoceFlowGenerator::ReleaseFlow, this, qp, peer->second);
        m_flowPeers.erase(peer);
    }
    if (c.status != metaroce::CompletionStatus::Success)
    {
        NS_LOG_WARN("host " << m_self << ": flow to " << f.dst << " failed");
        return;
    }
    ++m_completed;
    m_flowTrace(m_self, f.dst, f.bytes, f.start, Now());
}

} // namespace ns3
