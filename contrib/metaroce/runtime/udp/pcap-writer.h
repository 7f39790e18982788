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
 *
 * The file is written under a temporary name beside it ("<path>.tmp.<pid>") and renamed to
 * its name by Finish(), so that the name only ever holds a whole capture. A write, close or
 * rename error is reported by Finish() naming the file; a writer destroyed unfinished removes
 * its temporary file.
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
    /// Creates the temporary file of `path` (never following a link or reusing a file);
    /// throws std::runtime_error naming `path`. `snapLength` caps the bytes kept of each packet
    /// (headers included); 0 keeps them whole.
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

    /// Flushes and closes the file and renames it to its path; throws std::runtime_error
    /// naming the path on any error of the writes, the close or the rename. Once only; later
    /// writes are ignored.
    void Finish();

    uint64_t Packets() const
    {
        return m_packets;
    }

  private:
    /// Writes `n` bytes, remembering the first error.
    void Put(const void* data, std::size_t n);

    std::string m_flow;
    std::string m_temporary;
    std::FILE* m_file{nullptr};
    int m_error{0}; ///< errno of the first failed write, 0: none
    uint32_t m_snapLength;
    uint64_t m_packets{0};
};

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_PCAP_WRITER_H
