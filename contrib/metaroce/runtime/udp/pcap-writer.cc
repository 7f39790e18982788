#include "pcap-writer.h"

#include "ipv4-udp-head.h"

#include <algorithm>
#include <arpa/inet.h>
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
    const std::size_t total = kIpv4UdpHeadSize + payload;
    Ipv4UdpHead fields;
    fields.tos = ecnCe ? 0x03 : 0x00;
    fields.identification = static_cast<uint16_t>(m_packets);
    fields.dontFragment = true;
    fields.source = ntohl(src.sin_addr.s_addr);
    fields.destination = ntohl(dst.sin_addr.s_addr);
    fields.sourcePort = ntohs(src.sin_port);
    fields.destinationPort = ntohs(dst.sin_port);
    fields.udpPayload = static_cast<uint16_t>(payload);
    uint8_t head[kIpv4UdpHeadSize];
    WriteIpv4UdpHead(fields, head);

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
