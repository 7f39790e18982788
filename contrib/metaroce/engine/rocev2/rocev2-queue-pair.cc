#include "rocev2-queue-pair.h"

#include "rocev2-wire.h"

#include <algorithm>
#include <utility>

namespace metaroce
{

namespace
{

const RoceV2Config&
Validated(const RoceV2Config& config)
{
    config.Validate();
    return config;
}

} // namespace

RoceV2QueuePair::RoceV2QueuePair(const RoceV2Config& config, MemoryRegistry& memory)
    : m_config(Validated(config))
    , m_memory(memory)
    , m_requester(m_config, m_memory, m_counters, m_cq)
    , m_responder(m_config, m_memory, m_counters, m_cq)
    , m_rp(m_config.dcqcn, m_config.lineRateBps)
    , m_np(m_config.dcqcn.cnpIntervalNs)
{
}

const char*
RoceV2QueuePair::Name() const
{
    return "rocev2";
}

void
RoceV2QueuePair::PostSend(const WorkRequest& wr, TimeNs now)
{
    m_now = std::max(m_now, now);
    m_requester.Post(wr, now);
}

void
RoceV2QueuePair::PostRecv(const WorkRequest& wr)
{
    m_responder.PostRecv(wr);
}

RxResult
RoceV2QueuePair::OnPacket(const RxPacket& pkt)
{
    m_now = std::max(m_now, pkt.now);
    ++m_counters.rxPackets;
    m_counters.rxBytes += pkt.wireSize;
    if (pkt.port != m_config.port)
    {
        return Refuse(DropReason::WrongConnection);
    }
    if (!m_portUp || pkt.corrupted)
    {
        // A corrupted packet: what the ICRC, carried but not computed, would catch.
        return Refuse(m_portUp ? DropReason::BadCrc : DropReason::PortDown);
    }
    const IbParseResult parsed = IbParse(pkt.data, pkt.size, pkt.wireSize);
    if (!parsed.packet)
    {
        return Refuse(parsed.reason);
    }
    const IbPacket& ib = *parsed.packet;
    const uint16_t mask = ib.info->mask;
    if (ib.bth.destQpn != m_config.localQpn)
    {
        return Refuse(DropReason::WrongConnection);
    }
    // IBA ch. 9.6 (P_Key check): a P_Key other than the QP's is dropped (no partial-membership
    // rules here).
    if (ib.bth.pKey != m_config.pKey)
    {
        return Refuse(DropReason::BadField);
    }
    // IBA ch. 9.7 (length check): FIRST and MIDDLE packets carry exactly one path MTU, LAST and
    // ONLY at most one.
    if (mask & kIbRequest)
    {
        const bool full = (mask & (kIbFirst | kIbMiddle)) && !(mask & kIbLast);
        if (full ? ib.payloadLength != m_config.mtu : ib.payloadLength > m_config.mtu)
        {
            return Refuse(DropReason::BadField);
        }
    }

    if (pkt.ecnCe)
    {
        ++m_counters.rxEcnMarked;
    }
    RxResult result;
    if (mask & kIbRequest)
    {
        // DCQCN notification point: the mark is congestion whatever the responder decides.
        if (pkt.ecnCe && m_config.dcqcn.enabled && m_np.OnCeMarked(pkt.now))
        {
            m_cnpPending = true;
        }
        result = m_responder.OnRequest(ib, pkt.now);
        result.carriedData = result.accepted;
        if (result.accepted)
        {
            ++m_counters.rxDataPackets;
        }
    }
    else if (mask & kIbAck)
    {
        result = m_requester.OnAcknowledge(ib, pkt.now);
        if (result.accepted)
        {
            ++m_counters.rxControlPackets;
        }
    }
    else
    {
        if (m_config.dcqcn.enabled)
        {
            m_rp.OnCnp(pkt.now);
        }
        ++m_counters.rxControlPackets;
    }
    if (!result.accepted)
    {
        m_counters.CountDrop(result.reason);
    }
    return result;
}

void
RoceV2QueuePair::OnTimeout(TimeNs now)
{
    m_now = std::max(m_now, now);
    m_requester.OnTimeout(now);
    if (m_config.dcqcn.enabled)
    {
        m_rp.OnTimer(now);
    }
}

void
RoceV2QueuePair::OnPortState(uint16_t port, bool up, TimeNs now)
{
    m_now = std::max(m_now, now);
    if (port != m_config.port)
    {
        return;
    }
    if (m_portUp && !up)
    {
        ++m_counters.flowsDown;
    }
    m_portUp = up;
}

std::optional<OutPacket>
RoceV2QueuePair::PullPacket(uint16_t port, TimeNs now)
{
    if (std::optional<OutPacket> control = PullControlPacket(port, now))
    {
        return control;
    }
    if (port != m_config.port || !m_portUp || !m_requester.CanSend(now))
    {
        return std::nullopt;
    }
    if (m_config.dcqcn.enabled)
    {
        m_rp.OnTimer(now);
    }
    if (Pacing() && now < m_nextSendTime)
    {
        return std::nullopt;
    }
    OutPacket data = m_requester.NextPacket(now);
    if (m_config.dcqcn.enabled)
    {
        const std::size_t wire = data.WireSize();
        m_nextSendTime = Pacing() ? std::max(m_nextSendTime, now) + PacingGap(wire) : now;
        m_rp.OnBytesSent(wire, now);
    }
    Stamp(data);
    return data;
}

std::optional<OutPacket>
RoceV2QueuePair::PullControlPacket(uint16_t port, TimeNs now)
{
    m_now = std::max(m_now, now);
    if (port != m_config.port || !m_portUp)
    {
        return std::nullopt;
    }
    if (std::optional<OutPacket> response = m_responder.TakeResponse())
    {
        Stamp(*response);
        return response;
    }
    if (m_cnpPending)
    {
        // Annex A17: a CNP names the QP whose packets were marked, i.e. our peer.
        m_cnpPending = false;
        IbBth bth;
        bth.opcode = IbOpcode::Cnp;
        bth.pKey = m_config.pKey;
        bth.destQpn = m_config.remoteQpn;
        OutPacket cnp;
        cnp.header = IbSerializeHeader(bth, IbReth{}, IbAeth{});
        cnp.payloadSize = kIbIcrcSize;
        cnp.payload.assign(kIbIcrcSize, 0);
        cnp.isControl = true;
        Stamp(cnp);
        return cnp;
    }
    return std::nullopt;
}

bool
RoceV2QueuePair::HasWork(uint16_t port) const
{
    return port == m_config.port && m_portUp &&
           (m_responder.HasResponse() || m_cnpPending || m_requester.HasData());
}

bool
RoceV2QueuePair::HasControlWork(uint16_t port) const
{
    return port == m_config.port && m_portUp && (m_responder.HasResponse() || m_cnpPending);
}

bool
RoceV2QueuePair::HasRecoveryWork(uint16_t /* port */) const
{
    // Go-back-N resends everything from the lost packet on: a window of it ahead of other queue
    // pairs' data would be no small favour, so it takes its turn like new data (spec 10.3).
    return false;
}

std::optional<OutPacket>
RoceV2QueuePair::PullRecoveryPacket(uint16_t port, TimeNs now)
{
    return PullControlPacket(port, now);
}

TimeNs
RoceV2QueuePair::NextTimeout() const
{
    TimeNs next = m_requester.NextTimeout();
    if (m_config.dcqcn.enabled)
    {
        next = std::min(next, m_rp.NextTimer());
    }
    // The pacing deadline only when pacing is what holds data back: a deadline in the past would
    // make a driver spin.
    if (m_portUp && Pacing() && m_nextSendTime > m_now && m_requester.CanSend(m_now))
    {
        next = std::min(next, m_nextSendTime);
    }
    return next;
}

std::vector<Completion>
RoceV2QueuePair::TakeCompletions()
{
    std::vector<Completion> out;
    out.swap(m_cq);
    return out;
}

bool
RoceV2QueuePair::Idle() const
{
    return m_requester.Idle() && !m_responder.HasResponse() && !m_cnpPending;
}

const Counters&
RoceV2QueuePair::GetCounters() const
{
    return m_counters;
}

const RoceV2Config&
RoceV2QueuePair::GetConfig() const
{
    return m_config;
}

const RoceV2Requester&
RoceV2QueuePair::GetRequester() const
{
    return m_requester;
}

const RoceV2Responder&
RoceV2QueuePair::GetResponder() const
{
    return m_responder;
}

const DcqcnReactionPoint&
RoceV2QueuePair::GetReactionPoint() const
{
    return m_rp;
}

const DcqcnNotificationPoint&
RoceV2QueuePair::GetNotificationPoint() const
{
    return m_np;
}

TimeNs
RoceV2QueuePair::NextSendTime() const
{
    return m_nextSendTime;
}

RxResult
RoceV2QueuePair::Refuse(DropReason reason)
{
    m_counters.CountDrop(reason);
    return RxResult{false, reason};
}

void
RoceV2QueuePair::Stamp(OutPacket& pkt)
{
    pkt.port = m_config.port;
    pkt.udpSrcPort = m_config.udpSrcPort;
    pkt.udpDstPort = kRoceV2UdpPort;
    ++m_counters.txPackets;
    m_counters.txBytes += pkt.WireSize();
    if (pkt.isControl)
    {
        ++m_counters.txControlPackets;
    }
    else
    {
        ++m_counters.txDataPackets;
    }
}

TimeNs
RoceV2QueuePair::PacingGap(std::size_t bytes) const
{
    const uint64_t bits = (uint64_t{bytes} + m_config.frameOverheadBytes) * 8;
    const uint64_t rate = m_rp.RateBps();
    return (bits * 1000000000ULL + rate - 1) / rate;
}

bool
RoceV2QueuePair::Pacing() const
{
    return m_config.dcqcn.enabled && m_rp.RateBps() < m_rp.LineRateBps();
}

} // namespace metaroce
