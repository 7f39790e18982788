#include "metaroce-port-scheduler.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRocePortScheduler");

namespace
{

/// The first set bit in [from, end) of the bits whose word w is words[w * stride], or `end`.
std::size_t
FindMarked(const uint64_t* words, std::size_t stride, std::size_t from, std::size_t end)
{
    while (from < end)
    {
        const uint64_t w = words[from / 64 * stride] >> (from % 64);
        if (w != 0)
        {
            return std::min(end, from + static_cast<std::size_t>(__builtin_ctzll(w)));
        }
        from = (from / 64 + 1) * 64;
    }
    return end;
}

} // namespace

uint32_t
MetaRocePortScheduler::AddPort()
{
    const std::size_t ports = m_ports.size();
    m_ports.emplace_back();
    m_markedAny.push_back(0);
    // The layout interleaves the ports' words: lay the bits out again for one more port.
    for (std::vector<uint64_t>& bits : m_maybe)
    {
        std::vector<uint64_t> wider(ports == 0 ? 0 : bits.size() / ports * (ports + 1), 0);
        for (std::size_t i = 0; i < bits.size(); ++i)
        {
            wider[i / ports * (ports + 1) + i % ports] = bits[i];
        }
        bits = std::move(wider);
    }
    return static_cast<uint32_t>(ports);
}

MetaRocePortScheduler::Slot
MetaRocePortScheduler::Add(uint32_t port, Sender* sender)
{
    NS_LOG_FUNCTION(this << port << sender);
    Port& p = m_ports[port];
    const auto slot = static_cast<uint32_t>(p.senders.size());
    p.senders.push_back(sender);
    for (std::vector<uint64_t>& bits : m_maybe)
    {
        bits.resize(std::max(bits.size(), (slot / 64 + 1) * m_ports.size()), 0);
    }
    if (port < 64)
    {
        // The new slot starts unmarked, whatever the sender's marks elsewhere.
        const uint64_t keep = ~(uint64_t(1) << port);
        sender->m_marks = {sender->m_marks.any & keep,
                           sender->m_marks.control & keep,
                           sender->m_marks.recovery & keep};
    }
    return {port, slot};
}

uint64_t
MetaRocePortScheduler::MarkWork(Sender& sender,
                                const std::vector<Slot>& slots,
                                const metaroce::PortWork& work)
{
    if (m_ports.size() > 64)
    {
        return MarkEverySlot(slots, work);
    }
    // Called after every call into an engine, which seldom changes the ports it has work on:
    // only the bits that differ from the sender's marks are written.
    metaroce::PortWork& marks = sender.m_marks;
    const uint64_t any = marks.any ^ work.any;
    const uint64_t control = m_controlFirst ? marks.control ^ work.control : 0;
    const uint64_t recovery = m_recoveryFirst ? marks.recovery ^ work.recovery : 0;
    if ((any | control | recovery) == 0)
    {
        return 0;
    }
    marks = work;
    uint64_t woken = 0;
    for (const auto& [port, slot] : slots)
    {
        const uint64_t bit = uint64_t(1) << port;
        if ((any & bit) != 0 && SetMark(kAny, port, slot, (work.any & bit) != 0))
        {
            woken |= bit;
        }
        if ((control & bit) != 0)
        {
            SetMark(kControl, port, slot, (work.control & bit) != 0);
        }
        if ((recovery & bit) != 0)
        {
            SetMark(kRecovery, port, slot, (work.recovery & bit) != 0);
        }
    }
    return woken;
}

uint64_t
MetaRocePortScheduler::MarkEverySlot(const std::vector<Slot>& slots, const metaroce::PortWork& work)
{
    uint64_t woken = 0;
    for (const auto& [port, slot] : slots)
    {
        auto put = [&, port = port, slot = slot](std::size_t kind, uint64_t ports) {
            // PortWork has 64 bits: a port beyond them is marked as maybe having work.
            return SetMark(kind, port, slot, port >= 64 || (ports >> port & 1) != 0);
        };
        if (put(kAny, work.any) && port < 64)
        {
            woken |= uint64_t(1) << port;
        }
        if (m_controlFirst)
        {
            put(kControl, work.control);
        }
        if (m_recoveryFirst)
        {
            put(kRecovery, work.recovery);
        }
    }
    return woken;
}

