#include "metaroce-responder.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

/**
 * True when a new SEND `msn` with receive index `recvIndex` keeps the indices of the stream's
 * SENDs in progress rising with their MSN: a sender gives SEND k of a stream index k (spec
 * 6.2), and two SENDs claiming one RECV would complete it twice (found by test/fuzz: the
 * second completion popped an empty RECV queue).
 */
template<class Messages>
bool
SendIndexFits(const Messages& messages, uint32_t msn, uint32_t recvIndex)
{
    const auto next = messages.upper_bound(msn);
    for (auto i = next; i != messages.end(); ++i)
    {
        if (i->second.op == Opcode::Send)
        {
            if (i->second.recvIndex <= recvIndex)
            {
                return false;
            }
            break;
        }
    }
    for (auto i = std::make_reverse_iterator(next); i != messages.rend(); ++i)
    {
        if (i->second.op == Opcode::Send)
        {
            return i->second.recvIndex < recvIndex;
        }
    }
    return true;
}

} // namespace

MetaRoceResponder::MetaRoceResponder(const MetaRoceConfig& config,
                                     uint32_t peer,
                                     uint32_t peerInitialPsn,
                                     MemoryRegistry* memory,
                                     Counters& counters)
    : m_config(config)
    , m_peer(peer)
    , m_peerInitialPsn(peerInitialPsn)
    , m_memory(memory)
    , m_counters(counters)
    , m_fairShareBps(config.portRateBps * config.ports)
    , m_credit(uint64_t{config.mtu} + kMrMaxDataHeaderSize, config.unscheduledBytes)
    , m_ackDue(0)
{
}

uint16_t
MetaRoceResponder::PortOf(uint16_t pathId) const
{
    return static_cast<uint16_t>(pathId / m_config.pathsPerPort);
}

void
MetaRoceResponder::MakeState()
{
    if (!m_paths.Empty())
    {
        return;
    }
    m_paths.Resize(size_t{m_config.ports} * m_config.pathsPerPort);
    m_ackDue = DeadlineTree(m_paths.Size());
    m_ackQueue.resize(m_config.ports);
    m_planes.resize(m_config.ports);
}

MetaRoceResponder::PathRx&
MetaRoceResponder::Rx(uint16_t id)
{
    if (PathRx* rx = m_paths.Find(id))
    {
        return *rx;
    }
    PathRx& made = m_paths.Make(id);
    made.window = PathReceiveWindow(m_peerInitialPsn);
    return made;
}

MetaRoceResponder::Stream&
MetaRoceResponder::StreamAt(uint16_t id)
{
    // Streams are made up to the highest one used: most connections use a few of them.
    if (id >= m_streams.size())
    {
        m_streams.resize(size_t{id} + 1);
    }
    return m_streams[id];
}

PathReceiveWindow
MetaRoceResponder::Window(uint16_t pathId) const
{
    if (!m_paths.Empty() && pathId >= m_paths.Size())
    {
        throw std::out_of_range("no path " + std::to_string(pathId));
    }
    const PathRx* rx = m_paths.Empty() ? nullptr : m_paths.Find(pathId);
    return rx ? rx->window : PathReceiveWindow(m_peerInitialPsn);
}

void
MetaRoceResponder::PostRecv(const WorkRequest& wr)
{
    MakeState();
    StreamAt(wr.stream).recvs.push_back(wr);
}

