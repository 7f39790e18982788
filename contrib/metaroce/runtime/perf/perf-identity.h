/*
 * What one end of a metaroce-perf test tells the other about itself at setup, as RDMA peers
 * exchange it out of band before their queue pairs connect: the UDP address of every plane,
 * the UDP port it receives on and the source ports it sends from, its connection id (RoCEv2:
 * QP number), the PSN its paths start at, and (the server) the target buffer's address, length
 * and rkey.
 *
 * Connection ids, keys and initial PSNs are drawn at random per connection from the kernel's
 * generator (getrandom), as a RoCEv2 NIC picks QP numbers and starting PSNs, so that a sender
 * who did not see the setup cannot guess what a packet must carry to be accepted. The ids are
 * never 0 (RoCEv2: never 0, 1 or the multicast QP), nor is a key (0 names virtual memory).
 *
 * Each side reads the other's identity strictly (TakeIdentity): every key present, every
 * number in range for the transport, one unicast IPv4 address per plane.
 */
#ifndef METAROCE_RUNTIME_PERF_IDENTITY_H
#define METAROCE_RUNTIME_PERF_IDENTITY_H

#include "perf-control.h"
#include "perf-options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace metaroce::perf
{

/// What one side tells the other about itself.
struct Identity
{
    std::vector<std::string> udpAddrs; ///< per plane
    uint16_t udpPort{0};               ///< where it receives (and its fallback source port)
    uint16_t srcPortBase{0};           ///< the source ports it sends from besides udpPort:
    uint32_t srcPortCount{0};          ///<   [srcPortBase, srcPortBase + srcPortCount)
    uint32_t connection{0};            ///< MetaRoCE connection id or RoCEv2 QP number
    uint32_t initialPsn{0};            ///< the PSN its paths (its QP) start sending at
    uint32_t rkey{0};                  ///< its buffer's key (the server's: the WRITE target)
    uint64_t bufferAddr{0};            ///< server: the target buffer
    uint64_t bufferLength{0};
};

/// `count` bytes from the kernel's random generator; throws std::runtime_error.
void RandomBytes(void* out, std::size_t count);

/// This end's identity for `o`: its plane addresses and UDP port, the source ports its engine
/// sends from, and a connection id, key and initial PSN drawn at random.
Identity DrawIdentity(const PerfOptions& o, std::vector<std::string> udpAddrs);

/// Writes `id` into `m` (with the buffer's fields when `target`).
void PutIdentity(Message& m, const Identity& id, bool target);

/// Reads the peer's identity from `m` for a test of `o`'s transport and plane count (with the
/// buffer's fields when `target`); throws ControlError naming the first bad key.
Identity TakeIdentity(const Message& m, const PerfOptions& o, bool target);

/// The keys PutIdentity() writes (for Message::Expect).
std::vector<std::string> IdentityKeys(bool target);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_IDENTITY_H
