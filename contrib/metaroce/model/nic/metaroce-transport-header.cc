#include "metaroce-transport-header.h"

#include "ns3/metaroce-wire.h"
#include "ns3/rocev2-wire.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceTransportHeader);

TypeId
MetaRoceTransportHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceTransportHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceTransportHeader>();
    return tid;
}

TypeId
MetaRoceTransportHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

MetaRoceTransportHeader::MetaRoceTransportHeader() = default;

MetaRoceTransportHeader::MetaRoceTransportHeader(const metaroce::HeaderBytes& bytes,
                                                 uint16_t udpPort)
    : m_bytes(bytes)
    , m_udpPort(udpPort)
{
}

MetaRoceTransportHeader::MetaRoceTransportHeader(const std::vector<uint8_t>& bytes,
                                                 uint16_t udpPort)
    : m_bytes(bytes.size())
    , m_udpPort(udpPort)
{
    std::copy(bytes.begin(), bytes.end(), m_bytes.begin());
}

void
MetaRoceTransportHeader::SetUdpPort(uint16_t port)
{
    m_udpPort = port;
}

uint16_t
MetaRoceTransportHeader::GetUdpPort() const
{
    return m_udpPort;
}

std::vector<uint8_t>
MetaRoceTransportHeader::GetBytes() const
{
    return m_bytes.ToVector();
}

uint32_t
MetaRoceTransportHeader::HeaderSize(uint16_t udpPort, uint8_t first)
{
    if (udpPort == metaroce::kMetaRoceUdpPort)
    {
        const auto* info = metaroce::MrLookupOpcode(first & 0x0f);
        return info ? info->headerSize : 0;
    }
    if (udpPort == metaroce::kRoceV2UdpPort)
    {
        const auto* info = metaroce::IbLookupOpcode(first);
        return info ? info->headerSize : 0;
    }
    return 0;
}

uint32_t
MetaRoceTransportHeader::GetSerializedSize() const
{
    return static_cast<uint32_t>(m_bytes.size());
}

void
MetaRoceTransportHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes.data(), static_cast<uint32_t>(m_bytes.size()));
}

uint32_t
MetaRoceTransportHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    // The size comes from the first byte: a packet shorter than that (or empty) yields an
    // empty header instead of a read past its end (found by test/fuzz, fuzz-transport-header).
    const uint32_t remaining = i.GetRemainingSize();
    uint32_t size = remaining == 0 ? 0 : HeaderSize(m_udpPort, i.PeekU8());
    const bool ack = m_udpPort == metaroce::kMetaRoceUdpPort && remaining > 0 &&
                     (i.PeekU8() & 0x0f) == static_cast<uint8_t>(metaroce::MrOpcode::Ack);
    if (ack && remaining >= metaroce::kMrAckNoSackSize && remaining <= metaroce::kMrMaxHeaderSize)
    {
        size = remaining; // an ACK has no payload: all it carries is header (spec 5.3)
    }
    if (size > remaining)
    {
        m_bytes.resize(0);
        return 0;
    }
    m_bytes.resize(size);
    i.Read(m_bytes.data(), size);
    return size;
}

void
MetaRoceTransportHeader::Print(std::ostream& os) const
{
    if (m_bytes.empty())
    {
        os << "empty";
        return;
    }
    if (m_udpPort == metaroce::kMetaRoceUdpPort)
    {
        const auto r = metaroce::MrParse(m_bytes.data(), m_bytes.size(), m_bytes.size());
        const auto* info = metaroce::MrLookupOpcode(m_bytes[0] & 0x0f);
        os << "MetaRoCE " << (info ? info->name : "?");
        if (r.header)
        {
            os << " conn=" << r.header->connection << " flow=" << r.header->flowId;
        }
        return;
    }
    const auto* info = metaroce::IbLookupOpcode(m_bytes[0]);
    os << "RoCEv2 " << (info ? info->name : "?");
}

} // namespace ns3
