/*
 * MetaRoceNic's ports: adding one on a device, and reading its device, address and line rate.
 */
#include "metaroce-nic.h"

#include "ns3/abort.h"
#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/metaroce-arrivals.h"

namespace ns3
{

uint32_t
MetaRoceNic::AddPort(Ptr<NetDevice> device, Ipv4Address address)
{
    NS_ABORT_MSG_IF(device == nullptr, "MetaRoceNic::AddPort: null device");
    NS_ABORT_MSG_IF(device->GetChannel() == nullptr,
                    "MetaRoceNic::AddPort: attach the device to a channel first");
    NS_ABORT_MSG_IF(!m_hosts.empty(), "MetaRoceNic::AddPort: add every port before connecting");
    const auto index = static_cast<uint32_t>(m_ports.size());
    Port port;
    port.device = device;
    port.address = address;
    port.queue = CreateObject<MetaRocePortQueue>();
    port.queue->SetOwner(this, index);
    port.queue->Attach(device);
    m_arrivals = MetaRoceArrivals::Of(device->GetNode());
    m_pfc.SetArrivals(m_arrivals);
    m_arrivals->BindPort(device, this, index);
    m_ports.push_back(port);
    m_scheduler.AddPort();
    m_pfc.AddPort(MakeCallback(&MetaRocePortQueue::Kick, port.queue));
    return index;
}

uint32_t
MetaRoceNic::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<NetDevice>
MetaRoceNic::GetPort(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic: no port " << port);
    return m_ports[port].device;
}

Ipv4Address
MetaRoceNic::GetAddress(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceNic: no port " << port);
    return m_ports[port].address;
}

uint64_t
MetaRoceNic::LineRateBps(uint32_t port) const
{
    DataRateValue rate;
    m_ports[port].device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

} // namespace ns3
