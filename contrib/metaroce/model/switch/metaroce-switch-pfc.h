/*
 * Traffic classes and PFC frames of the metaroce fabric, shared by the switch and the host NIC.
 *
 * Traffic classes. A port has two egress classes served in strict priority: CONTROL before
 * DATA, so that ACKs, NAKs, CNPs and probes are never stuck behind a full data queue. A packet
 * belongs to CONTROL when its DSCP is CS6 or CS7: the NIC marks its ACKs, NAKs, CNPs and probes
 * CS6, a trimming switch marks what it trimmed CS6, PFC frames are CS7. Optionally, for senders
 * that do not mark, a packet whose L4 payload (the UDP payload, or the IPv4 payload of a
 * non-UDP datagram) is at most ControlMaxPayload bytes is CONTROL too; that rule is off by
 * default (0), because it would let the short last segment of a message overtake the segments
 * before it, and RoCEv2's go-back-N takes any reordering for loss. Everything else is DATA. Both
 * ends of a link must classify alike for PFC to make sense, which is why the rule is a free
 * function here and not buried in the switch.
 *
 * PFC frames. IEEE 802.1Qbb PFC is a MAC control frame (EtherType 0x8808), but ns-3.37's
 * point-to-point device carries IPv4 and IPv6 only (MetaRoceNetDevice: IPv4). A metaroce PFC frame
 * is therefore an IPv4 datagram that never leaves its link:
 *
 *   IPv4 header (20 bytes): TOS = CS7 (0xE0, not ECN-capable), total length 28, DF, TTL 1,
 *       protocol 253 (RFC 3692 experimental), source 0.0.0.0, destination 255.255.255.255
 *   PFC header (8 bytes, big-endian):
 *     0  u16 magic 0x4D50 ("MP"), so that other users of protocol 253 are not mistaken for PFC
 *     2  u8  opcode: 1 = PAUSE, 2 = RESUME
 *     3  u8  class: 0 = CONTROL, 1 = DATA
 *     4  u16 quanta: pause time in units of 512 bit times at the receiving link's rate, as in
 *            802.1Qbb (PAUSE only; 0 in RESUME). A PAUSE with quanta 0 means RESUME.
 *     6  u16 reserved, 0
 *
 * A receiver of PAUSE stops sending packets of that class on that link until it receives a
 * RESUME or until the quanta have elapsed, whichever comes first; the sender of a PAUSE
 * refreshes it before it expires while its ingress stays above Xon. So a lost RESUME (error
 * models apply to PFC frames like to any packet) costs at most one pause time, never a
 * deadlock. PFC frames are sent ahead of both classes and are never paused themselves.
 */
#ifndef METAROCE_SWITCH_PFC_H
#define METAROCE_SWITCH_PFC_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstdint>
#include <optional>

namespace ns3
{

/// Egress classes of a metaroce port, in priority order (lower value is served first).
enum MetaRoceTrafficClass : uint8_t
{
    METAROCE_CLASS_CONTROL = 0, ///< ACK/NAK/CNP/probe: small or DSCP CS6/CS7
    METAROCE_CLASS_DATA = 1,    ///< everything else; the only class that is ECN-marked
};

/// Number of egress classes per port.
constexpr uint32_t kMetaRoceNumClasses = 2;

/// IPv4 protocol number of metaroce PFC frames (RFC 3692 experimental).
constexpr uint8_t kMetaRocePfcProtocol = 253;

/// Default largest L4 payload classified as CONTROL without a DSCP mark: 0, the rule is off.
constexpr uint32_t kMetaRoceControlMaxPayload = 0;

/// DSCP of CONTROL packets the NIC sends and the switch trims (CS6, network control).
constexpr uint8_t kMetaRoceControlDscp = 48;

/**
 * The class of a packet, from its IPv4 TOS byte and L4 payload size (see the file comment).
 * \param tos the IPv4 TOS byte (DSCP in the high six bits)
 * \param l4Payload bytes after the UDP header (or after the IPv4 header if not UDP)
 * \param controlMaxPayload largest payload classified CONTROL by size
 */
MetaRoceTrafficClass MetaRoceClassify(uint8_t tos, uint32_t l4Payload, uint32_t controlMaxPayload);

/// A decoded PFC frame.
struct MetaRocePfcFrame
{
    uint8_t cls{METAROCE_CLASS_DATA}; ///< the paused class
    bool pause{true};                 ///< PAUSE (true) or RESUME (false)
    uint16_t quanta{0};               ///< pause time in 512-bit-time units (PAUSE only)
};

/**
 * \ingroup metaroce
 * \brief The 8-byte PFC header that follows the IPv4 header of a PFC frame.
 */
class MetaRocePfcHeader : public Header
{
  public:
    static constexpr uint16_t MAGIC = 0x4D50;
    static constexpr uint8_t OP_PAUSE = 1;
    static constexpr uint8_t OP_RESUME = 2;
    static constexpr uint32_t SIZE = 8;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /// Reads the fields as they are; validation is ParsePfcFrame's job.
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint16_t m_magic{MAGIC};
    uint8_t m_opcode{OP_PAUSE};
    uint8_t m_class{METAROCE_CLASS_DATA};
    uint16_t m_quanta{0};
    uint16_t m_reserved{0};
};

/**
 * Builds a PFC frame (IPv4 + PFC header; the device counts the PPP header on the wire).
 * \param cls the class to pause or resume
 * \param pause PAUSE if true, RESUME if false
 * \param quanta pause time in 512-bit-time units (ignored for RESUME)
 */
Ptr<Packet> MakePfcFrame(uint8_t cls, bool pause, uint16_t quanta = 0xFFFF);

/**
 * Decodes a PFC frame from a packet that starts with its IPv4 header (as a device's receive
 * callback hands it over). Returns nothing if the packet is not a well-formed metaroce PFC
 * frame: another protocol, wrong magic, unknown opcode or class, non-zero reserved field. A
 * PAUSE with quanta 0 is returned as a RESUME.
 */
std::optional<MetaRocePfcFrame> ParsePfcFrame(Ptr<const Packet> packet);

/// True if the packet (starting with its IPv4 header) carries IPv4 protocol 253.
bool IsPfcProtocol(Ptr<const Packet> packet);

/// How long a PAUSE of `quanta` lasts on a link of rate `rate` (quanta x 512 bit times).
Time PfcQuantaToTime(uint16_t quanta, DataRate rate);

} // namespace ns3

#endif // METAROCE_SWITCH_PFC_H
