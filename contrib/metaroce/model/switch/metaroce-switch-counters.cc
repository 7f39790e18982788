/*
 * MetaRoceSwitch, part 3 of 3: counters and read-only accessors (statistics). The forwarding
 * path is in metaroce-switch.cc, the PFC state machine in metaroce-switch-pfc.cc.
 */
#include "metaroce-switch.h"

namespace ns3
{

uint64_t
MetaRoceSwitchPortCounters::Dropped() const
{
    uint64_t n = 0;
    for (uint64_t d : drops)
    {
        n += d;
    }
    return n;
}

const char*
MetaRoceSwitch::DropReasonName(MetaRoceDropReason reason)
{
    return reason < MetaRoceDropReason::COUNT ? kSwitchDropReasons[size_t(reason)].name : "?";
}

uint32_t
MetaRoceSwitch::GetNPorts() const
{
    return m_ports.size();
}

Ptr<NetDevice>
MetaRoceSwitch::GetPortDevice(uint32_t port) const
{
    return m_ports.at(port).device;
}

const MetaRoceSwitchPortCounters&
MetaRoceSwitch::GetPortCounters(uint32_t port) const
{
    return m_ports.at(port).counters;
}

uint64_t
MetaRoceSwitch::GetDropCount(MetaRoceDropReason reason) const
{
    uint64_t n = 0;
    for (const Port& pt : m_ports)
    {
        n += pt.counters.drops.at(size_t(reason));
    }
    return n;
}

uint64_t
MetaRoceSwitch::GetDropCount(const std::string& reason) const
{
    const auto* row = metaroce::FindReason(kSwitchDropReasons, reason);
    return row == nullptr ? 0 : GetDropCount(row->reason);
}

uint64_t
MetaRoceSwitch::GetQueueBytes(uint32_t port, uint32_t cls) const
{
    return m_ports.at(port).egressBytes.at(cls);
}

uint64_t
MetaRoceSwitch::GetBufferUsed() const
{
    return m_bufferUsed;
}

uint64_t
MetaRoceSwitch::GetReceived() const
{
    return m_received;
}

uint64_t
MetaRoceSwitch::GetForwarded() const
{
    return m_forwarded;
}

uint64_t
MetaRoceSwitch::GetDropped() const
{
    return m_dropped;
}

uint64_t
MetaRoceSwitch::GetQueuedPackets() const
{
    return m_queued;
}

} // namespace ns3
