/*
 * The NIC's IPv4/UDP framing (spec 5.1, 10.2): an engine's packet becomes IPv4 | UDP | transport
 * header | payload on transmit (one MetaRoceFrameHeader), and an arriving datagram is unwrapped
 * for the engine.
 *
 * Hosts run no ns-3 Internet stack: the NIC is the RDMA offload and writes the IPv4 header
 * itself, with ECT(0) so switches can mark CE (passed to the engine on arrival), and with the
 * switches' CONTROL DSCP on ACK, NAK, CNP and probe packets (metaroce-switch-pfc.h).
 */
#ifndef METAROCE_FRAMING_H
#define METAROCE_FRAMING_H

#include "ns3/ipv4-address.h"
#include "ns3/packet.h"
#include "ns3/transport-engine.h"

#include <cstdint>
#include <optional>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief IPv4/UDP framing of the NIC's packets, both transports.
 */
class MetaRoceFraming
{
  public:
    /// Bytes of a transport header copied out of an arriving packet for the engine (both
    /// formats: the largest MetaRoCE header, an ACK with four repeats, is 96 bytes, spec 5.3).
    static constexpr uint32_t kMaxTransportHeader = 96;

    /// An arriving datagram, unwrapped.
    struct Arrival
    {
        uint32_t transportOffset{0}; ///< where the transport header starts (after IPv4 and UDP)
        uint32_t transportSize{0};   ///< transport header and payload
        bool ecnCe{false};           ///< IPv4 carried CE
        uint8_t head[kMaxTransportHeader]; ///< the first bytes of `transport`: its header
        uint32_t headSize{0};              ///< bytes valid in `head`
        /// The local connection or QP number the header names, if it parses.
        std::optional<uint32_t> destination;
    };

    /**
     * Frames `out` (its header and payload are moved out) as an IPv4/UDP datagram from
     * `source` to `destination`.
     */
    static Ptr<Packet> Frame(metaroce::OutPacket& out, Ipv4Address source, Ipv4Address destination);

    /**
     * Unwraps `packet`, which arrived with EtherType `protocol`; false when it is not an
     * IPv4/UDP datagram. The headers are read from one copy of the packet's first bytes, as the
     * switches read them (MetaRoceParseIpv4): the packet itself is neither copied nor changed.
     */
    static bool Unframe(Ptr<const Packet> packet, uint16_t protocol, Arrival& arrival);

    /**
     * The frame Frame() builds, with an Ipv4Header, a UdpHeader and a MetaRoceTransportHeader
     * added one by one: what Frame() does when packets record their headers
     * (Packet::EnablePrinting), and the reference its single header is checked against.
     */
    static Ptr<Packet> FrameOneByOne(const metaroce::OutPacket& out,
                                     Ipv4Address source,
                                     Ipv4Address destination);

  private:
    /// Whether packets record their headers (Packet::EnablePrinting).
    static bool PacketPrintingOn();
    /// A packet of `out`'s payload, headers still to be added.
    static Ptr<Packet> Payload(const metaroce::OutPacket& out);
    /// The IPv4 DSCP of `out`: ACK, NAK, CNP and probe go in the switches' CONTROL class
    /// (metaroce-switch-pfc.h).
    static uint8_t Dscp(const metaroce::OutPacket& out);
};

} // namespace ns3

#endif // METAROCE_FRAMING_H