RxResult
MetaRoceResponder::CheckPlacement(const MrHeader& h, uint16_t port)
{
    auto refuse = [](DropReason r) { return RxResult{false, r}; };
    // Segmentation is fixed by the MTU both ends agreed on (spec 3.3): every packet but the last
    // is full, and offsets are multiples of the MTU.
    if (h.payloadLength > m_config.mtu || h.offset % m_config.mtu != 0 ||
        (!(h.flags & kMrFlagLast) && h.payloadLength != m_config.mtu) ||
        h.stream >= m_config.streams)
    {
        return refuse(DropReason::BadField);
    }
    const Stream& s = StreamAt(h.stream);
    if (h.msn >= s.nextMsn && h.msn - s.nextMsn >= m_config.maxMessagesInFlight)
    {
        return refuse(DropReason::PsnOutOfWindow);
    }
    if (h.msn < s.nextMsn)
    {
        return RxResult{}; // an old duplicate: acknowledged, not placed
    }
    auto it = s.messages.find(h.msn);
    const Opcode op = h.opcode == MrOpcode::Write ? Opcode::Write : Opcode::Send;
    if (it != s.messages.end() && (it->second.op != op || it->second.length != h.messageLength ||
                                   it->second.recvIndex != h.recvIndex))
    {
        return refuse(DropReason::BadField); // contradicts earlier packets of the message
    }
    if (op == Opcode::Write)
    {
        if (m_memory == nullptr && h.remoteKey != 0)
        {
            QueueNak(port, Nak{h.stream, h.msn, MrNakSyndrome::RemoteAccess});
            return refuse(DropReason::AccessError);
        }
        // The whole message, not only this packet, lies in the region its key names: what the
        // responder keeps for a message (its placement bitmap) is then bounded by the memory it
        // registered, not by the length a packet claims (spec 3.9). A virtual buffer (key 0)
        // has no addresses to check.
        const bool wraps = h.remoteKey != 0 && h.remoteAddr < h.offset;
        if (m_memory != nullptr &&
            (wraps || !m_memory->Check(h.remoteKey, h.remoteAddr - h.offset, h.messageLength)))
        {
            QueueNak(port, Nak{h.stream, h.msn, MrNakSyndrome::RemoteAccess});
            return refuse(DropReason::AccessError);
        }
        return RxResult{};
    }
    if (h.recvIndex < s.recvBase)
    {
        return RxResult{}; // its RECV already completed: a duplicate
    }
    if (it == s.messages.end() && !SendIndexFits(s.messages, h.msn, h.recvIndex))
    {
        return refuse(DropReason::BadField);
    }
    if (h.recvIndex - s.recvBase >= s.recvs.size())
    {
        return refuse(DropReason::NoReceivePosted);
    }
    const WorkRequest& recv = s.recvs[h.recvIndex - s.recvBase];
    if (h.messageLength > recv.length)
    {
        QueueNak(port, Nak{h.stream, h.msn, MrNakSyndrome::InvalidRequest});
        return refuse(DropReason::AccessError);
    }
    if (m_memory != nullptr &&
        !m_memory->Check(recv.localKey, recv.localAddr + h.offset, h.payloadLength))
    {
        QueueNak(port, Nak{h.stream, h.msn, MrNakSyndrome::RemoteAccess});
        return refuse(DropReason::AccessError);
    }
    return RxResult{};
}

void
MetaRoceResponder::Place(const MrHeader& h, const uint8_t* payload, TimeNs now)
{
    Stream& s = StreamAt(h.stream);
    // A SEND whose RECV already completed is a duplicate (spec 3.9), whatever its MSN says:
    // its receive index is below the RECV queue, which must not be read (found by test/fuzz,
    // fuzz-engine: recvs[recvIndex - recvBase] read far outside the queue).
    if (h.msn < s.nextMsn || (h.opcode == MrOpcode::Send && h.recvIndex < s.recvBase))
    {
        m_counters.CountDrop(DropReason::Duplicate);
        return;
    }
    auto [it, created] = s.messages.try_emplace(h.msn);
    Message& m = it->second;
    if (created)
    {
        m.op = h.opcode == MrOpcode::Write ? Opcode::Write : Opcode::Send;
        m.length = h.messageLength;
        m.recvIndex = h.recvIndex;
        // In 64 bits: a length near 4 GiB plus an MTU does not fit in 32 (MrParse has checked
        // that the offset lies inside the message, so the packet's index is below the count).
        m.packets =
            static_cast<uint32_t>((uint64_t{h.messageLength} + m_config.mtu - 1) / m_config.mtu);
        m.placed.resize(m.packets);
    }
    const uint32_t index = h.offset / m_config.mtu;
    if (m.placed[index])
    {
        m_counters.CountDrop(DropReason::Duplicate);
        return;
    }
    if (m_memory != nullptr && payload != nullptr)
    {
        uint32_t key = h.remoteKey;
        uint64_t addr = h.remoteAddr;
        if (m.op == Opcode::Send)
        {
            const WorkRequest& recv = s.recvs[h.recvIndex - s.recvBase];
            key = recv.localKey;
            addr = recv.localAddr + h.offset;
        }
        if (const MemoryRegion* r = m_memory->Check(key, addr, h.payloadLength))
        {
            m_memory->Write(*r, addr, payload, h.payloadLength);
        }
    }
    m.placed[index] = true;
    m_counters.placedBytes += h.payloadLength;
    if (++m.placedPackets < m.packets)
    {
        return;
    }
    if (m.op == Opcode::Send && m_config.Completions() == CompletionOrder::Finish)
    {
        CompleteRecv(s, m, h.stream, now);
        m.completed = true;
    }
    if (h.msn == s.nextMsn)
    {
        DeliverInOrder(s, h.stream, now);
    }
}

