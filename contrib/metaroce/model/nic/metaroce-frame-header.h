/*
 * The head of every frame a NIC sends - IPv4 | UDP | transport header - as one ns3::Header,
 * written in one pass (metaroce::WriteIpv4UdpHead and the engine's header bytes). It carries
 * the same bytes as an Ipv4Header, a UdpHeader and a MetaRoceTransportHeader added one after
 * the other, so whoever reads a frame (switches, pcap, PeekHeader(Ipv4Header)) sees no
 * difference; it saves two of the three AddHeader calls and ns-3's IPv4 and UDP header objects,
 * about 2,000 instructions per frame (doc/performance.md, "The fast path").
 *
 * With packet printing on (Packet::EnablePrinting), MetaRoceFraming adds the three headers
 * instead, so that printed packets and header checks name each of them.
 */
#ifndef METAROCE_FRAME_HEADER_H
#define METAROCE_FRAME_HEADER_H

#include "metaroce-transport-header.h"

#include "ns3/header-bytes.h"
#include "ns3/header.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-udp-head.h"
#include "ns3/udp-header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief IPv4, UDP and transport header bytes of a NIC's frame, as one ns-3 header.
 */
class MetaRoceFrameHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    MetaRoceFrameHeader();

    /// The head of a frame whose IPv4/UDP fields are `head` and whose transport header is
    /// `transport` (head.udpPayload counts the transport header and the payload after it).
    MetaRoceFrameHeader(const metaroce::Ipv4UdpHead& head, const metaroce::HeaderBytes& transport);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /// Reads an IPv4 header (options included), a UDP header and the transport header its
    /// destination port names; 0 (and nothing kept) when any of them does not parse.
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// The three headers, each as its own class prints it.
    void Print(std::ostream& os) const override;

  private:
    /// Reads the three headers at `i` into `ip`, `udp` and `transport`; their bytes in all,
    /// or 0 when one does not parse or the bytes end early.
    static uint32_t ReadParts(Buffer::Iterator i,
                              Ipv4Header& ip,
                              UdpHeader& udp,
                              MetaRoceTransportHeader& transport);

    /// The largest IPv4 header (60), UDP and the largest transport header.
    static constexpr uint32_t kCapacity = 60 + 8 + metaroce::HeaderBytes::kCapacity;

    std::array<uint8_t, kCapacity> m_bytes;
    uint32_t m_size{0};
};

} // namespace ns3

#endif // METAROCE_FRAME_HEADER_H
