#include "transport-engine.h"

#include "metaroce-wire.h"

#include <boost/endian/conversion.hpp>

namespace metaroce
{

namespace
{
constexpr uint16_t kRoceV2UdpPort = 4791;
constexpr std::size_t kBthSize = 12;
} // namespace

std::optional<uint32_t>
PeekDestination(const uint8_t* data, std::size_t size, uint16_t udpDstPort)
{
    if (udpDstPort == kMetaRoceUdpPort && size >= kMrCommonSize)
    {
        return boost::endian::load_big_u32(data + 4);
    }
    if (udpDstPort == kRoceV2UdpPort && size >= kBthSize)
    {
        // BTH bytes 5..7: the 24-bit destination QP number.
        return boost::endian::load_big_u32(data + 4) & 0x00ffffff;
    }
    return std::nullopt;
}

} // namespace metaroce
