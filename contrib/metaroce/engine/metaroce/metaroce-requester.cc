#include "metaroce-requester.h"

#include <algorithm>
#include <cassert>

namespace metaroce
{

namespace
{
/// Packets a paced connection served late may send early to catch up (spec 7.4).
constexpr TimeNs kPacingCreditPackets = 4;
} // namespace

MetaRoceRequester::MetaRoceRequester(const MetaRoceConfig& config,
                                     MemoryRegistry* memory,
                                     Counters& counters,
                                     std::unique_ptr<CongestionControl> cc,
                                     std::unique_ptr<PathSelector> selector)
    : m_config(config)
    , m_memory(memory)
    , m_counters(counters)
    , m_cc(std::move(cc))
    , m_selector(std::move(selector))
    , m_rng(config.seed * 0x9e3779b97f4a7c15ULL + config.localConnection)
    , m_connectionRtt(config.initialRttNs)
    , m_reorder(config.ackDelayNs)
    , m_pathsByPort(config.ports)
    , m_portUp(config.ports, true)
    , m_order(config.streams)
    , m_nextMsn(config.streams, 0)
    , m_nextRecvIndex(config.streams, 0)
{
    const double mtu = config.mtu + kMrWriteHeaderSize;
    for (uint16_t port = 0; port < config.ports; ++port)
    {
        for (uint16_t k = 0; k < config.pathsPerPort; ++k)
        {
            const auto id = static_cast<uint16_t>(m_paths.size());
            Path path(id, port, DrawEntropy(), config.initialRttNs);
            path.window.minWindow = mtu;
            path.window.maxWindow = mtu * config.maxPathWindowPackets;
            path.window.window = mtu * config.initialPathWindowPackets;
            m_paths.push_back(std::move(path));
            m_pathsByPort[port].push_back(id);
        }
    }
    m_lastRedraw.assign(m_paths.size(), kNever);
    m_connectionWindow.minWindow = mtu * config.ports;
    m_connectionWindow.maxWindow = static_cast<double>(config.maxConnectionWindowBytes);
    m_connectionWindow.window = static_cast<double>(config.initialConnectionWindowBytes);
}

uint16_t
MetaRoceRequester::DrawEntropy()
{
    return static_cast<uint16_t>(m_config.entropyBase + m_rng() % m_config.entropyCount);
}

void
MetaRoceRequester::Post(const WorkRequest& wr, TimeNs now)
{
    m_timeoutCached = false;
    m_now = std::max(m_now, now);
    const uint64_t id = m_nextMessageId++;
    Message m;
    m.wr = wr;
    m.msn = m_nextMsn[wr.stream]++;
    m.recvIndex = wr.op == Opcode::Send ? m_nextRecvIndex[wr.stream]++ : 0;
    m.packets = static_cast<uint32_t>((wr.length + m_config.mtu - 1) / m_config.mtu);
    m.acked.resize(m.packets);
    m.transmissions.assign(m.packets, 0);
    m_messages.emplace(id, std::move(m));
    m_order[wr.stream].push_back(id);
    if (m_failed)
    {
        Fail(CompletionStatus::Flushed, id, now);
        return;
    }
    m_unsent.push_back(id);
}

uint32_t
MetaRoceRequester::PacketBytes(const Message& m, uint32_t index) const
{
    const uint64_t offset = uint64_t{index} * m_config.mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(m_config.mtu, m.wr.length - offset));
}

std::optional<MetaRoceRequester::PendingPacket>
MetaRoceRequester::NextData()
{
    // Retransmissions first: they hold back completion of data already mostly delivered.
    while (!m_retransmit.empty())
    {
        const PendingPacket p = m_retransmit.front();
        auto it = m_messages.find(p.message);
        if (it != m_messages.end() && !it->second.finished && !it->second.acked[p.index])
        {
            return p;
        }
        m_retransmit.pop_front(); // delivered meanwhile (a late original was acknowledged)
    }
    while (!m_unsent.empty())
    {
        auto it = m_messages.find(m_unsent.front());
        if (it != m_messages.end() && !it->second.finished &&
            it->second.nextPacket < it->second.packets)
        {
            // A new message may start only inside the responder's message window (spec 6.3);
            // the posting order is kept, so a stream at its limit holds back later messages.
            const Message& m = it->second;
            const uint32_t oldest = m_messages.at(m_order[m.wr.stream].front()).msn;
            if (m.nextPacket == 0 && m.msn - oldest >= m_config.maxMessagesInFlight)
            {
                return std::nullopt;
            }
            return PendingPacket{m_unsent.front(), m.nextPacket};
        }
        m_unsent.pop_front();
    }
    return std::nullopt;
}

