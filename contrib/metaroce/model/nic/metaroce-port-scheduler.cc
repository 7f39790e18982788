#include "metaroce-port-scheduler.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRocePortScheduler");

namespace
{

/// The first set bit of `words` in [from, end), or `end`.
std::size_t
FindMarked(const std::vector<uint64_t>& words, std::size_t from, std::size_t end)
{
    while (from < end)
    {
        const uint64_t w = words[from / 64] >> (from % 64);
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
    m_ports.emplace_back();
    return static_cast<uint32_t>(m_ports.size() - 1);
}

MetaRocePortScheduler::Slot
MetaRocePortScheduler::Add(uint32_t port, Sender* sender)
{
    NS_LOG_FUNCTION(this << port << sender);
    PortRoundRobin& rr = m_ports[port];
    const auto slot = static_cast<uint32_t>(rr.senders.size());
    rr.senders.push_back(sender);
    rr.maybeWork.resize(rr.senders.size() / 64 + 1, 0);
    return {port, slot};
}

void
MetaRocePortScheduler::MarkMaybeWork(const std::vector<Slot>& slots)
{
    for (const auto& [port, slot] : slots)
    {
        m_ports[port].maybeWork[slot / 64] |= uint64_t(1) << (slot % 64);
    }
}

Ptr<Packet>
MetaRocePortScheduler::Pull(uint32_t port, bool controlOnly)
{
    const std::size_t start = m_ports[port].cursor;
    Ptr<Packet> p = PullFromSlots(port, start, m_ports[port].senders.size(), controlOnly);
    return p != nullptr ? p : PullFromSlots(port, 0, start, controlOnly);
}

Ptr<Packet>
MetaRocePortScheduler::PullFromSlots(uint32_t port,
                                     std::size_t from,
                                     std::size_t end,
                                     bool controlOnly)
{
    PortRoundRobin& rr = m_ports[port];
    for (std::size_t slot = FindMarked(rr.maybeWork, from, end); slot < end;
         slot = FindMarked(rr.maybeWork, slot + 1, end))
    {
        Sender& sender = *rr.senders[slot];
        if (!sender.HasWork(port))
        {
            rr.maybeWork[slot / 64] &= ~(uint64_t(1) << (slot % 64));
            continue;
        }
        Ptr<Packet> p = sender.Pull(port, controlOnly);
        if (p == nullptr)
        {
            continue;
        }
        rr.cursor = (slot + 1) % rr.senders.size();
        return p;
    }
    return nullptr;
}

void
MetaRocePortScheduler::Clear()
{
    m_ports.clear();
}

} // namespace ns3
