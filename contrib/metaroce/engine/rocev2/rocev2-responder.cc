#include "rocev2-responder.h"

#include <stdexcept>
#include <string>

namespace metaroce
{

RoceV2Responder::RoceV2Responder(const RoceV2Config& config,
                                 MemoryRegistry& memory,
                                 Counters& counters,
                                 std::vector<Completion>& cq)
    : m_config(config)
    , m_memory(memory)
    , m_counters(counters)
    , m_cq(cq)
    , m_epsn(config.remoteInitialPsn)
{
}

void
RoceV2Responder::PostRecv(const WorkRequest& wr)
{
    const std::string what = "RoceV2Responder: receive request " + std::to_string(wr.id) + ": ";
    if (wr.op != Opcode::Recv)
    {
        throw std::invalid_argument(what + "opcode " + OpcodeName(wr.op) + " is not RECV");
    }
    if (wr.stream != 0)
    {
        throw std::invalid_argument(what + "an RC queue pair has only stream 0 (got " +
                                    std::to_string(wr.stream) + ")");
    }
    if (wr.localKey != 0 && m_memory.Check(wr.localKey, wr.localAddr, wr.length) == nullptr)
    {
        throw std::invalid_argument(what + "local key " + std::to_string(wr.localKey) +
                                    " does not cover the buffer");
    }
    m_recvs.push_back(wr);
}

RxResult
RoceV2Responder::OnRequest(const IbPacket& pkt, TimeNs now)
{
    const int64_t delta = IbPsnDelta(pkt.bth.psn, m_epsn);
    if (delta < 0)
    {
        // IBA ch. 9.7: a duplicate is acknowledged again, never re-executed.
        if (m_response == Response::None)
        {
            m_response = Response::Ack;
        }
        return RxResult{false, DropReason::Duplicate};
    }
    if (delta > 0)
    {
        if (!m_nakSent)
        {
            m_response = Response::Nak;
            m_nakSyndrome = IbNakSyndrome(IbNakCode::PsnSequenceError);
            m_nakPsn = m_epsn;
            m_nakSent = true;
        }
        return RxResult{false, DropReason::OutOfSequence};
    }

    // Opcode sequence check (IBA ch. 9.7): FIRST/ONLY only between messages, MIDDLE/LAST only
    // inside a message of the same kind.
    const uint16_t mask = pkt.info->mask;
    const bool starts = (mask & kIbFirst) != 0;
    const bool write = (mask & kIbWrite) != 0;
    if (starts == m_inbound.active || (!starts && m_inbound.write != write))
    {
        return RefuseWithNak(DropReason::BadOpcode, IbNakSyndrome(IbNakCode::InvalidRequest));
    }
    std::optional<RxResult> refused = write ? PlaceWrite(pkt) : PlaceSend(pkt, now);
    if (refused)
    {
        return *refused;
    }

    ++m_epsn;
    m_nakSent = false;
    m_counters.placedBytes += pkt.payloadLength;
    if (mask & kIbLast)
    {
        ++m_msn;
        m_inbound = Inbound{};
    }
    ++m_sinceAck;
    if (pkt.bth.ackReq || (mask & kIbLast) || m_sinceAck >= m_config.ackEveryPackets ||
        m_response == Response::Nak)
    {
        m_response = Response::Ack;
    }
    return RxResult{};
}

bool
RoceV2Responder::HasResponse() const
{
    return m_response != Response::None;
}

std::optional<OutPacket>
RoceV2Responder::TakeResponse()
{
    if (m_response == Response::None)
    {
        return std::nullopt;
    }
    const bool ack = m_response == Response::Ack;
    IbBth bth;
    bth.opcode = IbOpcode::RcAcknowledge;
    bth.pKey = m_config.pKey;
    bth.destQpn = m_config.remoteQpn;
    bth.psn = static_cast<uint32_t>((ack ? m_epsn - 1 : m_nakPsn) & kIb24BitMask);
    const IbAeth aeth{ack ? IbAckSyndrome() : m_nakSyndrome, m_msn & kIb24BitMask};

    OutPacket out;
    out.header = IbSerializeHeader(bth, IbReth{}, aeth);
    out.payloadSize = kIbIcrcSize;
    out.payload.assign(kIbIcrcSize, 0);
    out.isControl = true;
    if (ack)
    {
        ++m_counters.txAcks;
    }
    m_response = Response::None;
    m_sinceAck = 0;
    return out;
}

uint64_t
RoceV2Responder::ExpectedPsn() const
{
    return m_epsn;
}

uint32_t
RoceV2Responder::Msn() const
{
    return m_msn;
}

std::size_t
RoceV2Responder::PostedRecvs() const
{
    return m_recvs.size();
}

RxResult
RoceV2Responder::RefuseWithNak(DropReason reason, uint8_t syndrome)
{
    // The refused packet is the expected one, so it is always answered (a resent packet refused
    // again gets a new NAK); the packets behind it are out of sequence and stay silent.
    m_response = Response::Nak;
    m_nakSyndrome = syndrome;
    m_nakPsn = m_epsn;
    m_nakSent = true;
    return RxResult{false, reason};
}

std::optional<RxResult>
RoceV2Responder::PlaceWrite(const IbPacket& pkt)
{
    const uint16_t mask = pkt.info->mask;
    Inbound next = m_inbound;
    if (mask & kIbFirst)
    {
        // IBA ch. 9.7 (R_Key check): the whole message must fit the region named by the RETH.
        if (m_memory.Check(pkt.reth.rkey, pkt.reth.va, pkt.reth.dmaLength) == nullptr)
        {
            return RefuseWithNak(DropReason::AccessError,
                                 IbNakSyndrome(IbNakCode::RemoteAccessError));
        }
        next = Inbound{true, true, 0, pkt.reth.dmaLength, pkt.reth.va, pkt.reth.rkey};
    }
    const uint64_t end = next.offset + pkt.payloadLength;
    if (end > next.length || ((mask & kIbLast) && end != next.length))
    {
        return RefuseWithNak(DropReason::BadField, IbNakSyndrome(IbNakCode::InvalidRequest));
    }
    const uint64_t addr = next.va + next.offset;
    const MemoryRegion* region = m_memory.Check(next.rkey, addr, pkt.payloadLength);
    if (region == nullptr)
    {
        return RefuseWithNak(DropReason::AccessError, IbNakSyndrome(IbNakCode::RemoteAccessError));
    }
    if (pkt.payload != nullptr)
    {
        m_memory.Write(*region, addr, pkt.payload, pkt.payloadLength);
    }
    next.offset = end;
    m_inbound = next;
    return std::nullopt;
}

std::optional<RxResult>
RoceV2Responder::PlaceSend(const IbPacket& pkt, TimeNs now)
{
    const uint16_t mask = pkt.info->mask;
    if ((mask & kIbFirst) && m_recvs.empty())
    {
        // Receiver not ready (IBA ch. 9.7, RNR NAK): ask the requester to retry after the RNR
        // timer.
        return RefuseWithNak(DropReason::NoReceivePosted,
                             IbRnrNakSyndrome(static_cast<uint8_t>(m_config.minRnrTimerCode)));
    }
    const WorkRequest recv = m_recvs.front();
    const uint64_t offset = (mask & kIbFirst) ? 0 : m_inbound.offset;
    const uint64_t end = offset + pkt.payloadLength;
    if (end > recv.length)
    {
        // IBA ch. 9.7: the RECV completes in error and the requester gets "invalid request".
        m_recvs.pop_front();
        m_inbound = Inbound{};
        Complete(recv, CompletionStatus::LocalLengthError, 0, now);
        return RefuseWithNak(DropReason::BadField, IbNakSyndrome(IbNakCode::InvalidRequest));
    }
    const uint64_t addr = recv.localAddr + offset;
    const MemoryRegion* region = m_memory.Check(recv.localKey, addr, pkt.payloadLength);
    if (region == nullptr)
    {
        return RefuseWithNak(DropReason::AccessError, IbNakSyndrome(IbNakCode::RemoteAccessError));
    }
    if (pkt.payload != nullptr)
    {
        m_memory.Write(*region, addr, pkt.payload, pkt.payloadLength);
    }
    if (mask & kIbLast)
    {
        m_recvs.pop_front();
        m_inbound = Inbound{};
        Complete(recv, CompletionStatus::Success, end, now);
    }
    else
    {
        m_inbound = Inbound{true, false, end, 0, 0, 0};
    }
    return std::nullopt;
}

void
RoceV2Responder::Complete(const WorkRequest& wr,
                          CompletionStatus status,
                          uint64_t bytes,
                          TimeNs now)
{
    m_cq.push_back(Completion{wr.id, Opcode::Recv, wr.stream, status, bytes, now});
    ++m_counters.completions;
}

} // namespace metaroce