uint64_t
MetaRoceRequester::PacingRateBps() const
{
    const uint64_t line = m_config.portRateBps * m_config.ports;
    if (!m_config.honourRateHint || m_rateHintBps == 0)
    {
        return line;
    }
    return std::min(line, m_rateHintBps);
}

OutPacket
MetaRoceRequester::BuildData(Path& path,
                             uint64_t id,
                             const Message& m,
                             uint32_t index,
                             bool retx,
                             TimeNs now)
{
    MrHeader h;
    h.opcode = m.wr.op == Opcode::Write ? MrOpcode::Write : MrOpcode::Send;
    h.pathId = path.id;
    h.connection = m_config.remoteConnection;
    h.psn = static_cast<uint32_t>(path.nextPsn);
    h.ackFloor = static_cast<uint32_t>(path.Floor());
    h.stream = m.wr.stream;
    h.msn = m.msn;
    h.messageLength = static_cast<uint32_t>(m.wr.length);
    h.offset = index * m_config.mtu;
    h.payloadLength = PacketBytes(m, index);
    h.recvIndex = m.recvIndex;
    h.timestamp = now;
    h.remoteAddr = m.wr.remoteAddr + h.offset;
    h.remoteKey = m.wr.remoteKey;
    // A retransmission asks for an immediate ACK: the message it belongs to is waiting on it.
    h.flags = (h.offset == 0 ? kMrFlagFirst : 0) | (retx ? kMrFlagRetx | kMrFlagAckReq : 0);
    if (index + 1 == m.packets)
    {
        // The last packet asks for an immediate ACK so that completion is not delayed.
        h.flags |= kMrFlagLast | kMrFlagAckReq;
    }

    OutPacket out;
    out.header.resize(h.Size());
    MrSerialize(h, out.header.data());
    out.payloadSize = h.payloadLength;
    if (m.wr.localKey != 0 && m_memory != nullptr)
    {
        const uint64_t addr = m.wr.localAddr + h.offset;
        if (const MemoryRegion* r = m_memory->Check(m.wr.localKey, addr, h.payloadLength))
        {
            out.payload.resize(h.payloadLength);
            if (!m_memory->Read(*r, addr, out.payload.data(), h.payloadLength))
            {
                out.payload.clear();
            }
        }
    }
    RecordSent(path, out, id, index, now);
    ++path.packetsSent;
    return out;
}

OutPacket
MetaRoceRequester::TailProbe(Path& path, TimeNs now)
{
    // Send the newest unacknowledged data packet again, under a fresh PSN on the same route.
    // It travels in the data class like the packets before it (a small PROBE would overtake
    // them in a switch's control class and fake a gap); if the tail was lost it repairs it,
    // and its ACK exposes any earlier hole (spec 5.5, after TCP's tail loss probe).
    for (auto it = path.outstanding.rbegin(); it != path.outstanding.rend(); ++it)
    {
        if (it->state != SentPacket::State::InFlight || it->message == kProbeMessage)
        {
            continue;
        }
        auto m = m_messages.find(it->message);
        if (m == m_messages.end() || m->second.finished || m->second.acked[it->packetIndex])
        {
            continue;
        }
        const uint32_t index = it->packetIndex;
        ++m->second.transmissions[index];
        ++m_counters.retransmittedPackets;
        ++m_counters.txDataPackets;
        return BuildData(path, it->message, m->second, index, true, now);
    }
    return BuildProbe(path, now, false);
}

