#include "flow-table.h"

#include "metaroce-wire.h"
#include "flow-recovery.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

FlowTable::FlowTable(const MetaRoceConfig& config, uint32_t initialFsn)
    : m_config(config)
    , m_initialFsn(initialFsn)
{
}

void
FlowTable::Make(FlowRecovery& recovery)
{
    if (!m_slots.Empty())
    {
        return;
    }
    const std::size_t count = std::size_t{m_config.ports} * m_config.flowsPerPort;
    m_firstEntropy.reserve(count);
    for (std::size_t id = 0; id < count; ++id)
    {
        m_firstEntropy.push_back(recovery.DrawEntropy());
    }
    m_slots.Resize(count);
}

const Flow&
FlowTable::operator[](uint16_t id) const
{
    const Flow* flow = id < m_slots.Size() ? m_slots.Find(id) : nullptr;
    if (flow == nullptr)
    {
        throw std::out_of_range("flow " + std::to_string(id) + " has not been used");
    }
    return *flow;
}

Flow&
FlowTable::MakeFlow(uint16_t id)
{
    const double mtu = m_config.mtu + kMrWriteHeaderSize;
    Flow& flow = m_slots.Make(id, id, PortOf(id), m_firstEntropy[id], m_config.initialRttNs);
    flow.window.minWindow = mtu;
    flow.window.maxWindow = mtu * m_config.maxFlowWindowPackets;
    flow.window.window = mtu * m_config.initialFlowWindowPackets;
    flow.nextFsn = m_initialFsn;
    return flow;
}

} // namespace metaroce
