#include "mcrc.h"

#include <algorithm>
#include <array>
#include <boost/crc.hpp>
#include <boost/endian/conversion.hpp>

namespace metaroce
{

namespace
{

/// CRC-32C (Castagnoli), reflected, as iSCSI, SCTP and NVMe/TCP use it.
using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

} // namespace

uint32_t
McrcCompute(const uint8_t* data, std::size_t size, std::size_t zeros)
{
    static const std::array<uint8_t, 1024> kZeros{};
    Crc32c crc;
    crc.process_bytes(data, size);
    while (zeros > 0)
    {
        const std::size_t n = std::min(zeros, kZeros.size());
        crc.process_bytes(kZeros.data(), n);
        zeros -= n;
    }
    return crc.checksum();
}

void
McrcAppend(OutPacket& out)
{
    // A virtual payload goes on the wire as zeros: make them real, so the trailer follows them.
    out.payload.resize(out.payloadSize, 0);
    Crc32c crc;
    crc.process_bytes(out.header.data(), out.header.size());
    crc.process_bytes(out.payload.data(), out.payload.size());
    out.payload.resize(out.payloadSize + kMcrcSize);
    boost::endian::store_big_u32(out.payload.data() + out.payloadSize, crc.checksum());
    out.payloadSize += kMcrcSize;
}

DropReason
McrcCheck(RxPacket& pkt)
{
    if (pkt.wireSize < kMcrcSize || pkt.size > pkt.wireSize)
    {
        return DropReason::Truncated;
    }
    const bool real = pkt.size == pkt.wireSize;
    pkt.wireSize -= kMcrcSize;
    pkt.size = std::min(pkt.size, pkt.wireSize);
    if (pkt.corrupted)
    {
        return DropReason::BadCrc;
    }
    if (real &&
        McrcCompute(pkt.data, pkt.wireSize) != boost::endian::load_big_u32(pkt.data + pkt.wireSize))
    {
        return DropReason::BadCrc;
    }
    return DropReason::Count;
}

} // namespace metaroce
