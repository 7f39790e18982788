#include "path-selector.h"

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
    const auto candidates = paths.OfPort(port);
    if (candidates.empty())
    {
        return -1;
    }
    if (m_cursor.size() <= port)
    {
        m_cursor.resize(port + 1, 0);
    }
    std::size_t& cursor = m_cursor[port];
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

std::unique_ptr<PathSelector>
SprayPathSelector::Clone() const
{
    return std::make_unique<SprayPathSelector>();
}

} // namespace metaroce
