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
                                     uint32_t peerInitialFsn,
                                     MemoryRegistry* memory,
                                     Counters& counters)
    : m_config(config)
    , m_peer(peer)
    , m_peerInitialFsn(peerInitialFsn)
    , m_memory(memory)
    , m_counters(counters)
    , m_fairShareBps(config.portRateBps * config.ports)
    , m_credit(uint64_t{config.mtu} + kMrMaxDataHeaderSize, config.unscheduledBytes)
    , m_ackDue(0)
{
}

uint16_t
MetaRoceResponder::PortOf(uint16_t flowId) const
{
    return static_cast<uint16_t>(flowId / m_config.flowsPerPort);
}

void
MetaRoceResponder::MakeState()
{
    if (!m_flows.Empty())
    {
        return;
    }
    m_flows.Resize(size_t{m_config.ports} * m_config.flowsPerPort);
    m_ackDue = DeadlineTree(m_flows.Size());
    m_ackQueue.resize(m_config.ports);
    m_planes.resize(m_config.ports);
}

MetaRoceResponder::FlowRx&
MetaRoceResponder::Rx(uint16_t id)
{
    if (FlowRx* rx = m_flows.Find(id))
    {
        return *rx;
    }
    FlowRx& made = m_flows.Make(id);
    made.window = FlowReceiveWindow(m_peerInitialFsn);
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

FlowReceiveWindow
MetaRoceResponder::Window(uint16_t flowId) const
{
    if (!m_flows.Empty() && flowId >= m_flows.Size())
    {
        throw std::out_of_range("no flow " + std::to_string(flowId));
    }
    const FlowRx* rx = m_flows.Empty() ? nullptr : m_flows.Find(flowId);
    return rx ? rx->window : FlowReceiveWindow(m_peerInitialFsn);
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
    // Segmentation is fixed by the MTU both ends agreed on (spec 5.2): every packet but the last
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
        return refuse(DropReason::FsnOutOfWindow);
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
        // registered, not by the length a packet claims (spec 5.8). A virtual buffer (key 0)
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
    // A SEND whose RECV already completed is a duplicate (spec 5.8), whatever its MSN says:
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

RxResult
MetaRoceResponder::OnData(const MrHeader& h, const uint8_t* payload, const RxPacket& pkt)
{
    MakeState();
    if (h.flowId >= m_flows.Size() || PortOf(h.flowId) != pkt.port)
    {
        return RxResult{false, DropReason::BadField};
    }
    FlowRx& rx = Rx(h.flowId);
    const uint64_t fsn = MrUnwrapFsn(h.fsn, rx.window.Cumulative());
    const uint64_t floor = MrUnwrapFsn(h.ackFloor, rx.window.Cumulative());
    // The sender keeps at most 256 FSNs above its floor (spec 7.1), and no floor jumps further
    // than a flow can lose (A51); anything else is refused before it can move the window.
    if (fsn < floor || fsn - floor >= kSackBits || !rx.window.FloorFits(floor))
    {
        return RxResult{false, DropReason::FsnOutOfWindow};
    }
    const RxResult placement = CheckPlacement(h, pkt.port);
    if (!placement.accepted)
    {
        return placement;
    }
    const auto verdict = rx.window.Observe(fsn, floor);
    if (verdict == FlowReceiveWindow::Verdict::Duplicate)
    {
        m_counters.CountDrop(DropReason::Duplicate);
        NoteArrival(rx, h.flowId, pkt, h.timestamp, true);
        return RxResult{};
    }
    ++rx.fresh;
    ++m_counters.rxDataPackets;
    Place(h, payload, pkt.now);
    NoteArrival(rx, h.flowId, pkt, h.timestamp, (h.flags & (kMrFlagAckReq | kMrFlagLast)) != 0);
    return RxResult{};
}

RxResult
MetaRoceResponder::OnProbe(const MrHeader& h, const RxPacket& pkt)
{
    MakeState();
    if (h.flowId >= m_flows.Size() || PortOf(h.flowId) != pkt.port)
    {
        return RxResult{false, DropReason::BadField};
    }
    FlowRx& rx = Rx(h.flowId);
    const uint64_t fsn = MrUnwrapFsn(h.fsn, rx.window.Cumulative());
    const uint64_t floor = MrUnwrapFsn(h.ackFloor, rx.window.Cumulative());
    if (!rx.window.FloorFits(floor))
    {
        return RxResult{false, DropReason::FsnOutOfWindow};
    }
    const auto verdict = rx.window.Observe(fsn, floor);
    if (verdict == FlowReceiveWindow::Verdict::OutOfWindow)
    {
        return RxResult{false, DropReason::FsnOutOfWindow};
    }
    // Not a fresh arrival: the new count is of DATA, and the admission credit grows by the
    // data that arrives, not by a tail marker's 24 bytes (spec 4.2, 8.5). A Down flow's probe
    // asks for its ACK at once (ACKREQ); a tail marker is acknowledged as data is, at once
    // only above a gap - the lost tail it is there to expose - or as a duplicate.
    const bool urgent =
        (h.flags & kMrFlagAckReq) != 0 || verdict == FlowReceiveWindow::Verdict::Duplicate;
    NoteArrival(rx, h.flowId, pkt, h.timestamp, urgent);
    return RxResult{};
}

void
MetaRoceResponder::TakeCompletions(std::vector<Completion>& out)
{
    out.insert(out.end(), m_completions.begin(), m_completions.end());
    m_completions.clear();
}

} // namespace metaroce
