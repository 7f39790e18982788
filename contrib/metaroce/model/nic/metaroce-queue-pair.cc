#include "metaroce-queue-pair.h"

#include "metaroce-nic.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceQueuePair");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceQueuePair);

TypeId
MetaRoceQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceQueuePair")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddTraceSource("Completion",
                            "A work request completed (success or error), in posting order "
                            "per stream.",
                            MakeTraceSourceAccessor(&MetaRoceQueuePair::m_completionTrace),
                            "ns3::MetaRoceQueuePair::CompletionTracedCallback");
    return tid;
}

MetaRoceQueuePair::MetaRoceQueuePair() = default;

MetaRoceQueuePair::~MetaRoceQueuePair() = default;

void
MetaRoceQueuePair::Init(Setup setup)
{
    NS_LOG_FUNCTION(this << setup.localId << setup.remoteId);
    NS_ABORT_MSG_IF(m_nic != nullptr, "MetaRoceQueuePair " << m_localId << ": initialised twice");
    NS_ABORT_MSG_IF(setup.nic == nullptr || setup.engine == nullptr,
                    "MetaRoceQueuePair::Init: needs a NIC and an engine");
    m_nic = setup.nic;
    m_transport = setup.transport;
    m_localId = setup.localId;
    m_remoteId = setup.remoteId;
    m_engine = std::move(setup.engine);
    m_posted = setup.posted;
}

void
MetaRoceQueuePair::DoDispose()
{
    if (m_nic != nullptr)
    {
        m_nic->QueuePairDisposed(m_localId);
    }
    m_posted = Callback<void>();
    m_completionCallback = CompletionCallback();
    m_nic = nullptr;
    Object::DoDispose();
}

uint64_t
MetaRoceQueuePair::Post(metaroce::Opcode op,
                        uint16_t stream,
                        uint64_t length,
                        uint64_t localAddr,
                        uint32_t localKey,
                        uint64_t remoteAddr,
                        uint32_t remoteKey)
{
    NS_ABORT_MSG_IF(m_nic == nullptr,
                    "MetaRoceQueuePair: not connected (use MetaRoceNic::Connect)");
    metaroce::WorkRequest wr;
    wr.id = m_nextWrId;
    wr.op = op;
    wr.stream = stream;
    wr.length = length;
    wr.localAddr = localAddr;
    wr.localKey = localKey;
    wr.remoteAddr = remoteAddr;
    wr.remoteKey = remoteKey;
    try
    {
        if (op == metaroce::Opcode::Recv)
        {
            m_engine->PostRecv(wr);
        }
        else
        {
            m_engine->PostSend(wr, Simulator::Now().GetNanoSeconds());
        }
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR("MetaRoceQueuePair " << m_localId << ": " << e.what());
    }
    ++m_nextWrId;
    m_posted();
    return wr.id;
}

uint64_t
MetaRoceQueuePair::PostWrite(uint16_t stream,
                             uint64_t length,
                             uint64_t remoteAddr,
                             uint32_t remoteKey,
                             uint64_t localAddr,
                             uint32_t localKey)
{
    NS_LOG_FUNCTION(this << stream << length);
    return Post(metaroce::Opcode::Write,
                stream,
                length,
                localAddr,
                localKey,
                remoteAddr,
                remoteKey);
}

uint64_t
MetaRoceQueuePair::PostSend(uint16_t stream, uint64_t length, uint64_t localAddr, uint32_t localKey)
{
    NS_LOG_FUNCTION(this << stream << length);
    return Post(metaroce::Opcode::Send, stream, length, localAddr, localKey, 0, 0);
}

uint64_t
MetaRoceQueuePair::PostRecv(uint16_t stream, uint64_t length, uint64_t localAddr, uint32_t localKey)
{
    NS_LOG_FUNCTION(this << stream << length);
    return Post(metaroce::Opcode::Recv, stream, length, localAddr, localKey, 0, 0);
}

void
MetaRoceQueuePair::SetCompletionCallback(CompletionCallback cb)
{
    m_completionCallback = cb;
}

void
MetaRoceQueuePair::Deliver(const metaroce::Completion& c)
{
    NS_LOG_INFO("qp " << m_localId << " wr " << c.wrId << " " << metaroce::OpcodeName(c.op) << " "
                      << metaroce::CompletionStatusName(c.status));
    ++m_completed;
    m_completionTrace(this, c);
    if (!m_completionCallback.IsNull())
    {
        m_completionCallback(this, c);
    }
}

std::string
MetaRoceQueuePair::GetTransportName() const
{
    return metaroce::TransportName(m_transport);
}

metaroce::Transport
MetaRoceQueuePair::GetTransport() const
{
    return m_transport;
}

uint32_t
MetaRoceQueuePair::GetLocalId() const
{
    return m_localId;
}

uint32_t
MetaRoceQueuePair::GetRemoteId() const
{
    return m_remoteId;
}

Ptr<MetaRoceNic>
MetaRoceQueuePair::GetNic() const
{
    return m_nic;
}

const metaroce::Counters&
MetaRoceQueuePair::GetCounters() const
{
    return m_engine->GetCounters();
}

bool
MetaRoceQueuePair::IsIdle() const
{
    return m_engine->Idle();
}

uint64_t
MetaRoceQueuePair::GetCompletedCount() const
{
    return m_completed;
}

metaroce::TransportEngine&
MetaRoceQueuePair::GetEngine() const
{
    return *m_engine;
}

} // namespace ns3
