/*
 * The transport header of a metaroce packet as an ns3::Header: the bytes the engine produced
 * (a MetaRoCE header, or a RoCEv2 BTH with its extension headers), carried verbatim so that a
 * pcap shows the real wire format - RoCEv2 decodes as InfiniBand over UDP 4791 in Wireshark.
 *
 * The layout depends on the UDP destination port, which this header cannot see: set it with
 * SetUdpPort() before RemoveHeader()/PeekHeader(). Print() decodes the main fields for ascii
 * traces.
 */
#ifndef METAROCE_TRANSPORT_HEADER_H
#define METAROCE_TRANSPORT_HEADER_H

#include "ns3/header-bytes.h"
#include "ns3/header.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief The engine's transport header bytes (MetaRoCE or RoCEv2 BTH+) as an ns-3 header.
 */
class MetaRoceTransportHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    MetaRoceTransportHeader();

    /// Wraps bytes produced by an engine, for a packet to `udpPort`.
    MetaRoceTransportHeader(const metaroce::HeaderBytes& bytes, uint16_t udpPort);

    /// The same from a byte vector (at most metaroce::HeaderBytes::kCapacity bytes, else
    /// std::length_error).
    MetaRoceTransportHeader(const std::vector<uint8_t>& bytes, uint16_t udpPort);

    /// Sets the UDP destination port, which selects the layout to deserialize.
    void SetUdpPort(uint16_t port);
    uint16_t GetUdpPort() const;

    /// The header's bytes, a copy.
    std::vector<uint8_t> GetBytes() const;

    /**
     * Size of the header that starts with `first` for `udpPort`, or 0 when the port carries no
     * metaroce transport or the opcode is unknown. For a MetaRoCE ACK, the size without repeats
     * (Deserialize() takes the repeats from the packet's length).
     */
    static uint32_t HeaderSize(uint16_t udpPort, uint8_t first);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    metaroce::HeaderBytes m_bytes; ///< inline: no allocation per packet
    uint16_t m_udpPort{0};
};

} // namespace ns3

#endif // METAROCE_TRANSPORT_HEADER_H