TimeNs
MetaRoceRequester::TailProbeAt() const
{
    // Only a true tail is probed: while the connection has data waiting, later packets will
    // follow as soon as a window opens, and the time rule finds a hole by them (spec 5.5).
    if (m_tailProbes >= m_config.maxTailProbes || m_tailProbePath >= 0 || !m_unsent.empty() ||
        !m_retransmit.empty())
    {
        return kNever;
    }
    // Before any RTT sample the first window may still sit in an incast queue: no probing yet.
    if (!m_connectionRtt.HasSample() || TailPath() == nullptr)
    {
        return kNever;
    }
    // PTO = 2 srtt (RFC 8985 7.2), but at least one srtt plus the receiver's longest ACK delay,
    // and a small floor. From the third probe on, each waits twice as long as the one before:
    // a probe or its ACK can be lost as well, and without more probes a tail on a path with no
    // RTT sample of its own would wait for that path's initial RTO (spec 5.5, A32).
    const TimeNs srtt = m_connectionRtt.Smoothed();
    const TimeNs pto = std::max({2 * srtt, srtt + m_config.ackDelayNs, m_config.tailProbeMinNs});
    const uint32_t backoff = std::min<uint32_t>(m_tailProbes > 1 ? m_tailProbes - 1 : 0, 8);
    return m_tailProbeBase + std::min(pto << backoff, m_config.rtoMaxNs);
}

const Path*
MetaRoceRequester::TailPath() const
{
    const Path* tail = nullptr;
    uint64_t newest = 0;
    for (const Path& path : m_paths)
    {
        if (path.health == PathHealth::Down)
        {
            continue;
        }
        for (auto it = path.outstanding.rbegin(); it != path.outstanding.rend(); ++it)
        {
            if (it->state == SentPacket::State::InFlight)
            {
                if (tail == nullptr || it->txSeq > newest)
                {
                    tail = &path;
                    newest = it->txSeq;
                }
                break;
            }
        }
    }
    return tail;
}

TimeNs
MetaRoceRequester::ReorderWindowNs() const
{
    return m_reorder.Window(m_connectionRtt.Minimum(), m_connectionRtt.Smoothed());
}

TimeNs
MetaRoceRequester::LossCheckAt(const Path& path, TimeNs reorderWindow) const
{
    // Packets of a path are sent in PSN order, so its oldest in-flight data packet has the
    // earliest deadline of the time rule (spec 5.3).
    for (const SentPacket& p : path.outstanding)
    {
        if (p.state == SentPacket::State::InFlight && p.message != kProbeMessage)
        {
            return LossDeadline(p, m_rack, reorderWindow);
        }
    }
    return kNever;
}

void
MetaRoceRequester::RecordSent(Path& path,
                              OutPacket& out,
                              uint64_t message,
                              uint32_t index,
                              TimeNs now)
{
    out.port = path.port;
    out.udpSrcPort = path.entropy;
    out.udpDstPort = kMetaRoceUdpPort;
    SentPacket sent;
    sent.psn = path.nextPsn++;
    sent.txSeq = m_nextTxSeq++;
    sent.epoch = path.epoch;
    sent.sentAt = now;
    sent.bytes = static_cast<uint32_t>(out.WireSize());
    sent.message = message;
    sent.packetIndex = index;
    path.outstanding.push_back(sent);
    path.inflightBytes += sent.bytes;
    m_inflightBytes += sent.bytes;
    m_tailProbeBase = now;
}

OutPacket
MetaRoceRequester::BuildProbe(Path& path, TimeNs now, bool abandonInFlight)
{
    // A Down path's earlier probes that were never answered are given up: the floor must
    // move past them.
    for (SentPacket& p : path.outstanding)
    {
        if (abandonInFlight && p.state == SentPacket::State::InFlight)
        {
            p.state = SentPacket::State::Lost;
            path.inflightBytes -= p.bytes;
            m_inflightBytes -= p.bytes;
        }
    }
    path.PopResolved();
    MrHeader h;
    h.opcode = MrOpcode::Probe;
    h.flags = kMrFlagAckReq;
    h.pathId = path.id;
    h.connection = m_config.remoteConnection;
    h.psn = static_cast<uint32_t>(path.nextPsn);
    h.ackFloor = static_cast<uint32_t>(path.Floor());
    h.timestamp = now;
    OutPacket out;
    out.header.resize(h.Size());
    MrSerialize(h, out.header.data());
    out.isControl = true;
    RecordSent(path, out, kProbeMessage, 0, now);
    path.probeDue = now + m_config.probeIntervalNs;
    ++m_counters.txControlPackets;
    return out;
}

