#include "metaroce-connection.h"

#include "mcrc.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

/// `config`, after MetaRoceConfig::Validate() found nothing wrong with it.
std::shared_ptr<const MetaRoceConfig>
Validated(std::shared_ptr<const MetaRoceConfig> config)
{
    if (!config)
    {
        throw std::invalid_argument("MetaRoceConnection: no configuration");
    }
    config->Validate();
    return config;
}

std::unique_ptr<CongestionControl>
DefaultCc(const MetaRoceConfig& c, std::unique_ptr<CongestionControl> cc)
{
    if (cc)
    {
        return cc;
    }
    return std::make_unique<AimdCongestionControl>(c.aimd);
}

std::unique_ptr<FlowSelector>
DefaultSelector(std::unique_ptr<FlowSelector> selector)
{
    return selector ? std::move(selector) : std::make_unique<SprayFlowSelector>();
}

/// True when the ACK's flow and every flow it repeats is one of the connection's (spec 5.8).
bool
KnowsFlows(const MrHeader& ack, const MetaRoceConfig& c)
{
    const std::size_t flows = std::size_t{c.ports} * c.flowsPerPort;
    bool known = ack.flowId < flows;
    for (std::size_t k = 0; k < ack.repeatCount; ++k)
    {
        known &= ack.repeats[k].flowId < flows;
    }
    return known;
}

} // namespace

MetaRoceConnection::MetaRoceConnection(const MetaRoceConfig& config,
                                       MemoryRegistry* memory,
                                       std::unique_ptr<CongestionControl> cc,
                                       std::unique_ptr<FlowSelector> selector)
    : MetaRoceConnection(std::make_shared<const MetaRoceConfig>(config),
                         IdsOf(config),
                         memory,
                         std::move(cc),
                         std::move(selector))
{
}

MetaRoceConnection::MetaRoceConnection(std::shared_ptr<const MetaRoceConfig> shared,
                                       const ConnectionIds& ids,
                                       MemoryRegistry* memory,
                                       std::unique_ptr<CongestionControl> cc,
                                       std::unique_ptr<FlowSelector> selector)
    : m_portUp(~uint64_t{0})
    , m_config(Validated(std::move(shared)))
    , m_ids(ids)
    , m_memory(memory)
    , m_cc(DefaultCc(*m_config, std::move(cc)))
    , m_selector(DefaultSelector(std::move(selector)))
{
}

MetaRoceConnection::~MetaRoceConnection()
{
    // The halves hold references to the configuration, counters and evidence declared after
    // them (and so destroyed before them).
    m_requester.reset();
    m_responder.reset();
}

DeadlineCached<MetaRoceRequester>&
MetaRoceConnection::SendHalf() const
{
    if (!m_requester)
    {
        // The requester keeps references to the connection's configuration, counters and
        // completions, which do not move: the connection is neither copied nor moved.
        auto& self = const_cast<MetaRoceConnection&>(*this);
        m_requester = std::make_unique<DeadlineCached<MetaRoceRequester>>(*m_config,
                                                                          m_ids,
                                                                          m_memory,
                                                                          self.m_counters,
                                                                          self.m_sendCompletions,
                                                                          *m_evidence,
                                                                          std::move(m_cc),
                                                                          std::move(m_selector));
    }
    return *m_requester;
}

MetaRoceResponder&
MetaRoceConnection::ReceiveHalf() const
{
    if (!m_responder)
    {
        auto& self = const_cast<MetaRoceConnection&>(*this);
        m_responder = std::make_unique<MetaRoceResponder>(*m_config,
                                                          m_ids.remote,
                                                          m_ids.remoteInitialFsn,
                                                          m_memory,
                                                          self.m_counters);
        m_responder->ShareHints(m_hints);
    }
    return *m_responder;
}

const char*
MetaRoceConnection::Name() const
{
    return "metaroce";
}

