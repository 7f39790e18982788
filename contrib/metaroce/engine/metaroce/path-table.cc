#include "path-table.h"

#include "metaroce-wire.h"
#include "path-recovery.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

PathTable::PathTable(const MetaRoceConfig& config, uint32_t initialPsn)
    : m_config(config)
    , m_initialPsn(initialPsn)
{
}

void
PathTable::Make(PathRecovery& recovery)
{
    if (!m_slots.Empty())
    {
        return;
    }
    const std::size_t count = std::size_t{m_config.ports} * m_config.pathsPerPort;
    m_firstEntropy.reserve(count);
    for (std::size_t id = 0; id < count; ++id)
    {
        m_firstEntropy.push_back(recovery.DrawEntropy());
    }
    m_slots.Resize(count);
}

const Path&
PathTable::operator[](uint16_t id) const
{
    const Path* path = id < m_slots.Size() ? m_slots.Find(id) : nullptr;
    if (path == nullptr)
    {
        throw std::out_of_range("path " + std::to_string(id) + " has not been used");
    }
    return *path;
}

Path&
PathTable::MakePath(uint16_t id)
{
    const double mtu = m_config.mtu + kMrWriteHeaderSize;
    Path& path = m_slots.Make(id, id, PortOf(id), m_firstEntropy[id], m_config.initialRttNs);
    path.window.minWindow = mtu;
    path.window.maxWindow = mtu * m_config.maxPathWindowPackets;
    path.window.window = mtu * m_config.initialPathWindowPackets;
    path.nextPsn = m_initialPsn;
    return path;
}

} // namespace metaroce
