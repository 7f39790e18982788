#include "rocev2-requester.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

const std::array<const char*, 3> kRoceV2RequesterStateNames = {"ready", "rnr-wait", "error"};

[[noreturn]] void
BadRequest(const WorkRequest& wr, const std::string& why)
{
    throw std::invalid_argument("RoceV2Requester: work request " + std::to_string(wr.id) + ": " +
                                why);
}

/// now + delay, saturating at kNever.
TimeNs
After(TimeNs now, TimeNs delay)
{
    return delay >= kNever - now ? kNever : now + delay;
}

} // namespace

const char*
RoceV2RequesterStateName(RoceV2RequesterState state)
{
    auto i = static_cast<std::size_t>(state);
    return i < kRoceV2RequesterStateNames.size() ? kRoceV2RequesterStateNames[i] : "?";
}

RoceV2Requester::RoceV2Requester(const RoceV2Config& config,
                                 const MemoryRegistry& memory,
                                 Counters& counters,
                                 std::vector<Completion>& cq)
    : m_config(config)
    , m_memory(memory)
    , m_counters(counters)
    , m_cq(cq)
    , m_nextAssign(config.initialPsn)
    , m_una(config.initialPsn)
    , m_sendPsn(config.initialPsn)
    , m_maxSent(config.initialPsn)
{
}

void
RoceV2Requester::Post(const WorkRequest& wr, TimeNs now)
{
    if (wr.op != Opcode::Write && wr.op != Opcode::Send)
    {
        BadRequest(wr, std::string("opcode ") + OpcodeName(wr.op) + " is not WRITE or SEND");
    }
    if (wr.length == 0 || wr.length > kIbMaxMessageSize)
    {
        BadRequest(wr, "length must be in [1, 2^31] (got " + std::to_string(wr.length) + ")");
    }
    if (wr.stream != 0)
    {
        BadRequest(wr,
                   "an RC queue pair has only stream 0 (got " + std::to_string(wr.stream) + ")");
    }
    if (wr.localKey != 0 && m_memory.Check(wr.localKey, wr.localAddr, wr.length) == nullptr)
    {
        BadRequest(wr, "local key " + std::to_string(wr.localKey) + " does not cover the source");
    }
    if (m_state == RoceV2RequesterState::Error)
    {
        Complete(wr, CompletionStatus::Flushed, now);
        return;
    }
    const uint64_t packets = (wr.length + m_config.mtu - 1) / m_config.mtu;
    m_sq.push_back(SendWqe{wr, m_nextAssign, m_nextAssign + packets - 1});
    m_nextAssign += packets;
}

bool
RoceV2Requester::HasData() const
{
    return m_state != RoceV2RequesterState::Error && m_sendPsn < m_nextAssign &&
           m_sendPsn < m_una + m_config.windowPackets;
}

bool
RoceV2Requester::CanSend(TimeNs now) const
{
    return HasData() && (m_state != RoceV2RequesterState::RnrWait || now >= m_rnrUntil);
}

OutPacket
RoceV2Requester::NextPacket(TimeNs now)
{
    if (m_state == RoceV2RequesterState::RnrWait)
    {
        SetState(RoceV2RequesterState::Ready);
    }
    const SendWqe& wqe = m_sq[m_sendIndex];
    const WorkRequest& wr = wqe.wr;
    const uint64_t psn = m_sendPsn;
    const uint64_t offset = (psn - wqe.firstPsn) * m_config.mtu;
    const auto length = static_cast<uint32_t>(std::min<uint64_t>(m_config.mtu, wr.length - offset));
    const bool first = psn == wqe.firstPsn;
    const bool last = psn == wqe.lastPsn;

    IbBth bth;
    bth.opcode = IbDataOpcode(wr.op == Opcode::Write, first, last);
    bth.padCount = IbPadCount(length);
    bth.pKey = m_config.pKey;
    bth.destQpn = m_config.remoteQpn;
    bth.ackReq = last || psn + 1 == m_una + m_config.windowPackets;
    bth.psn = static_cast<uint32_t>(psn & kIb24BitMask);
    // The RETH names the whole message; the responder tracks the offset of later packets.
    const IbReth reth{wr.remoteAddr, wr.remoteKey, static_cast<uint32_t>(wr.length)};

    OutPacket out;
    out.header = IbSerializeHeader(bth, reth, IbAeth{});
    out.payloadSize = IbTrailedSize(length);
    if (wr.localKey != 0)
    {
        // Real-payload mode: the bytes are read when sent, as a NIC DMAs them, then padded and
        // followed by the (zero) ICRC.
        const MemoryRegion* region = m_memory.Check(wr.localKey, wr.localAddr + offset, length);
        if (region != nullptr && region->data != nullptr)
        {
            out.payload.assign(out.payloadSize, 0);
            m_memory.Read(*region, wr.localAddr + offset, out.payload.data(), length);
        }
    }

    if (psn < m_maxSent)
    {
        ++m_counters.retransmittedPackets;
    }
    m_maxSent = std::max(m_maxSent, psn + 1);
    ++m_sendPsn;
    if (last)
    {
        ++m_sendIndex;
    }
    if (m_rtoDeadline == kNever)
    {
        m_rtoDeadline = After(now, CurrentRto());
    }
    return out;
}