void
MetaRoceResponder::CompleteRecv(const Stream& s, const Message& m, uint16_t streamId, TimeNs now)
{
    const WorkRequest& recv = s.recvs[m.recvIndex - s.recvBase];
    m_completions.push_back(
        Completion{recv.id, Opcode::Recv, streamId, CompletionStatus::Success, m.length, now});
    ++m_counters.completions;
}

void
MetaRoceResponder::DeliverInOrder(Stream& s, uint16_t streamId, TimeNs now)
{
    for (auto it = s.messages.find(s.nextMsn);
         it != s.messages.end() && it->second.placedPackets == it->second.packets;
         it = s.messages.find(s.nextMsn))
    {
        if (it->second.op == Opcode::Send)
        {
            const WorkRequest recv = s.recvs.front();
            s.recvs.pop_front();
            ++s.recvBase;
            if (!it->second.completed)
            {
                m_completions.push_back(Completion{recv.id,
                                                   Opcode::Recv,
                                                   streamId,
                                                   CompletionStatus::Success,
                                                   it->second.length,
                                                   now});
                ++m_counters.completions;
            }
        }
        s.messages.erase(it);
        ++s.nextMsn;
    }
}

void
MetaRoceResponder::QueueAck(uint16_t pathId)
{
    PathRx& rx = *m_paths.Find(pathId); // an ACK is queued for a path that received something
    if (!rx.queued)
    {
        rx.queued = true;
        m_ackQueue[PortOf(pathId)].push_back(pathId);
        m_feedbackPorts.set(PortOf(pathId));
        SyncAckDue(pathId);
    }
}

void
MetaRoceResponder::QueueNak(uint16_t port, const Nak& nak)
{
    if (m_nakQueue.empty())
    {
        m_nakQueue.resize(m_config.ports);
    }
    m_nakQueue[port].push_back(nak);
    m_feedbackPorts.set(port);
}

void
MetaRoceResponder::SyncFeedback(uint16_t port)
{
    m_feedbackPorts.set(port, !m_ackQueue[port].empty() || NakQueued(port));
}

void
MetaRoceResponder::SyncAckDue(uint16_t pathId)
{
    const PathRx& rx = *m_paths.Find(pathId); // made: only a path's arrivals give it a deadline
    m_ackDue.Set(pathId, rx.queued ? kNever : rx.ackDue);
}

