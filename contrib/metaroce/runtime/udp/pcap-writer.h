/*
 * Captures of the UDP runtime: every datagram a driver sends or receives, written as a
 * nanosecond pcap file of link type LINKTYPE_RAW (101: the packet starts with its IPv4
 * header). The socket API hands the driver only the UDP payload, so the IPv4 and UDP headers
 * are synthesised from what the kernel was asked to use (sent) or reported (received: the
 * source address and port from recvmsg, the CE mark from IP_RECVTOS): addresses, ports, the
 * ECN field and lengths are the real ones; the IP identification counts captured packets,
 * TTL is 64, the UDP checksum is 0 ("none", legal for IPv4). Wireshark and tshark then decode
 * IPv4 -> UDP -> MetaRoCE (port 4792, with the project's dissector) or InfiniBand (4791).
 *
 * A packet dropped by the fault injector is not captured: the capture is the wire.
 */
#ifndef METAROCE_RUNTIME_PCAP_WRITER_H
#define METAROCE_RUNTIME_PCAP_WRITER_H

#include <cstdint>
#include <cstdio>
#include <netinet/in.h>
#include <string>
#include <sys/uio.h>

namespace metaroce::udp
{

/// Writes a LINKTYPE_RAW pcap file.
class PcapWriter
{
  public:
    /// Creates (truncates) `path`; throws std::runtime_error naming it. `snapLength` caps the
    /// bytes kept of each packet (headers included); 0 keeps them whole.
    PcapWriter(const std::string& path, uint32_t snapLength);
    ~PcapWriter();
    PcapWriter(const PcapWriter&) = delete;
    PcapWriter& operator=(const PcapWriter&) = delete;

    /// Writes one UDP datagram from `src` to `dst`, its payload gathered from `iov`.
    void Write(const sockaddr_in& src,
               const sockaddr_in& dst,
               bool ecnCe,
               const iovec* iov,
               int iovCount);

    uint64_t Packets() const
    {
        return m_packets;
    }

  private:
    std::FILE* m_file{nullptr};
    uint32_t m_snapLength;
    uint64_t m_packets{0};
};

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_PCAP_WRITER_H
