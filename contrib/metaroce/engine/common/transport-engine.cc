#include "transport-engine.h"

#include "../metaroce/metaroce-wire.h"
#include "../rocev2/rocev2-wire.h"

#include <algorithm>
#include <boost/endian/conversion.hpp>
#include <stdexcept>

namespace metaroce
{

const char*
TransportName(Transport t)
{
    return t == Transport::MetaRoce ? "metaroce" : "rocev2";
}

PortWork
TransportEngine::WorkOnPorts(uint16_t ports) const
{
    PortWork work;
    for (uint16_t port = 0; port < std::min<uint16_t>(ports, 64); ++port)
    {
        const uint64_t bit = uint64_t{1} << port;
        work.any |= HasWork(port) ? bit : 0;
        work.control |= HasControlWork(port) ? bit : 0;
        work.recovery |= HasRecoveryWork(port) ? bit : 0;
    }
    return work;
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