std::optional<OutPacket>
MetaRoceRequester::Pull(uint16_t port, TimeNs now)
{
    m_timeoutCached = false;
    m_now = std::max(m_now, now);
    if (port >= m_config.ports || !m_portUp[port] || m_failed)
    {
        return std::nullopt;
    }
    for (uint16_t id : m_pathsByPort[port])
    {
        Path& path = m_paths[id];
        if (path.health == PathHealth::Down && path.probeDue <= now)
        {
            return BuildProbe(path, now, true);
        }
        if (m_tailProbePath == id)
        {
            m_tailProbePath = -1;
            ++m_tailProbes;
            ++m_counters.tailProbes;
            return TailProbe(path, now);
        }
    }
    const std::optional<PendingPacket> next = NextData();
    if (!next)
    {
        return std::nullopt;
    }
    m_pacingBlocked = now < m_nextSendAt;
    if (m_pacingBlocked)
    {
        return std::nullopt;
    }
    Message& m = m_messages.at(next->message);
    const uint32_t bytes = PacketBytes(m, next->index) + static_cast<uint32_t>(kMrMaxHeaderSize);
    if (m_inflightBytes > 0 && m_inflightBytes + bytes > m_connectionWindow.window)
    {
        return std::nullopt;
    }
    const int chosen =
        m_selector->Select(m_paths, m_pathsByPort[port], bytes, m_config.maxPathWindowPackets);
    if (chosen < 0)
    {
        return std::nullopt;
    }
    Path& path = m_paths[chosen];
    const bool retx = !m_retransmit.empty();
    if (retx)
    {
        m_retransmit.pop_front();
        ++m_counters.retransmittedPackets;
    }
    else
    {
        ++m.nextPacket;
    }
    ++m.transmissions[next->index];
    OutPacket out = BuildData(path, next->message, m, next->index, retx, now);
    const uint64_t rate = PacingRateBps();
    if (rate < m_config.portRateBps * m_config.ports)
    {
        // A paced connection that the NIC served late (its ports busy with other queue pairs)
        // may catch up by up to kPacingCreditPackets packets; otherwise lateness would add up
        // and it would send below its rate. Credit is only kept between paced packets: the
        // first packet after the hint arrives starts the schedule.
        const TimeNs gap = out.WireSize() * 8'000'000'000ULL / rate;
        const TimeNs credit = kPacingCreditPackets * gap;
        const TimeNs start =
            m_paced ? std::max(m_nextSendAt, now > credit ? now - credit : 0) : now;
        m_nextSendAt = start + gap;
        m_paced = true;
    }
    else
    {
        m_paced = false;
    }
    ++m_counters.txDataPackets;
    return out;
}

void
MetaRoceRequester::AckData(const SentPacket& sent, TimeNs now)
{
    if (sent.message == kProbeMessage)
    {
        return;
    }
    auto it = m_messages.find(sent.message);
    if (it == m_messages.end() || it->second.finished || it->second.acked[sent.packetIndex])
    {
        return;
    }
    Message& m = it->second;
    m.acked[sent.packetIndex] = true;
    if (++m.ackedPackets == m.packets)
    {
        m.finished = true;
        CompleteInOrder(m.wr.stream, now);
    }
}

void
MetaRoceRequester::CompleteInOrder(uint16_t stream, TimeNs now)
{
    auto& order = m_order[stream];
    while (!order.empty())
    {
        auto it = m_messages.find(order.front());
        if (it == m_messages.end() || !it->second.finished)
        {
            break;
        }
        const Message& m = it->second;
        m_completions.push_back(
            Completion{m.wr.id, m.wr.op, m.wr.stream, m.status, m.wr.length, now});
        ++m_counters.completions;
        m_messages.erase(it);
        order.pop_front();
    }
}

