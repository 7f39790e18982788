/*
 * The IPv4 and UDP headers in front of every transport header (spec 5.1, 10.2; RFC 791 and
 * RFC 768), written as bytes in one pass: the ns-3 NIC frames every packet with them, and the
 * UDP runtime synthesises them for its captures. No IPv4 options; the UDP checksum is 0
 * ("none", legal for IPv4), as both RoCEv2 and MetaRoCE leave integrity to their own checks.
 */
#ifndef METAROCE_ENGINE_IPV4_UDP_HEAD_H
#define METAROCE_ENGINE_IPV4_UDP_HEAD_H

#include <cstddef>
#include <cstdint>

namespace metaroce
{

/// Bytes of an IPv4 header without options followed by a UDP header.
constexpr std::size_t kIpv4UdpHeadSize = 28;

/// What varies between the IPv4/UDP headers a sender writes; addresses and ports in host order.
struct Ipv4UdpHead
{
    uint8_t tos{0};             ///< DSCP << 2 | ECN
    uint16_t identification{0}; ///< IPv4 identification
    bool dontFragment{false};   ///< the DF flag
    uint8_t ttl{64};
    uint32_t source{0};
    uint32_t destination{0};
    uint16_t sourcePort{0};
    uint16_t destinationPort{0};
    uint16_t udpPayload{0}; ///< bytes after the UDP header (transport header and payload)
};

/// Writes `head` to `out` (kIpv4UdpHeadSize bytes) in network order, the IPv4 checksum filled.
void WriteIpv4UdpHead(const Ipv4UdpHead& head, uint8_t* out);

/// The IPv4 header checksum of the 20 bytes at `header` (its checksum field read as zero or as
/// it stands: a header whose field holds its checksum sums to 0).
uint16_t Ipv4HeaderChecksum(const uint8_t* header);

} // namespace metaroce

#endif // METAROCE_ENGINE_IPV4_UDP_HEAD_H