void
MetaRoceResponder::NoteArrival(PathRx& rx,
                               uint16_t pathId,
                               const RxPacket& pkt,
                               TimeNs echo,
                               bool urgent)
{
    PlaneRx& plane = m_planes[PortOf(pathId)];
    if (rx.unacked < UINT16_MAX)
    {
        ++rx.unacked;
        ++plane.unacked;
    }
    rx.echo = echo;
    if (pkt.ecnCe)
    {
        ++rx.ce;
    }
    // At once on a gap (the sender must learn of loss at once), a mark (congestion feedback
    // must not wait), a request (ACKREQ, a duplicate, a message's last packet) or a full
    // batch of the plane (spec 6.4); otherwise within ackDelay, with whatever joins it.
    if (urgent || pkt.ecnCe || rx.window.HasGap() || plane.unacked >= m_config.ackEveryPackets)
    {
        QueueAck(pathId);
        return;
    }
    rx.ackDue = std::min(rx.ackDue, pkt.now + m_config.ackDelayNs);
    SyncAckDue(pathId);
    if (!rx.listed)
    {
        rx.listed = true;
        plane.pending.push_back(pathId);
    }
}

RxResult
MetaRoceResponder::OnData(const MrHeader& h, const uint8_t* payload, const RxPacket& pkt)
{
    MakeState();
    if (h.pathId >= m_paths.Size() || PortOf(h.pathId) != pkt.port)
    {
        return RxResult{false, DropReason::BadField};
    }
    PathRx& rx = Rx(h.pathId);
    const uint64_t psn = MrUnwrapPsn(h.psn, rx.window.Cumulative());
    const uint64_t floor = MrUnwrapPsn(h.ackFloor, rx.window.Cumulative());
    // The sender keeps at most 256 PSNs above its floor (spec 5.1), and no floor jumps further
    // than a path can lose (A51); anything else is refused before it can move the window.
    if (psn < floor || psn - floor >= kSackBits || !rx.window.FloorFits(floor))
    {
        return RxResult{false, DropReason::PsnOutOfWindow};
    }
    const RxResult placement = CheckPlacement(h, pkt.port);
    if (!placement.accepted)
    {
        return placement;
    }
    const auto verdict = rx.window.Observe(psn, floor);
    if (verdict == PathReceiveWindow::Verdict::Duplicate)
    {
        m_counters.CountDrop(DropReason::Duplicate);
        NoteArrival(rx, h.pathId, pkt, h.timestamp, true);
        return RxResult{};
    }
    ++rx.fresh;
    ++m_counters.rxDataPackets;
    Place(h, payload, pkt.now);
    NoteArrival(rx, h.pathId, pkt, h.timestamp, (h.flags & (kMrFlagAckReq | kMrFlagLast)) != 0);
    return RxResult{};
}

RxResult
MetaRoceResponder::OnProbe(const MrHeader& h, const RxPacket& pkt)
{
    MakeState();
    if (h.pathId >= m_paths.Size() || PortOf(h.pathId) != pkt.port)
    {
        return RxResult{false, DropReason::BadField};
    }
    PathRx& rx = Rx(h.pathId);
    const uint64_t psn = MrUnwrapPsn(h.psn, rx.window.Cumulative());
    const uint64_t floor = MrUnwrapPsn(h.ackFloor, rx.window.Cumulative());
    if (!rx.window.FloorFits(floor))
    {
        return RxResult{false, DropReason::PsnOutOfWindow};
    }
    const auto verdict = rx.window.Observe(psn, floor);
    if (verdict == PathReceiveWindow::Verdict::OutOfWindow)
    {
        return RxResult{false, DropReason::PsnOutOfWindow};
    }
    // Not a fresh arrival: the new count is of DATA, and the admission credit grows by the
    // data that arrives, not by a tail marker's 24 bytes (spec 6.4, 6.7). A Down path's probe
    // asks for its ACK at once (ACKREQ); a tail marker is acknowledged as data is, at once
    // only above a gap - the lost tail it is there to expose - or as a duplicate.
    const bool urgent =
        (h.flags & kMrFlagAckReq) != 0 || verdict == PathReceiveWindow::Verdict::Duplicate;
    NoteArrival(rx, h.pathId, pkt, h.timestamp, urgent);
    return RxResult{};
}