void
MetaRoceConnection::ValidateWorkRequest(const WorkRequest& wr, bool recv) const
{
    auto bad = [&](const std::string& why) {
        throw std::invalid_argument("work request " + std::to_string(wr.id) + " (" +
                                    OpcodeName(wr.op) + "): " + why);
    };
    if (recv != (wr.op == Opcode::Recv))
    {
        bad(recv ? "PostRecv takes RECV requests only" : "PostSend takes WRITE or SEND only");
    }
    if (wr.stream >= m_config->streams)
    {
        bad("stream " + std::to_string(wr.stream) + " beyond the configured " +
            std::to_string(m_config->streams));
    }
    if (!recv && wr.length == 0)
    {
        bad("zero length");
    }
    if (wr.length > UINT32_MAX)
    {
        bad("length above 4 GiB - 1, the largest message the wire format describes");
    }
    if (wr.localKey != 0 &&
        (m_memory == nullptr || !m_memory->Check(wr.localKey, wr.localAddr, wr.length)))
    {
        bad("local buffer outside the region of key " + std::to_string(wr.localKey));
    }
    // In finish order a RECV completion says nothing of earlier messages, so a SEND must not
    // rely on an earlier WRITE of its stream having landed (spec 3.3).
    if (wr.op == Opcode::Send && m_config->Completions() == CompletionOrder::Finish &&
        m_requester && m_requester->Get().WriteUnfinished(wr.stream))
    {
        bad("completion order 1 (as messages finish) takes no SEND behind an unfinished WRITE "
            "of stream " +
            std::to_string(wr.stream) +
            ": its RECV completion would not imply the WRITE landed; wait for the WRITE's "
            "completion, or use completion order 0 (posting order)");
    }
}

void
MetaRoceConnection::PostSend(const WorkRequest& wr, TimeNs now)
{
    ValidateWorkRequest(wr, false);
    SendHalf().Mutate().Post(wr, now);
}

void
MetaRoceConnection::PostRecv(const WorkRequest& wr)
{
    ValidateWorkRequest(wr, true);
    ReceiveHalf().PostRecv(wr);
}

RxResult
MetaRoceConnection::Refuse(DropReason reason)
{
    m_counters.CountDrop(reason);
    return RxResult{false, reason};
}

RxResult
MetaRoceConnection::OnPacket(const RxPacket& pkt)
{
    ++m_counters.rxPackets;
    m_counters.rxBytes += pkt.wireSize;
    if (pkt.port >= m_config->ports || !m_portUp[pkt.port])
    {
        return Refuse(DropReason::PortDown);
    }
    // The mCRC first: nothing of a corrupted packet is believed (spec 4.1).
    RxPacket body = pkt;
    if (m_config->mcrc)
    {
        const DropReason crc = McrcCheck(body);
        if (crc != DropReason::Count)
        {
            return Refuse(crc);
        }
    }
    const MrParseResult parsed = MrParse(body.data, body.size, body.wireSize);
    if (!parsed.header)
    {
        return Refuse(parsed.reason);
    }
    const MrHeader& h = *parsed.header;
    if (h.connection != m_ids.local)
    {
        return Refuse(DropReason::WrongConnection);
    }
    if (pkt.ecnCe)
    {
        ++m_counters.rxEcnMarked;
    }
    RxResult result;
    switch (h.opcode)
    {
    case MrOpcode::Write:
    case MrOpcode::Send: {
        const bool real = body.size == body.wireSize;
        result = ReceiveHalf().OnData(h, real ? body.data + h.Size() : nullptr, body);
        result.carriedData = result.accepted;
        break;
    }
    case MrOpcode::Probe:
        result = ReceiveHalf().OnProbe(h, body);
        break;
    case MrOpcode::Ack:
        ++m_counters.rxControlPackets;
        if (!KnowsFlows(h, *m_config))
        {
            result = RxResult{false, DropReason::BadField};
        }
        else if (!SendHalf().Mutate().OnAck(h, pkt.now))
        {
            result = RxResult{false, DropReason::AckOutOfWindow};
        }
        break;
    case MrOpcode::Nak:
        ++m_counters.rxControlPackets;
        if (const std::optional<DropReason> refused = SendHalf().Mutate().OnNak(h, pkt.now))
        {
            result = RxResult{false, *refused};
        }
        break;
    }
    if (!result.accepted)
    {
        m_counters.CountDrop(result.reason);
    }
    return result;
}

void
MetaRoceConnection::OnTimeout(TimeNs now)
{
    if (m_responder)
    {
        m_responder->OnTimeout(now);
    }
    // Most timer events are the responder's ACK delays: a requester with nothing due would
    // only be recomputed afterwards (spec 1.3: OnTimeout acts on deadlines NextTimeout reports).
    if (m_requester && m_requester->NextTimeout() <= now)
    {
        m_requester->Mutate().OnTimeout(now);
    }
}

void
MetaRoceConnection::OnPortState(uint16_t port, bool up, TimeNs now)
{
    if (port >= m_config->ports)
    {
        throw std::invalid_argument("port " + std::to_string(port) + " beyond the configured " +
                                    std::to_string(m_config->ports));
    }
    m_portUp[port] = up;
    if (m_responder)
    {
        m_responder->OnPortState(port, up); // a responder not yet made has nothing queued
    }
    // A port event before the first send acts on the flows all the same: the requester is
    // made for it.
    SendHalf().Mutate().OnPortState(port, up, now);
}