Ptr<Packet>
MetaRocePortScheduler::Pull(uint32_t port, bool controlOnly)
{
    if (!MayHaveWork(port))
    {
        // No sender marked in the round-robin of any packet: none has control or recovery
        // either (HasWork covers them), whatever their own marks say.
        return nullptr;
    }
    Port& p = m_ports[port];
    if (m_controlFirst)
    {
        Ptr<Packet> control = Turn(p, port, p.control, metaroce::PullKind::Control);
        if (control != nullptr || controlOnly)
        {
            return control;
        }
    }
    if (m_recoveryFirst && !controlOnly)
    {
        if (Ptr<Packet> recovery = Turn(p, port, p.recovery, metaroce::PullKind::Recovery))
        {
            return recovery;
        }
    }
    return Turn(p,
                port,
                p.any,
                controlOnly ? metaroce::PullKind::Control : metaroce::PullKind::Any);
}

Ptr<Packet>
MetaRocePortScheduler::Turn(Port& port, uint32_t index, RoundRobin& rr, metaroce::PullKind kind)
{
    const std::size_t start = rr.cursor;
    Ptr<Packet> p = PullFromSlots(port, index, rr, start, port.senders.size(), kind);
    return p != nullptr ? p : PullFromSlots(port, index, rr, 0, start, kind);
}

Ptr<Packet>
MetaRocePortScheduler::PullFromSlots(Port& port,
                                     uint32_t index,
                                     RoundRobin& rr,
                                     std::size_t from,
                                     std::size_t end,
                                     metaroce::PullKind kind)
{
    const uint64_t* words = m_maybe[rr.kind].data() + index;
    const std::size_t stride = m_ports.size();
    for (std::size_t slot = FindMarked(words, stride, from, end); slot < end;
         slot = FindMarked(words, stride, slot + 1, end))
    {
        Sender& sender = *port.senders[slot];
        const bool work = rr.kind == kControl    ? sender.HasControlWork(index)
                          : rr.kind == kRecovery ? sender.HasRecoveryWork(index)
                                                 : sender.HasWork(index);
        if (!work)
        {
            SetMark(rr.kind, index, slot, false);
            if (index < 64)
            {
                uint64_t& marks = rr.kind == kControl    ? sender.m_marks.control
                                  : rr.kind == kRecovery ? sender.m_marks.recovery
                                                         : sender.m_marks.any;
                marks &= ~(uint64_t(1) << index);
            }
            continue;
        }
        Ptr<Packet> p = sender.Pull(index, kind);
        if (p == nullptr)
        {
            continue;
        }
        // A sender whose burst goes on (spec 6.2) keeps the turn of new data, so that the burst
        // leaves back to back.
        const bool again = rr.kind == kAny && sender.ContinuesBurst(index);
        rr.cursor = again ? slot : (slot + 1) % port.senders.size();
        return p;
    }
    return nullptr;
}

void
MetaRocePortScheduler::Clear()
{
    m_ports.clear();
    m_markedAny.clear();
    for (std::vector<uint64_t>& bits : m_maybe)
    {
        bits.clear();
    }
}

void
MetaRocePortScheduler::SetControlFirst(bool on)
{
    m_controlFirst = on;
    // Marks made while it was off went to `any` only: every sender may have control now.
    std::fill(m_maybe[kControl].begin(), m_maybe[kControl].end(), ~uint64_t(0));
}

bool
MetaRocePortScheduler::GetControlFirst() const
{
    return m_controlFirst;
}

void
MetaRocePortScheduler::SetRecoveryFirst(bool on)
{
    m_recoveryFirst = on;
    std::fill(m_maybe[kRecovery].begin(), m_maybe[kRecovery].end(), ~uint64_t(0));
}

bool
MetaRocePortScheduler::GetRecoveryFirst() const
{
    return m_recoveryFirst;
}

} // namespace ns3
