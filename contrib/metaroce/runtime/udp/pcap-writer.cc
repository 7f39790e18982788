#include "pcap-writer.h"

#include "ipv4-udp-head.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>
#include <vector>

namespace metaroce::udp
{

namespace
{

constexpr uint32_t kMagicNanoseconds = 0xa1b23c4d;
constexpr uint32_t kLinkTypeRaw = 101;

} // namespace

PcapWriter::PcapWriter(const std::string& path, uint32_t snapLength)
    : m_flow(path)
    , m_temporary(path + ".tmp." + std::to_string(getpid()))
    , m_snapLength(snapLength == 0 ? 262144 : snapLength)
{
    const int fd = open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    m_file = fd < 0 ? nullptr : fdopen(fd, "wb");
    if (m_file == nullptr)
    {
        const int saved = errno;
        if (fd >= 0)
        {
            close(fd);
            unlink(m_temporary.c_str());
        }
        throw std::runtime_error("cannot write capture " + path + ": " + std::strerror(saved));
    }
    // Global header, host byte order (readers detect it from the magic).
    const uint32_t words[] = {kMagicNanoseconds, 0x00040002, 0, 0, m_snapLength, kLinkTypeRaw};
    // The version is two u16 (major 2, minor 4): written as one u32 in little-endian order.
    Put(words, sizeof(words));
}

PcapWriter::~PcapWriter()
{
    if (m_file != nullptr)
    {
        std::fclose(m_file);
        unlink(m_temporary.c_str());
    }
}

void
PcapWriter::Put(const void* data, std::size_t n)
{
    if (m_error == 0 && std::fwrite(data, 1, n, m_file) != n)
    {
        m_error = errno != 0 ? errno : EIO;
    }
}

void
PcapWriter::Finish()
{
    if (m_file == nullptr)
    {
        return;
    }
    if (std::fflush(m_file) != 0 && m_error == 0)
    {
        m_error = errno;
    }
    if (std::fclose(m_file) != 0 && m_error == 0)
    {
        m_error = errno;
    }
    m_file = nullptr;
    if (m_error == 0 && std::rename(m_temporary.c_str(), m_flow.c_str()) != 0)
    {
        m_error = errno;
    }
    if (m_error != 0)
    {
        unlink(m_temporary.c_str());
        throw std::runtime_error("cannot write capture " + m_flow + ": " + std::strerror(m_error));
    }
}

void
PcapWriter::Write(const sockaddr_in& src,
                  const sockaddr_in& dst,
                  bool ecnCe,
                  const iovec* iov,
                  int iovCount)
{
    if (m_file == nullptr || m_error != 0)
    {
        return;
    }
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
    Put(record, sizeof(record));
    std::size_t left = kept;
    const std::size_t headBytes = std::min(left, sizeof(head));
    Put(head, headBytes);
    left -= headBytes;
    for (int i = 0; i < iovCount && left > 0; ++i)
    {
        const std::size_t n = std::min(left, iov[i].iov_len);
        if (n > 0)
        {
            Put(iov[i].iov_base, n);
        }
        left -= n;
    }
    ++m_packets;
}

} // namespace metaroce::udp