void
MetaRoceResponder::OnTimeout(TimeNs now)
{
    // In path order, as a scan would queue them; collected first, since queuing changes the tree.
    m_due.clear();
    m_ackDue.ForEachAtMost(now,
                           [this](std::size_t id) { m_due.push_back(static_cast<uint16_t>(id)); });
    for (uint16_t id : m_due)
    {
        // One ACK per plane: the plane's other waiting paths go in it (AddPending); their
        // deadlines rest until it leaves (ResumePending).
        if (m_ackQueue[PortOf(id)].empty())
        {
            QueueAck(id);
        }
        else
        {
            m_ackDue.Set(id, kNever);
        }
    }
}

void
MetaRoceResponder::ResumePending(uint16_t port, TimeNs now)
{
    for (uint16_t id : m_planes[port].pending)
    {
        const PathRx& rx = *m_paths.Find(id);
        if (rx.unacked == 0 || rx.queued)
        {
            continue; // covered, or its ACK is queued
        }
        if (rx.ackDue > now)
        {
            SyncAckDue(id);
        }
        else if (m_ackQueue[port].empty())
        {
            QueueAck(id); // due already: the next ACK of the plane, which takes the rest along
        }
        else
        {
            m_ackDue.Set(id, kNever);
        }
    }
}

void
MetaRoceResponder::OnPortState(uint16_t port, bool up)
{
    if (up || port >= m_config.ports || m_ackQueue.empty())
    {
        return; // nothing can be queued before the state is made
    }
    // Feedback queued for a dead port is stale by the time it could leave; the sender's
    // timers cover it.
    for (uint16_t id : m_ackQueue[port])
    {
        Cover(id);
    }
    m_ackQueue[port].clear();
    ResumePending(port, 0);
    if (NakQueued(port))
    {
        m_nakQueue[port].clear();
    }
    SyncFeedback(port);
}

std::optional<OutPacket>
MetaRoceResponder::Pull(uint16_t port, TimeNs now)
{
    if (port >= m_config.ports || m_ackQueue.empty())
    {
        return std::nullopt;
    }
    MrHeader h;
    h.connection = m_peer;
    if (NakQueued(port))
    {
        const Nak nak = m_nakQueue[port].front();
        m_nakQueue[port].pop_front();
        SyncFeedback(port);
        h.opcode = MrOpcode::Nak;
        h.stream = nak.stream;
        h.msn = nak.msn;
        h.syndrome = nak.syndrome;
    }
    else if (!m_ackQueue[port].empty())
    {
        const uint16_t id = m_ackQueue[port].front();
        m_ackQueue[port].pop_front();
        SyncFeedback(port);
        PathRx& rx = *m_paths.Find(id);
        h.opcode = MrOpcode::Ack;
        ++m_counters.txAcks;
        h.pathId = id;
        h.flags = rx.ce > 0 ? kMrFlagEce : 0;
        h.cumulativePsn = static_cast<uint32_t>(rx.window.Cumulative());
        h.rateHintMbps =
            static_cast<uint32_t>(std::min<uint64_t>(FairShare() / 1'000'000, UINT32_MAX));
        h.echoTimestamp = rx.echo;
        h.ceCount = rx.ce;
        h.newCount = rx.fresh;
        // An empty SACK is the common case (a path's packets arrive in order): left out when
        // compact, and then never built (spec 3.4).
        if (m_config.compactAcks && !rx.window.HasGap())
        {
            h.flags |= kMrFlagNoSack;
        }
        else
        {
            h.sack = rx.window.Sack();
        }
        const uint64_t sackLow = rx.window.SackLow();
        uint32_t fresh = Cover(id);
        fresh += AddPending(h, port);
        AddRepeats(h, sackLow);
        if (const std::optional<uint64_t> target = m_hints.AdmissionTarget())
        {
            m_credit.SetTarget(*target);
        }
        h.creditBytes = m_credit.Next(fresh);
        ResumePending(port, now);
    }
    else
    {
        return std::nullopt;
    }
    OutPacket out;
    out.header.resize(h.Size());
    MrSerialize(h, out.header.data());
    out.port = port;
    // ACKs of one path share one route back; which one does not matter to the protocol.
    out.udpSrcPort =
        static_cast<uint16_t>(m_config.entropyBase + (h.pathId * 40503u) % m_config.entropyCount);
    out.udpDstPort = kMetaRoceUdpPort;
    out.isControl = true;
    ++m_counters.txControlPackets;
    return out;
}