bool
MetaRoceRequester::OnAck(const MrHeader& ack, TimeNs now)
{
    m_timeoutCached = false;
    m_now = std::max(m_now, now);
    Path& path = m_paths[ack.pathId];
    const uint64_t cumulative = MrUnwrapPsn(ack.cumulativePsn, path.nextPsn);
    // An ACK may not cover PSNs that were never sent (spec 5.2, validation).
    if (cumulative > path.nextPsn)
    {
        return false;
    }
    // SACK bit i is PSN cumulative+1+i: bits from (nextPsn - cumulative - 1) up name PSNs never
    // sent.
    const uint64_t firstUnsent = path.nextPsn - cumulative;
    if (firstUnsent == 0 ? ack.sack.any()
                         : firstUnsent - 1 < kSackBits && (ack.sack >> (firstUnsent - 1)).any())
    {
        return false;
    }

    AckSample sample;
    sample.ceCount = ack.ceCount;
    bool probeAcked = false;
    const RackState rackBefore = m_rack;
    for (SentPacket& p : path.outstanding)
    {
        // A stale ACK (cumulative far below this PSN) says nothing about it: bits cover only
        // cumulative+1 .. cumulative+256.
        const bool covered =
            p.psn < cumulative || (p.psn > cumulative && p.psn - cumulative - 1 < kSackBits &&
                                   ack.sack[p.psn - cumulative - 1]);
        if (!covered || p.state == SentPacket::State::Acked)
        {
            continue;
        }
        if (p.state == SentPacket::State::InFlight)
        {
            path.inflightBytes -= p.bytes;
            m_inflightBytes -= p.bytes;
            sample.ackedBytes += p.bytes;
            ++sample.ackedPackets;
        }
        p.state = SentPacket::State::Acked;
        probeAcked |= p.message == kProbeMessage;
        if (p.message != kProbeMessage)
        {
            SampleLateness(p, ack, rackBefore, now);
            m_rack.OnAcked(p, now);
        }
        AckData(p, now);
    }
    SettleLosses(path, ack, cumulative, rackBefore, now);
    if (ack.echoTimestamp != 0 && ack.echoTimestamp <= now)
    {
        path.rtt.Sample(now - ack.echoTimestamp);
        m_connectionRtt.Sample(now - ack.echoTimestamp);
        sample.rtt = now - ack.echoTimestamp;
    }
    if (ack.rateHintMbps != 0)
    {
        m_rateHintBps = uint64_t{ack.rateHintMbps} * 1'000'000;
    }
    if (sample.ackedPackets > 0)
    {
        path.bytesAcked += sample.ackedBytes;
        path.consecutiveTimeouts = 0;
        // New data acknowledged: the tail-loss probe timer restarts from now (RFC 8985 7.2).
        m_tailProbes = 0;
        m_tailProbeBase = std::max(m_tailProbeBase, now);
        m_tailProbePath = -1;
        if (path.health == PathHealth::Suspect || (path.health == PathHealth::Down && probeAcked))
        {
            if (path.health == PathHealth::Down)
            {
                path.window.window = path.window.minWindow * m_config.initialPathWindowPackets;
                path.window.Clamp();
            }
            path.SetHealth(PathHealth::Up);
            path.probeDue = kNever;
        }
    }
    sample.srtt = path.rtt.Smoothed();
    m_cc->OnAck(path.window, m_connectionWindow, sample, now);
    if (ack.ceCount > 0)
    {
        path.undoWindow = 0; // a congestion cut is not undone

        if (++path.markedRounds >= m_config.entropyRedrawMarks)
        {
            MaybeRedraw(path, now);
        }
    }
    else if (sample.ackedPackets > 0)
    {
        path.markedRounds = 0;
    }
    RunLossDetection(path, now);
    path.PopResolved();
    return true;
}

