#include "pcap-writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <vector>

namespace metaroce::udp
{

namespace
{

constexpr uint32_t kMagicNanoseconds = 0xa1b23c4d;
constexpr uint32_t kLinkTypeRaw = 101;
constexpr std::size_t kIpv4Header = 20;
constexpr std::size_t kUdpHeader = 8;

void
Put16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

uint16_t
Ipv4Checksum(const uint8_t* header)
{
    uint32_t sum = 0;
    for (std::size_t i = 0; i < kIpv4Header; i += 2)
    {
        sum += static_cast<uint32_t>(header[i] << 8 | header[i + 1]);
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

} // namespace

PcapWriter::PcapWriter(const std::string& path, uint32_t snapLength)
    : m_snapLength(snapLength == 0 ? 262144 : snapLength)
{
    m_file = std::fopen(path.c_str(), "wb");
    if (m_file == nullptr)
    {
        throw std::runtime_error("cannot write capture " + path + ": " + std::strerror(errno));
    }
    // Global header, host byte order (readers detect it from the magic).
    const uint32_t words[] = {kMagicNanoseconds, 0x00040002, 0, 0, m_snapLength, kLinkTypeRaw};
    // The version is two u16 (major 2, minor 4): written as one u32 in little-endian order.
    std::fwrite(words, sizeof(words), 1, m_file);
}

PcapWriter::~PcapWriter()
{
    std::fclose(m_file);
}

void
PcapWriter::Write(const sockaddr_in& src,
                  const sockaddr_in& dst,
                  bool ecnCe,
                  const iovec* iov,
                  int iovCount)
{
    std::size_t payload = 0;
    for (int i = 0; i < iovCount; ++i)
    {
        payload += iov[i].iov_len;
    }
    const std::size_t total = kIpv4Header + kUdpHeader + payload;
    uint8_t head[kIpv4Header + kUdpHeader] = {};
    head[0] = 0x45;
    head[1] = ecnCe ? 0x03 : 0x00;
    Put16(head + 2, static_cast<uint16_t>(total));
    Put16(head + 4, static_cast<uint16_t>(m_packets));
    Put16(head + 6, 0x4000); // don't fragment
    head[8] = 64;
    head[9] = IPPROTO_UDP;
    std::memcpy(head + 12, &src.sin_addr, 4);
    std::memcpy(head + 16, &dst.sin_addr, 4);
    Put16(head + 10, Ipv4Checksum(head));
    std::memcpy(head + 20, &src.sin_port, 2); // already in network order
    std::memcpy(head + 22, &dst.sin_port, 2);
    Put16(head + 24, static_cast<uint16_t>(kUdpHeader + payload));

    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint32_t kept = static_cast<uint32_t>(std::min<std::size_t>(total, m_snapLength));
    const uint32_t record[] = {static_cast<uint32_t>(ts.tv_sec),
                               static_cast<uint32_t>(ts.tv_nsec),
                               kept,
                               static_cast<uint32_t>(total)};
    std::fwrite(record, sizeof(record), 1, m_file);
    std::size_t left = kept;
    const std::size_t headBytes = std::min(left, sizeof(head));
    std::fwrite(head, headBytes, 1, m_file);
    left -= headBytes;
    for (int i = 0; i < iovCount && left > 0; ++i)
    {
        const std::size_t n = std::min(left, iov[i].iov_len);
        if (n > 0)
        {
            std::fwrite(iov[i].iov_base, n, 1, m_file);
        }
        left -= n;
    }
    ++m_packets;
}

} // namespace metaroce::udp
