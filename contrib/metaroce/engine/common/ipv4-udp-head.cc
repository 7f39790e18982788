#include "ipv4-udp-head.h"

#include <boost/endian/conversion.hpp>
#include <cstring>

namespace metaroce
{

namespace
{

constexpr std::size_t kIpv4HeaderSize = 20;
constexpr uint8_t kUdpProtocol = 17;

void
Put16(uint8_t* p, uint16_t v)
{
    boost::endian::store_big_u16(p, v);
}

void
Put32(uint8_t* p, uint32_t v)
{
    boost::endian::store_big_u32(p, v);
}

} // namespace

uint16_t
Ipv4HeaderChecksum(const uint8_t* header)
{
    uint32_t sum = 0;
    for (std::size_t i = 0; i < kIpv4HeaderSize; i += 2)
    {
        sum += boost::endian::load_big_u16(header + i);
    }
    while ((sum >> 16) != 0)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

void
WriteIpv4UdpHead(const Ipv4UdpHead& head, uint8_t* out)
{
    const uint16_t udpLength = static_cast<uint16_t>(8 + head.udpPayload);
    out[0] = 0x45; // version 4, five 32-bit words
    out[1] = head.tos;
    Put16(out + 2, static_cast<uint16_t>(kIpv4HeaderSize + udpLength));
    Put16(out + 4, head.identification);
    Put16(out + 6, head.dontFragment ? 0x4000 : 0); // flags and fragment offset
    out[8] = head.ttl;
    out[9] = kUdpProtocol;
    Put16(out + 10, 0);
    Put32(out + 12, head.source);
    Put32(out + 16, head.destination);
    Put16(out + 10, Ipv4HeaderChecksum(out));
    Put16(out + 20, head.sourcePort);
    Put16(out + 22, head.destinationPort);
    Put16(out + 24, udpLength);
    Put16(out + 26, 0);
}

} // namespace metaroce
