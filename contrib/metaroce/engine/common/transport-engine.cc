#include "transport-engine.h"

#include "../metaroce/metaroce-wire.h"
#include "../rocev2/rocev2-wire.h"

#include <boost/endian/conversion.hpp>
#include <stdexcept>

namespace metaroce
{

const char*
TransportName(Transport t)
{
    return t == Transport::MetaRoce ? "metaroce" : "rocev2";
}

Transport
ParseTransport(const std::string& name)
{
    if (name == "metaroce")
    {
        return Transport::MetaRoce;
    }
    if (name == "rocev2")
    {
        return Transport::RoceV2;
    }
    throw std::invalid_argument("unknown transport '" + name + "' (metaroce or rocev2)");
}

std::optional<uint32_t>
PeekDestination(const uint8_t* data, std::size_t size, uint16_t udpDstPort)
{
    if (udpDstPort == kMetaRoceUdpPort && size >= kMrCommonSize)
    {
        return boost::endian::load_big_u32(data + 4);
    }
    if (udpDstPort == kRoceV2UdpPort)
    {
        return IbPeekDestQpn(data, size);
    }
    return std::nullopt;
}

} // namespace metaroce
