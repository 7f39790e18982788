/*
 * Seeded impairments of the UDP runtime's transmit side, for tests: loss, duplication,
 * reordering and delay, drawn per packet as the loopback harness draws them (every draw made
 * for every packet, so that one rate does not shift the others' sequence). Each process
 * impairs what it sends, so a two-process run with --loss=1 loses about 1% of the packets in
 * each direction, as the harness's channel does.
 *
 * A delayed (or reordered) packet is copied and held until its release time; the driver's
 * event loop wakes for the earliest one. The impairments are the driver's, not the kernel's:
 * netem on a veth would do the same below the socket, but needs the qdisc and root.
 */
#ifndef METAROCE_RUNTIME_FAULT_INJECTOR_H
#define METAROCE_RUNTIME_FAULT_INJECTOR_H

#include "engine-types.h"

#include <cstdint>
#include <optional>
#include <queue>
#include <random>
#include <vector>

namespace metaroce::udp
{

/// What to inject; every rate is a probability in [0, 1].
struct FaultConfig
{
    double lossRate{0};
    double duplicateRate{0};
    double reorderRate{0}; ///< probability a packet is held back by up to reorderDelayNs
    double corruptRate{0}; ///< probability one bit of a packet is flipped (drawn only when > 0)
    TimeNs reorderDelayNs{50'000};
    TimeNs delayNs{0}; ///< added to every packet
    uint64_t seed{1};

    /// True when any impairment is configured.
    bool Active() const
    {
        return lossRate > 0 || duplicateRate > 0 || reorderRate > 0 || delayNs > 0 ||
               corruptRate > 0;
    }

    /// Throws std::invalid_argument naming the first rate outside [0, 1].
    void Validate() const;
};

/// The fate of one transmitted packet.
struct FaultDecision
{
    bool drop{false};
    int copies{1};    ///< 2 when duplicated
    TimeNs holdNs{0}; ///< 0: send now
    /// Corrupted: flip bit (corruptDraw mod the datagram's bits); nullopt: intact.
    std::optional<uint64_t> corruptDraw;
};

/// What the injector did.
struct FaultStats
{
    uint64_t dropped{0};
    uint64_t duplicated{0};
    uint64_t reordered{0};
    uint64_t delayed{0};
    uint64_t corrupted{0};
};

/// A copy of a packet waiting for its release time.
struct HeldPacket
{
    TimeNs release{0};
    uint64_t seq{0};
    uint16_t port{0};
    uint16_t srcPort{0};
    std::vector<uint8_t> bytes;

    bool operator>(const HeldPacket& o) const
    {
        return release != o.release ? release > o.release : seq > o.seq;
    }
};

/// Draws fates and holds delayed packets.
class FaultInjector
{
  public:
    explicit FaultInjector(const FaultConfig& config);

    /// Draws the fate of the next packet.
    FaultDecision Decide();

    /// Holds a copy of a datagram until `release`.
    void Hold(TimeNs release, uint16_t port, uint16_t srcPort, std::vector<uint8_t> bytes);

    /// Release time of the earliest held packet, or kNever.
    TimeNs NextRelease() const;

    /// Removes and returns the earliest held packet; only when NextRelease() <= now.
    HeldPacket PopReleased();

    const FaultStats& Stats() const
    {
        return m_stats;
    }

  private:
    FaultConfig m_config;
    std::mt19937_64 m_rng;
    std::priority_queue<HeldPacket, std::vector<HeldPacket>, std::greater<>> m_held;
    uint64_t m_seq{0};
    FaultStats m_stats;
};

} // namespace metaroce::udp

#endif // METAROCE_RUNTIME_FAULT_INJECTOR_H
