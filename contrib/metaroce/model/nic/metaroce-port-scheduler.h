/*
 * The NIC's transmit scheduler: which queue pair's packet goes next on a free port.
 *
 * Per port, a round-robin over the queue pairs that send on it, starting after the one that sent
 * last (the cursor). A bitmap per port marks the queue pairs that may have work there, so a pull
 * visits only those: a sender's HasWork() depends on nothing but its engine's state, which only
 * the NIC's calls into the engine change, and the NIC marks a queue pair again after each of
 * them (MarkMaybeWork). A slot found without work and not marked since still has none, so
 * skipping it pulls exactly what a scan of every queue pair would, in O(queue pairs with work)
 * instead of O(queue pairs).
 */
#ifndef METAROCE_PORT_SCHEDULER_H
#define METAROCE_PORT_SCHEDULER_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Round-robin over the queue pairs of each NIC port, visiting only those that may have
 * work.
 */
class MetaRocePortScheduler
{
  public:
    /// One queue pair as the scheduler sees it (the NIC's host of its EngineDriver).
    class Sender
    {
      public:
        virtual ~Sender() = default;
        /// False only when the sender certainly has no packet for `port` now.
        virtual bool HasWork(uint32_t port) const = 0;
        /**
         * The sender's next packet for `port`, framed, or null (only ACK/NAK/CNP with
         * `controlOnly`). The sender marks itself again (MarkMaybeWork): a pull changes its
         * engine.
         */
        virtual Ptr<Packet> Pull(uint32_t port, bool controlOnly) = 0;
    };

    /// (port, slot in that port's round-robin): where a sender is registered.
    using Slot = std::pair<uint32_t, uint32_t>;

    /// Adds a port with no senders; returns its index.
    uint32_t AddPort();

    /// Appends `sender` to `port`'s round-robin; returns its slot. The sender must outlive its
    /// registration (until Clear()).
    Slot Add(uint32_t port, Sender* sender);

    /// Marks the sender at `slots` as possibly having work on each of those ports: call after
    /// any call into its engine.
    void MarkMaybeWork(const std::vector<Slot>& slots);

    /// The next packet for `port` (only control packets with `controlOnly`), round-robin from
    /// the cursor, or null when no sender has one.
    Ptr<Packet> Pull(uint32_t port, bool controlOnly);

    /// Forgets every port and sender.
    void Clear();

  private:
    /// The round-robin of one port.
    struct PortRoundRobin
    {
        std::vector<Sender*> senders; ///< in the order they were added
        std::size_t cursor{0};        ///< the slot to try first
        /// One bit per slot of `senders`: that sender may have work for this port; a clear bit
        /// means it certainly has none.
        std::vector<uint64_t> maybeWork;
    };

    /// Round-robin over the marked slots of `port` in [from, end); the packet, or null.
    Ptr<Packet> PullFromSlots(uint32_t port, std::size_t from, std::size_t end, bool controlOnly);

    std::vector<PortRoundRobin> m_ports;
};

} // namespace ns3

#endif // METAROCE_PORT_SCHEDULER_H