void
MetaRoceRequester::RunLossDetection(Path& path, TimeNs now)
{
    const LossVerdict verdict = DetectLosses(path.outstanding,
                                             m_config.reorderTolerancePackets,
                                             m_rack,
                                             ReorderWindowNs(),
                                             now);
    if (verdict.lost.empty())
    {
        return;
    }
    m_counters.fastRetransmits += verdict.lost.size();
    for (std::size_t index : verdict.lost)
    {
        MarkLost(path, index, now, true);
        if (m_failed)
        {
            return;
        }
    }
    // Remember the window before the cut so that a spurious loss can give it back (5.7).
    const double before = path.window.window;
    m_cc->OnLoss(path.window, m_connectionWindow, path.rtt.Smoothed(), now);
    if (path.window.window < before)
    {
        path.undoWindow = before;
    }
    MaybeRedraw(path, now);
}

void
MetaRoceRequester::SampleLateness(const SentPacket& p,
                                  const MrHeader& ack,
                                  const RackState& rack,
                                  TimeNs now)
{
    // Only an ACK that `p` itself caused times `p` (a lost ACK would make it look late), and
    // only lateness behind a packet sent after it is reordering (spec 5.3).
    if (ack.echoTimestamp != p.sentAt || !rack.SentAfter(p))
    {
        return;
    }
    const TimeNs expected = p.sentAt + rack.rtt;
    m_reorder.Sample(now > expected ? now - expected : 0);
}

void
MetaRoceRequester::SettleLosses(Path& path,
                                const MrHeader& ack,
                                uint64_t cumulative,
                                const RackState& rackBefore,
                                TimeNs now)
{
    auto& recent = path.recentLosses;
    for (auto it = recent.begin(); it != recent.end();)
    {
        const uint64_t psn = it->packet.psn;
        const bool sacked =
            psn > cumulative && psn - cumulative - 1 < kSackBits && ack.sack[psn - cumulative - 1];
        if (!sacked && psn >= cumulative)
        {
            ++it;
            continue;
        }
        // Below the cumulative point the PSN arrived, or the receiver skipped it on seeing a
        // floor past it - which only PSNs from nextPsnAtLoss on carry. While the cumulative
        // point has not passed nextPsnAtLoss and no SACK bit names such a PSN, none of them has
        // arrived, so the packet itself did: delivery is proven either way (spec 5.7).
        const uint64_t later = it->nextPsnAtLoss;
        bool noLaterArrived = false;
        if (cumulative <= later)
        {
            // SACK bit i names PSN cumulative + 1 + i; PSN `cumulative` itself is missing.
            const uint64_t firstBit = later > cumulative ? later - cumulative - 1 : 0;
            noLaterArrived = firstBit >= kSackBits || (ack.sack >> firstBit).none();
        }
        if (sacked || noLaterArrived)
        {
            ++m_counters.spuriousLosses;
            SampleLateness(it->packet, ack, rackBefore, now);
            AckData(it->packet, now);
            if (it->byRule && path.undoWindow > 0)
            {
                path.window.window = std::max(path.window.window, path.undoWindow);
                path.window.Clamp();
                path.undoWindow = 0;
            }
        }
        it = recent.erase(it);
    }
}

void
MetaRoceRequester::MarkLost(Path& path, std::size_t index, TimeNs now, bool byRule)
{
    SentPacket& p = path.outstanding[index];
    assert(p.state == SentPacket::State::InFlight);
    p.state = SentPacket::State::Lost;
    path.inflightBytes -= p.bytes;
    m_inflightBytes -= p.bytes;
    if (p.message == kProbeMessage)
    {
        return;
    }
    auto it = m_messages.find(p.message);
    if (it == m_messages.end() || it->second.finished || it->second.acked[p.packetIndex])
    {
        return;
    }
    if (it->second.transmissions[p.packetIndex] > m_config.maxRetransmissions)
    {
        Fail(CompletionStatus::RetryExceeded, p.message, now);
        return;
    }
    m_retransmit.push_back(PendingPacket{p.message, p.packetIndex});
    // Remembered until an ACK settles it, at most one SACK span's worth (5.7).
    path.recentLosses.push_back(LostPacket{p, path.nextPsn, byRule});
    if (path.recentLosses.size() > kSackBits)
    {
        path.recentLosses.pop_front();
    }
}