RxResult
RoceV2Requester::OnAcknowledge(const IbPacket& pkt, TimeNs now)
{
    if (m_state == RoceV2RequesterState::Error)
    {
        return RxResult{}; // everything was flushed; late responses change nothing
    }
    // IBA ch. 9.7: an ACK's PSN is the last one acknowledged; a NAK's PSN is the one refused,
    // and everything before it is acknowledged. Either can be stale after a rewind.
    const int64_t delta = IbPsnDelta(pkt.bth.psn, m_una);
    const IbAethType type = IbSyndromeType(pkt.aeth.syndrome);
    const uint64_t through = type == IbAethType::Ack ? 1 : 0;
    if (delta < 0)
    {
        return RxResult{};
    }
    const uint64_t psn = m_una + static_cast<uint64_t>(delta);
    if (psn >= m_maxSent)
    {
        return RxResult{false, DropReason::AckOutOfWindow};
    }
    AcknowledgeBelow(psn + through, now);
    if (type == IbAethType::Ack)
    {
        return RxResult{};
    }
    if (type == IbAethType::RnrNak)
    {
        ++m_rnrRetries;
        if (m_config.rnrRetryLimit != 7 && m_rnrRetries > m_config.rnrRetryLimit)
        {
            Fail(CompletionStatus::RetryExceeded, now);
            return RxResult{};
        }
        GoBack();
        m_rnrUntil = After(now, IbRnrTimerNs(IbSyndromeValue(pkt.aeth.syndrome)));
        m_rtoDeadline = kNever; // nothing is in flight until the delay ends
        SetState(RoceV2RequesterState::RnrWait);
        return RxResult{};
    }
    if (IbSyndromeValue(pkt.aeth.syndrome) == static_cast<uint8_t>(IbNakCode::PsnSequenceError))
    {
        // Go-back-N (IBA ch. 9.7): resend from the PSN the responder expects.
        ++m_counters.fastRetransmits;
        GoBack();
        m_rtoDeadline = After(now, CurrentRto());
        return RxResult{};
    }
    Fail(CompletionStatus::RemoteAccessError, now);
    return RxResult{};
}

void
RoceV2Requester::OnTimeout(TimeNs now)
{
    if (m_state == RoceV2RequesterState::RnrWait && now >= m_rnrUntil)
    {
        SetState(RoceV2RequesterState::Ready);
    }
    if (m_rtoDeadline == kNever || now < m_rtoDeadline)
    {
        return;
    }
    ++m_counters.timeouts;
    ++m_timeouts;
    if (m_timeouts > m_config.retryLimit)
    {
        Fail(CompletionStatus::RetryExceeded, now);
        return;
    }
    GoBack();
    m_rtoDeadline = After(now, CurrentRto());
}

TimeNs
RoceV2Requester::NextTimeout() const
{
    TimeNs next = m_rtoDeadline;
    if (m_state == RoceV2RequesterState::RnrWait)
    {
        next = std::min(next, m_rnrUntil);
    }
    return next;
}

bool
RoceV2Requester::Idle() const
{
    return m_sq.empty();
}

RoceV2RequesterState
RoceV2Requester::State() const
{
    return m_state;
}

uint64_t
RoceV2Requester::UnackedPsn() const
{
    return m_una;
}

uint64_t
RoceV2Requester::NextSendPsn() const
{
    return m_sendPsn;
}

uint64_t
RoceV2Requester::HighestSentPsn() const
{
    return m_maxSent;
}

uint32_t
RoceV2Requester::ConsecutiveTimeouts() const
{
    return m_timeouts;
}

void
RoceV2Requester::SetState(RoceV2RequesterState next)
{
    m_state = next;
}

void
RoceV2Requester::AcknowledgeBelow(uint64_t psn, TimeNs now)
{
    if (psn <= m_una)
    {
        return;
    }
    m_una = psn;
    m_timeouts = 0;
    m_rnrRetries = 0;
    std::size_t popped = 0;
    while (!m_sq.empty() && m_sq.front().lastPsn < m_una)
    {
        Complete(m_sq.front().wr, CompletionStatus::Success, now);
        m_sq.pop_front();
        ++popped;
    }
    if (m_sendPsn < m_una)
    {
        // A late ACK covered packets a rewind meant to resend: skip them.
        m_sendPsn = m_una;
        m_sendIndex = 0;
    }
    else
    {
        m_sendIndex -= popped;
    }
    m_rtoDeadline = m_una < m_maxSent ? After(now, CurrentRto()) : kNever;
}

void
RoceV2Requester::GoBack()
{
    m_sendPsn = m_una;
    m_sendIndex = 0;
}

void
RoceV2Requester::Fail(CompletionStatus status, TimeNs now)
{
    bool first = true;
    for (const SendWqe& wqe : m_sq)
    {
        Complete(wqe.wr, first ? status : CompletionStatus::Flushed, now);
        first = false;
    }
    m_sq.clear();
    m_una = m_sendPsn = m_nextAssign;
    m_maxSent = std::max(m_maxSent, m_nextAssign);
    m_sendIndex = 0;
    m_rtoDeadline = kNever;
    SetState(RoceV2RequesterState::Error);
}

void
RoceV2Requester::Complete(const WorkRequest& wr, CompletionStatus status, TimeNs now)
{
    const uint64_t bytes = status == CompletionStatus::Success ? wr.length : 0;
    m_cq.push_back(Completion{wr.id, wr.op, wr.stream, status, bytes, now});
    ++m_counters.completions;
}

TimeNs
RoceV2Requester::CurrentRto() const
{
    const uint32_t shift = std::min<uint32_t>(m_timeouts, 8);
    if (m_config.rtoNs > (kNever >> shift))
    {
        return kNever;
    }
    return m_config.rtoNs << shift;
}

} // namespace metaroce