uint16_t
MetaRoceResponder::Cover(uint16_t id)
{
    PathRx& rx = *m_paths.Find(id);
    const uint16_t fresh = rx.fresh;
    m_planes[PortOf(id)].unacked -= rx.unacked;
    rx.unacked = 0;
    rx.ce = 0;
    rx.fresh = 0;
    rx.ackDue = kNever;
    rx.queued = false;
    SyncAckDue(id);
    return fresh;
}

uint32_t
MetaRoceResponder::AddPending(MrHeader& ack, uint16_t port)
{
    uint32_t fresh = 0;
    Ring<uint16_t>& pending = m_planes[port].pending;
    while (!pending.empty() && ack.repeatCount < kMrMaxAckRepeats)
    {
        const uint16_t id = pending.front();
        pending.pop_front();
        PathRx& rx = *m_paths.Find(id);
        rx.listed = false;
        // Covered since it waited, or queued on its own (a mark, a gap): not this ACK's news.
        if (rx.unacked == 0 || rx.queued)
        {
            continue;
        }
        const MrAckRepeat repeat{id,
                                 static_cast<uint16_t>(rx.window.SackLow() & 0xffff),
                                 static_cast<uint32_t>(rx.window.Cumulative())};
        ack.repeats[ack.repeatCount++] = repeat;
        fresh += Cover(id);
    }
    return fresh;
}

void
MetaRoceResponder::AddRepeats(MrHeader& ack, uint64_t sackLow)
{
    const std::size_t covered = ack.repeatCount;
    auto named = [&ack](uint16_t pathId) {
        if (pathId == ack.pathId)
        {
            return true;
        }
        for (std::size_t k = 0; k < ack.repeatCount; ++k)
        {
            if (ack.repeats[k].pathId == pathId)
            {
                return true;
            }
        }
        return false;
    };
    for (std::size_t k = 0; k < m_latestCount && ack.repeatCount < m_config.ackRepeats; ++k)
    {
        if (!named(m_latestAcks[k].pathId))
        {
            ack.repeats[ack.repeatCount++] = m_latestAcks[k];
        }
    }
    if (m_config.ackRepeats == 0)
    {
        return;
    }
    // The paths this ACK covers become the latest, its own path first.
    for (std::size_t k = covered; k-- > 0;)
    {
        RememberLatest(ack.repeats[k]);
    }
    RememberLatest(
        MrAckRepeat{ack.pathId, static_cast<uint16_t>(sackLow & 0xffff), ack.cumulativePsn});
}

void
MetaRoceResponder::RememberLatest(const MrAckRepeat& repeat)
{
    std::size_t same = m_latestCount;
    for (std::size_t k = 0; k < m_latestCount; ++k)
    {
        if (m_latestAcks[k].pathId == repeat.pathId)
        {
            same = k;
        }
    }
    if (same == m_latestCount && m_latestCount <= m_config.ackRepeats)
    {
        ++m_latestCount;
    }
    for (std::size_t k = std::min(same, m_latestCount - 1); k > 0; --k)
    {
        m_latestAcks[k] = m_latestAcks[k - 1];
    }
    m_latestAcks[0] = repeat;
}

bool
MetaRoceResponder::HasWork(uint16_t port) const
{
    return port < m_config.ports && m_feedbackPorts.test(port);
}

TimeNs
MetaRoceResponder::NextTimeout() const
{
    return m_ackDue.Min();
}

void
MetaRoceResponder::TakeCompletions(std::vector<Completion>& out)
{
    out.insert(out.end(), m_completions.begin(), m_completions.end());
    m_completions.clear();
}

} // namespace metaroce