void
MetaRoceRequester::MaybeRedraw(Path& path, TimeNs now)
{
    // At most one move per RTT: the new route needs a round trip to show whether it is better.
    if (m_lastRedraw[path.id] != kNever && now < m_lastRedraw[path.id] + path.rtt.Smoothed())
    {
        return;
    }
    m_lastRedraw[path.id] = now;
    uint16_t entropy = DrawEntropy();
    while (entropy == path.entropy && m_config.entropyCount > 1)
    {
        entropy = DrawEntropy();
    }
    path.Redraw(entropy);
    ++m_counters.entropyRedraws;
}

TimeNs
MetaRoceRequester::PathRto(const Path& path) const
{
    // RFC 6298 from the path's own samples. A path without one keeps the conservative initial
    // RTO: its first packets may sit behind an incast far longer than other paths' samples
    // suggest (with 64 hosts, borrowing the connection's estimate timed out 12,000 times in a
    // lossless all-to-all). The time rule and the tail-loss probe repair its losses meanwhile.
    const TimeNs base = path.rtt.HasSample() ? path.rtt.Rto(m_config.rtoMinNs, m_config.rtoMaxNs)
                                             : m_config.initialRtoNs;
    const uint32_t shift = std::min<uint32_t>(path.consecutiveTimeouts, 8);
    return std::min(base << shift, m_config.rtoMaxNs);
}

void
MetaRoceRequester::TakeDown(Path& path, TimeNs now)
{
    for (std::size_t i = 0; i < path.outstanding.size(); ++i)
    {
        if (path.outstanding[i].state == SentPacket::State::InFlight)
        {
            MarkLost(path, i, now, false);
        }
    }
    path.PopResolved();
    if (path.health != PathHealth::Down)
    {
        path.SetHealth(PathHealth::Down);
        ++m_counters.pathsDown;
    }
    path.probeDue = m_portUp[path.port] ? now + m_config.probeIntervalNs : kNever;
    if (m_tailProbePath == path.id)
    {
        m_tailProbePath = -1;
    }
}

void
MetaRoceRequester::OnPathTimeout(Path& path, TimeNs now)
{
    ++m_counters.timeouts;
    ++path.consecutiveTimeouts;
    m_cc->OnTimeout(path.window, m_connectionWindow, now);
    path.undoWindow = 0;
    if (path.consecutiveTimeouts >= m_config.pathDownTimeouts)
    {
        TakeDown(path, now);
        return;
    }
    for (std::size_t i = 0; i < path.outstanding.size(); ++i)
    {
        if (path.outstanding[i].state == SentPacket::State::InFlight)
        {
            MarkLost(path, i, now, false);
        }
    }
    path.PopResolved();
    if (path.consecutiveTimeouts >= m_config.pathSuspectTimeouts)
    {
        path.SetHealth(PathHealth::Suspect);
    }
    m_lastRedraw[path.id] = kNever; // a timeout always moves the path
    MaybeRedraw(path, now);
}

void
MetaRoceRequester::OnTimeout(TimeNs now)
{
    m_timeoutCached = false;
    m_now = std::max(m_now, now);
    if (m_failed)
    {
        return;
    }
    const TimeNs reorderWindow = ReorderWindowNs();
    for (Path& path : m_paths)
    {
        if (LossCheckAt(path, reorderWindow) <= now)
        {
            RunLossDetection(path, now);
            path.PopResolved();
        }
        if (m_failed)
        {
            return;
        }
        const TimeNs oldest = path.OldestInFlight();
        if (path.health != PathHealth::Down && oldest != kNever && oldest + PathRto(path) <= now)
        {
            OnPathTimeout(path, now);
        }
        if (m_failed)
        {
            return;
        }
    }
    if (TailProbeAt() <= now)
    {
        m_tailProbePath = TailPath()->id;
    }
}

void
MetaRoceRequester::OnPortState(uint16_t port, bool up, TimeNs now)
{
    m_timeoutCached = false;
    m_now = std::max(m_now, now);
    if (port >= m_config.ports || m_portUp[port] == up)
    {
        return;
    }
    m_portUp[port] = up;
    for (uint16_t id : m_pathsByPort[port])
    {
        Path& path = m_paths[id];
        if (!up)
        {
            TakeDown(path, now);
        }
        else if (path.health == PathHealth::Down)
        {
            path.probeDue = now; // probe at once: the port is back
        }
    }
}

