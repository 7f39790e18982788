#include "path-selector.h"

#include "../metaroce/metaroce-wire.h"

#include <algorithm>

namespace metaroce
{

const char*
SprayPathSelector::Name() const
{
    return "spray";
}

int
SprayPathSelector::Select(const PathTable& paths,
                          uint16_t port,
                          uint32_t bytes,
                          uint32_t maxPackets)
{
    if (paths.OfPort(port).empty())
    {
        return -1;
    }
    const int recycled = Recycled(paths, port, bytes, maxPackets);
    return recycled >= 0 ? recycled : RoundRobin(paths, port, bytes, maxPackets);
}

int
SprayPathSelector::RoundRobin(const PathTable& paths,
                              uint16_t port,
                              uint32_t bytes,
                              uint32_t maxPackets)
{
    const auto candidates = paths.OfPort(port);
    std::size_t& cursor = Cursor(port);
    const std::size_t n = candidates.size();
    // Pass 0: healthy paths without recent marks. Pass 1: any path that may send.
    for (int pass = 0; pass < 2; ++pass)
    {
        for (std::size_t k = 0; k < n; ++k)
        {
            const std::size_t slot = (cursor + k) % n;
            const auto id = static_cast<uint16_t>(candidates.front() + slot);
            const Path* p = paths.Find(id);
            const bool usable = pass == 0 ? paths.IsClearWithRoom(id, bytes, maxPackets)
                                          : (!p || p->health != PathHealth::Down) &&
                                                paths.HasRoom(id, bytes, maxPackets);
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
SprayPathSelector::Recycled(const PathTable& paths,
                            uint16_t port,
                            uint32_t bytes,
                            uint32_t maxPackets)
{
    if (port >= m_portCredits.size() || m_portCredits[port] == 0)
    {
        return -1;
    }
    const auto candidates = paths.OfPort(port);
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
        const Path& path = paths[id]; // acknowledged, so made
        if (path.health != PathHealth::Up || path.markedRounds > 0 ||
            m_epoch[id] != static_cast<uint8_t>(path.epoch))
        {
            Void(id, port); // its route turned bad, or it moved: the share goes to round-robin
            continue;
        }
        if (!path.HasRoom(bytes, maxPackets))
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
SprayPathSelector::OnAck(const PathTable& paths,
                         const Path& path,
                         uint32_t ackedPackets,
                         uint32_t ceCount)
{
    if (!paths.Config().entropyRecycling || (ackedPackets == 0 && ceCount == 0))
    {
        return;
    }
    if (m_credits.size() <= path.id)
    {
        m_credits.resize(path.id + 1, 0);
        m_epoch.resize(path.id + 1, 0);
    }
    if (m_portCredits.size() <= path.port)
    {
        m_portCredits.resize(path.port + 1, 0);
    }
    const auto epoch = static_cast<uint8_t>(path.epoch);
    if (ceCount > 0 || m_epoch[path.id] != epoch)
    {
        Void(path.id, path.port); // a mark, or credits earned on another route
        m_epoch[path.id] = epoch;
    }
    if (ceCount > 0)
    {
        return;
    }
    // At most a SACK span of credits: a path never has more than that in flight.
    const uint32_t add = std::min<uint32_t>(ackedPackets, kSackBits - m_credits[path.id]);
    m_credits[path.id] = static_cast<uint16_t>(m_credits[path.id] + add);
    m_portCredits[path.port] += add;
}

void
SprayPathSelector::Void(uint16_t id, uint16_t port)
{
    m_portCredits[port] -= m_credits[id];
    m_credits[id] = 0;
}

std::size_t&
SprayPathSelector::Cursor(uint16_t port)
{
    if (m_cursor.size() <= port)
    {
        m_cursor.resize(port + 1, 0);
    }
    return m_cursor[port];
}

std::unique_ptr<PathSelector>
SprayPathSelector::Clone() const
{
    return std::make_unique<SprayPathSelector>();
}

} // namespace metaroce