std::optional<OutPacket>
MetaRoceConnection::PullPacket(uint16_t port, TimeNs now)
{
    return Pull(port, now, PullKind::Any);
}

std::optional<OutPacket>
MetaRoceConnection::PullControlPacket(uint16_t port, TimeNs now)
{
    return Pull(port, now, PullKind::Control);
}

std::optional<OutPacket>
MetaRoceConnection::PullRecoveryPacket(uint16_t port, TimeNs now)
{
    return Pull(port, now, PullKind::Recovery);
}

std::optional<OutPacket>
MetaRoceConnection::Pull(uint16_t port, TimeNs now, PullKind kind)
{
    if (port >= m_config->ports || !m_portUp[port])
    {
        return std::nullopt;
    }
    // The responder's ACKs and NAKs first; for control only the requester's PROBEs wait with
    // its data (spec 1.3).
    std::optional<OutPacket> out = m_responder ? m_responder->Pull(port, now) : std::nullopt;
    if (!out && kind != PullKind::Control && m_requester)
    {
        out = m_requester->Mutate().Pull(port, now, kind == PullKind::Recovery);
    }
    if (out)
    {
        if (m_config->mcrc)
        {
            McrcAppend(*out);
        }
        ++m_counters.txPackets;
        m_counters.txBytes += out->WireSize();
    }
    return out;
}

bool
MetaRoceConnection::HasWork(uint16_t port) const
{
    return port < m_config->ports && m_portUp[port] &&
           ((m_responder && m_responder->HasWork(port)) ||
            (m_requester && m_requester->Get().HasWork(port)));
}

bool
MetaRoceConnection::HasControlWork(uint16_t port) const
{
    return port < m_config->ports && m_portUp[port] && m_responder && m_responder->HasWork(port);
}

bool
MetaRoceConnection::HasRecoveryWork(uint16_t port) const
{
    return port < m_config->ports && m_portUp[port] && m_requester &&
           m_requester->Get().HasRecoveryWork(port);
}

bool
MetaRoceConnection::ContinuesBurst(uint16_t port) const
{
    return port < m_config->ports && m_portUp[port] && m_requester &&
           m_requester->Get().ContinuesBurst(port);
}

PortWork
MetaRoceConnection::WorkOnPorts(uint16_t ports) const
{
    const uint64_t up = m_portUp.to_ullong() & PortBits(std::min(ports, m_config->ports));
    PortWork work;
    if (m_requester)
    {
        work = m_requester->Get().WorkOnPorts();
    }
    work.control = m_responder ? m_responder->PortsWithWork() : 0;
    work.any = up & (work.any | work.control);
    work.control &= up;
    work.recovery &= up;
    return work;
}

TimeNs
MetaRoceConnection::NextTimeout() const
{
    return std::min(m_responder ? m_responder->NextTimeout() : kNever,
                    m_requester ? m_requester->NextTimeout() : kNever);
}

std::vector<Completion>
MetaRoceConnection::TakeCompletions()
{
    // Asked after every event; most have nothing to hand over.
    if (m_sendCompletions.empty() && (!m_responder || !m_responder->HasCompletions()))
    {
        return {};
    }
    std::vector<Completion> out;
    out.swap(m_sendCompletions);
    if (m_responder)
    {
        m_responder->TakeCompletions(out);
    }
    return out;
}

bool
MetaRoceConnection::Idle() const
{
    return !m_requester || m_requester->Get().Idle();
}

const Counters&
MetaRoceConnection::GetCounters() const
{
    return m_counters;
}

void
MetaRoceConnection::SetFairShare(uint64_t bps)
{
    ReceiveHalf().SetFairShare(bps); // the NIC shares its hints instead: rare, not per window
}

void
MetaRoceConnection::SetAdmissionTarget(uint64_t bytes)
{
    ReceiveHalf().SetAdmissionTarget(bytes);
}

void
MetaRoceConnection::ShareLossEvidence(LossEvidence& evidence)
{
    m_evidence = &evidence;
    if (m_requester)
    {
        m_requester->Mutate().ShareLossEvidence(evidence);
    }
}

void
MetaRoceConnection::ShareReceiverHints(const ReceiverHints* hints)
{
    m_hints = ReceiverHintsView(hints);
    if (m_responder)
    {
        m_responder->ShareHints(m_hints);
    }
}

} // namespace metaroce