void
MetaRoceRequester::OnNak(const MrHeader& nak, TimeNs now)
{
    m_timeoutCached = false;
    for (auto& [id, m] : m_messages)
    {
        if (m.wr.stream == nak.stream && m.msn == nak.msn && !m.finished)
        {
            Fail(CompletionStatus::RemoteAccessError, id, now);
            return;
        }
    }
}

void
MetaRoceRequester::Fail(CompletionStatus status, uint64_t culprit, TimeNs now)
{
    // The connection enters the error state, as an RC queue pair does: the culprit completes
    // with its error and every other outstanding request is flushed (spec 5.6).
    m_failed = true;
    for (auto& [id, m] : m_messages)
    {
        if (!m.finished)
        {
            m.finished = true;
            m.status = id == culprit ? status : CompletionStatus::Flushed;
        }
    }
    for (uint16_t s = 0; s < m_config.streams; ++s)
    {
        CompleteInOrder(s, now);
    }
    m_unsent.clear();
    m_retransmit.clear();
}

bool
MetaRoceRequester::HasWork(uint16_t port) const
{
    if (port >= m_config.ports || !m_portUp[port] || m_failed)
    {
        return false;
    }
    // Cheapest first: the NIC asks on every pull of every port.
    if (!m_unsent.empty() || !m_retransmit.empty() ||
        (m_tailProbePath >= 0 && m_paths[m_tailProbePath].port == port))
    {
        return true;
    }
    for (uint16_t id : m_pathsByPort[port])
    {
        if (m_paths[id].health == PathHealth::Down && m_paths[id].probeDue <= m_now)
        {
            return true;
        }
    }
    return false;
}

TimeNs
MetaRoceRequester::NextTimeout() const
{
    // The driver asks after every event of the connection, most of which (data arriving for the
    // responder) leave the requester alone: answer those from the last scan. Every public
    // mutator clears the cache, so it always equals a fresh scan.
    if (!m_timeoutCached)
    {
        m_timeoutCache = ScanNextTimeout();
        m_timeoutCached = true;
    }
    return m_timeoutCache;
}

TimeNs
MetaRoceRequester::ScanNextTimeout() const
{
    if (m_failed)
    {
        return kNever;
    }
    // Deadlines OnTimeout() acts on are reported even when overdue (clamped to the latest time
    // seen); work that only waits for a free port (due probes, elapsed pacing) is announced by
    // HasWork() instead, so that a busy port cannot make the driver spin.
    TimeNs next = kNever;
    auto consider = [&](TimeNs t) { next = std::min(next, std::max(t, m_now)); };
    const TimeNs reorderWindow = ReorderWindowNs();
    for (const Path& path : m_paths)
    {
        if (path.outstanding.empty() && path.health != PathHealth::Down)
        {
            continue; // nothing in flight: no loss check, no RTO (most paths, most of the time)
        }
        const TimeNs lossCheck = LossCheckAt(path, reorderWindow);
        if (lossCheck != kNever)
        {
            consider(lossCheck);
        }
        if (path.health == PathHealth::Down)
        {
            if (path.probeDue != kNever && path.probeDue > m_now)
            {
                next = std::min(next, path.probeDue);
            }
            continue;
        }
        const TimeNs oldest = path.OldestInFlight();
        if (oldest != kNever)
        {
            consider(oldest + PathRto(path));
        }
    }
    const TimeNs tailProbeAt = TailProbeAt();
    if (tailProbeAt != kNever)
    {
        consider(tailProbeAt);
    }
    if (m_pacingBlocked && m_nextSendAt > m_now)
    {
        next = std::min(next, m_nextSendAt);
    }
    return next;
}

bool
MetaRoceRequester::Idle() const
{
    return m_messages.empty();
}

void
MetaRoceRequester::TakeCompletions(std::vector<Completion>& out)
{
    m_timeoutCached = false;
    out.insert(out.end(), m_completions.begin(), m_completions.end());
    m_completions.clear();
}

} // namespace metaroce
