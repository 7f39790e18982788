/*
 * The forwarding table of a metaroce switch: longest-prefix match over IPv4 destinations, each
 * prefix leading to an ECMP group of ports, and a seeded 5-tuple hash choosing one member.
 *
 * Why a hash of the 5-tuple: in a RoCE fabric the only per-packet path control a sender has is
 * the UDP source port (RoCEv2 sets it per queue pair; MetaRoCE gives each logical path its own,
 * the path "entropy"). The switch must map the same 5-tuple to the same port every time (no
 * reordering inside a path) and spread different source ports evenly. Each switch mixes in its
 * own seed, so that a second tier does not re-use the first tier's choice (hash polarisation:
 * with one shared hash, all flows that a leaf sent to spine 0 would hash alike again there).
 *
 * The hash is a chain of 64-bit finalisers (MurmurHash3's fmix64) over the seed and two words
 * packing (src, dst) and (protocol, sport, dport); the member is hash % (live group size).
 *
 * Link state: a port marked down leaves every group it belongs to; a group with no live member
 * is treated as withdrawn, so the lookup falls back to the next shorter matching prefix (as a
 * routing protocol would), and only if none is left the packet is dropped as "port-down" (a
 * route existed but all its ports are down) or "no-route" (nothing matched). Removing a member
 * re-hashes flows of the other members too (modulo, not consistent hashing), which is also
 * what most switch ASICs do without resilient hashing.
 *
 * Adding the same (prefix, port) pair twice gives that port twice the weight (WCMP).
 */
#ifndef METAROCE_SWITCH_FIB_H
#define METAROCE_SWITCH_FIB_H

#include "ns3/ipv4-address.h"
#include "ns3/packet.h"

#include <array>
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <vector>

namespace ns3
{

/// The fields an ECMP hash reads. Ports are 0 for protocols other than UDP and TCP.
struct MetaRoceFlowKey
{
    uint32_t src{0};
    uint32_t dst{0};
    uint8_t protocol{0};
    uint16_t srcPort{0};
    uint16_t dstPort{0};
};

/// The seeded ECMP hash of a 5-tuple (see the file comment).
uint64_t MetaRoceEcmpHash(const MetaRoceFlowKey& key, uint64_t seed);

/**
 * What the switch needs from an IPv4 packet, read straight from its bytes without building
 * header objects (that is the per-packet fast path; headers are only rewritten to mark CE).
 */
struct MetaRocePacketInfo
{
    MetaRoceFlowKey key;
    uint8_t tos{0};
    uint8_t ttl{0};
    uint32_t ipHeaderSize{0};  ///< IHL x 4
    uint32_t ipTotalLength{0}; ///< IPv4 total length field
    uint32_t l4Payload{0};     ///< bytes after the UDP header (after IPv4 if not UDP)

    /// The ECN field (the low two bits of TOS): 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    uint8_t Ecn() const
    {
        return tos & 0x3;
    }
};

/**
 * Parses the IPv4 (and UDP) header at the start of `packet` into `info`. Returns false for
 * anything that is not a sane IPv4 datagram: too short, version not 4, IHL below 5, a total
 * length below the header or beyond the packet.
 */
bool MetaRoceParseIpv4(Ptr<const Packet> packet, MetaRocePacketInfo& info);

/**
 * The same from bytes already copied out: `b` holds the first `n` bytes of a packet of
 * `packetSize` bytes (at least the IPv4 header and the UDP ports for the ports to be read).
 */
bool MetaRoceParseIpv4(const uint8_t* b, uint32_t n, uint32_t packetSize, MetaRocePacketInfo& info);

/**
 * \ingroup metaroce
 * \brief IPv4 longest-prefix-match table with ECMP groups and per-port link state.
 */
class MetaRoceFib
{
  public:
    /// Outcome of a lookup.
    enum class Status
    {
        OK,       ///< `port` is the chosen egress
        NO_ROUTE, ///< no prefix matched the destination
        ALL_DOWN, ///< prefixes matched, but every port of every matching group is down
    };

    /// A lookup result.
    struct Result
    {
        Status status{Status::NO_ROUTE};
        uint32_t port{0};
    };

    /**
     * Adds `port` to the ECMP group of prefix dst/mask (created on first use).
     * The mask must be contiguous; the host bits of dst are ignored.
     */
    void AddRoute(Ipv4Address dst, Ipv4Mask mask, uint32_t port);

    /// Marks a port up or down; down ports leave all groups until marked up again.
    void SetPortUp(uint32_t port, bool up);

    /// True unless the port was marked down.
    bool IsPortUp(uint32_t port) const;

    /// Longest-prefix match on key.dst, then the seeded hash over the live members, or with
    /// `byDestination` the destination address modulo their number (destination-mod-k).
    Result Lookup(const MetaRoceFlowKey& key, uint64_t seed, bool byDestination = false) const;

    /**
     * The ECMP group a lookup for `dst` would hash over: the live members of the longest
     * matching prefix that has any (in the order added; a WCMP port appears once per weight).
     * Empty when nothing matches or every matching group is down.
     */
    std::vector<uint32_t> GetNextHops(Ipv4Address dst) const;

    /// Number of (prefix, port) entries added.
    uint32_t GetNRoutes() const;

  private:
    /// One prefix: its members as added, and those whose port is up (inline: a lookup reads
    /// them without another cache miss).
    struct Group
    {
        std::vector<uint32_t> members;
        boost::container::small_vector<uint32_t, 8> live;
    };

    /// The groups of one prefix length, sorted by prefix: a lookup is a binary search over a
    /// small contiguous array that stays in cache, where a hash table's nodes do not.
    struct PrefixTable
    {
        std::vector<uint32_t> prefixes;
        std::vector<Group> groups; ///< groups[i] is the group of prefixes[i]

        /// The group of `prefix`, or nullptr.
        const Group* Find(uint32_t prefix) const;
        /// The group of `prefix`, made empty if new.
        Group& FindOrAdd(uint32_t prefix);
    };

    void RebuildLive(Group& g) const;
    /// The longest matching group with a live member; `status` says why there is none.
    const Group* FindLive(uint32_t dst, Status& status) const;

    /// Groups by prefix length (index 0..32), keyed by the masked destination.
    std::array<PrefixTable, 33> m_byLength;
    std::vector<uint8_t> m_lengths; ///< prefix lengths in use, longest first
    std::vector<bool> m_portDown;   ///< indexed by port; missing = up
    uint32_t m_nRoutes{0};
};

} // namespace ns3

#endif // METAROCE_SWITCH_FIB_H
