#include "metaroce-frame-header.h"

#include <algorithm>

namespace ns3
{

namespace
{

constexpr uint32_t kUdpHeaderSize = 8;

} // namespace

NS_OBJECT_ENSURE_REGISTERED(MetaRoceFrameHeader);

TypeId
MetaRoceFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceFrameHeader>();
    return tid;
}

TypeId
MetaRoceFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

MetaRoceFrameHeader::MetaRoceFrameHeader() = default;

MetaRoceFrameHeader::MetaRoceFrameHeader(const metaroce::Ipv4UdpHead& head,
                                         const metaroce::HeaderBytes& transport)
    : m_size(static_cast<uint32_t>(metaroce::kIpv4UdpHeadSize + transport.size()))
{
    metaroce::WriteIpv4UdpHead(head, m_bytes.data());
    std::copy(transport.begin(), transport.end(), m_bytes.begin() + metaroce::kIpv4UdpHeadSize);
}

uint32_t
MetaRoceFrameHeader::GetSerializedSize() const
{
    return m_size;
}

void
MetaRoceFrameHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes.data(), m_size);
}

uint32_t
MetaRoceFrameHeader::ReadParts(Buffer::Iterator i,
                               Ipv4Header& ip,
                               UdpHeader& udp,
                               MetaRoceTransportHeader& transport)
{
    if (i.GetRemainingSize() < 20)
    {
        return 0;
    }
    const uint32_t ipSize = ip.Deserialize(i);
    if (ipSize == 0 || i.GetRemainingSize() < ipSize + kUdpHeaderSize)
    {
        return 0;
    }
    i.Next(ipSize);
    udp.Deserialize(i);
    i.Next(kUdpHeaderSize);
    transport.SetUdpPort(udp.GetDestinationPort());
    const uint32_t transportSize = transport.Deserialize(i);
    return transportSize == 0 ? 0 : ipSize + kUdpHeaderSize + transportSize;
}

uint32_t
MetaRoceFrameHeader::Deserialize(Buffer::Iterator start)
{
    Ipv4Header ip;
    UdpHeader udp;
    MetaRoceTransportHeader transport;
    m_size = ReadParts(start, ip, udp, transport);
    start.Read(m_bytes.data(), m_size);
    return m_size;
}

void
MetaRoceFrameHeader::Print(std::ostream& os) const
{
    Buffer b;
    b.AddAtStart(m_size);
    b.Begin().Write(m_bytes.data(), m_size);
    Ipv4Header ip;
    UdpHeader udp;
    MetaRoceTransportHeader transport;
    if (ReadParts(b.Begin(), ip, udp, transport) == 0)
    {
        os << "malformed frame head of " << m_size << " bytes";
        return;
    }
    ip.Print(os);
    os << " ";
    udp.Print(os);
    os << " ";
    transport.Print(os);
}

} // namespace ns3
