#include "flow-selector.h"

#include "../metaroce/metaroce-wire.h"

#include <algorithm>

namespace metaroce
{

const char*
SprayFlowSelector::Name() const
{
    return "spray";
}

int
SprayFlowSelector::Select(const FlowTable& flows,
                          uint16_t port,
                          uint32_t bytes,
                          uint32_t maxPackets)
{
    if (flows.OfPort(port).empty())
    {
        return -1;
    }
    const int recycled = Recycled(flows, port, bytes, maxPackets);
    return recycled >= 0 ? recycled : RoundRobin(flows, port, bytes, maxPackets);
}

int
SprayFlowSelector::RoundRobin(const FlowTable& flows,
                              uint16_t port,
                              uint32_t bytes,
                              uint32_t maxPackets)
{
    const auto candidates = flows.OfPort(port);
    std::size_t& cursor = Cursor(port);
    const std::size_t n = candidates.size();
    // Pass 0: healthy flows without recent marks. Pass 1: any flow that may send.
    for (int pass = 0; pass < 2; ++pass)
    {
        for (std::size_t k = 0; k < n; ++k)
        {
            const std::size_t slot = (cursor + k) % n;
            const auto id = static_cast<uint16_t>(candidates.front() + slot);
            const Flow* p = flows.Find(id);
            const bool usable = pass == 0 ? flows.IsClearWithRoom(id, bytes, maxPackets)
                                          : (!p || p->health != FlowHealth::Down) &&
                                                flows.HasRoom(id, bytes, maxPackets);
            if (!usable)
            {
                continue;
            }
            cursor = (slot + 1) % n;
            return id;
        }
    }
    return -1;
}

int
SprayFlowSelector::Recycled(const FlowTable& flows,
                            uint16_t port,
                            uint32_t bytes,
                            uint32_t maxPackets)
{
    if (port >= m_portCredits.size() || m_portCredits[port] == 0)
    {
        return -1;
    }
    const auto candidates = flows.OfPort(port);
    std::size_t& cursor = Cursor(port);
    const std::size_t n = candidates.size();
    for (std::size_t k = 0; k < n && m_portCredits[port] > 0; ++k)
    {
        const std::size_t slot = (cursor + k) % n;
        const auto id = static_cast<uint16_t>(candidates.front() + slot);
        if (id >= m_credits.size() || m_credits[id] == 0)
        {
            continue;
        }
        const Flow& flow = flows[id]; // acknowledged, so made
        if (flow.health != FlowHealth::Up || flow.markedRounds > 0 ||
            m_epoch[id] != static_cast<uint8_t>(flow.epoch))
        {
            Void(id, port); // its route turned bad, or it moved: the share goes to round-robin
            continue;
        }
        if (!flow.HasRoom(bytes, maxPackets))
        {
            continue;
        }
        --m_credits[id];
        --m_portCredits[port];
        cursor = (slot + 1) % n;
        return id;
    }
    return -1;
}

void
SprayFlowSelector::OnAck(const FlowTable& flows,
                         const Flow& flow,
                         uint32_t ackedPackets,
                         uint32_t ceCount)
{
    if (!flows.Config().entropyRecycling || (ackedPackets == 0 && ceCount == 0))
    {
        return;
    }
    if (m_credits.size() <= flow.id)
    {
        m_credits.resize(flow.id + 1, 0);
        m_epoch.resize(flow.id + 1, 0);
    }
    if (m_portCredits.size() <= flow.port)
    {
        m_portCredits.resize(flow.port + 1, 0);
    }
    const auto epoch = static_cast<uint8_t>(flow.epoch);
    if (ceCount > 0 || m_epoch[flow.id] != epoch)
    {
        Void(flow.id, flow.port); // a mark, or credits earned on another route
        m_epoch[flow.id] = epoch;
    }
    if (ceCount > 0)
    {
        return;
    }
    // At most a SACK span of credits: a flow never has more than that in flight.
    const uint32_t add = std::min<uint32_t>(ackedPackets, kSackBits - m_credits[flow.id]);
    m_credits[flow.id] = static_cast<uint16_t>(m_credits[flow.id] + add);
    m_portCredits[flow.port] += add;
}

void
SprayFlowSelector::Void(uint16_t id, uint16_t port)
{
    m_portCredits[port] -= m_credits[id];
    m_credits[id] = 0;
}

std::size_t&
SprayFlowSelector::Cursor(uint16_t port)
{
    if (m_cursor.size() <= port)
    {
        m_cursor.resize(port + 1, 0);
    }
    return m_cursor[port];
}

std::unique_ptr<FlowSelector>
SprayFlowSelector::Clone() const
{
    return std::make_unique<SprayFlowSelector>();
}

} // namespace metaroce
