/*
 * The NIC's transmit scheduler: which queue pair's packet goes next on a free port.
 *
 * Per port, a round-robin over the queue pairs that send on it, starting after the one that sent
 * last (the cursor). A bitmap per port marks the queue pairs that may have work there, so a pull
 * visits only those: a sender's HasWork() depends on nothing but its engine's state, which only
 * the NIC's calls into the engine change, and the NIC marks a queue pair again after each of
 * them. A slot found without work and not marked since still has none, so skipping it pulls
 * exactly what a scan of every queue pair would, in O(queue pairs with work) instead of
 * O(queue pairs). The NIC marks a queue pair with the work its engine reports right after the
 * call (MarkWork), which also clears the marks of ports it has nothing for; a sender that cannot
 * say marks itself with kMaybeWork, every port and kind.
 *
 * With control first (the NIC's ControlFirst attribute), a second round-robin per port, over the
 * queue pairs that may have an ACK, NAK or CNP ready (a second bitmap, marked with the first),
 * runs before the data round-robin: control leaves as soon as the port is free, as from a NIC
 * whose responder builds acknowledgements apart from the send queues' scheduling. Without it a
 * queue pair's ACK waits for that queue pair's turn, behind the data of every other one.
 *
 * With recovery first (the NIC's RecoveryFirst), a third round-robin, over the queue pairs that
 * may have recovery (a tail marker, a tail-loss probe, the retransmission of a proven loss),
 * runs after control and before the data round-robin, and pulls recovery only (spec 1.3, A42).
 * A pull in a PFC pause (control only) skips it: recovery is data.
 */
#ifndef METAROCE_PORT_SCHEDULER_H
#define METAROCE_PORT_SCHEDULER_H

#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/transport-engine.h"

#include <array>
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
        /// True only when the sender has an ACK, NAK or CNP ready for `port` now.
        virtual bool HasControlWork(uint32_t port) const = 0;
        /// False only when the sender certainly has no recovery for `port` now (a
        /// retransmission of a proven loss, a tail marker or probe), which its Pull() returns
        /// before new data.
        virtual bool HasRecoveryWork(uint32_t port) const = 0;
        /**
         * The sender's next packet for `port`, framed, or null (only ACK/NAK/CNP with
         * of the `kind` asked for). The sender marks itself again (MarkWork): a
         * pull changes its engine.
         */
        virtual Ptr<Packet> Pull(uint32_t port, metaroce::PullKind kind) = 0;

        /// True when the sender wants `port` again right after its last packet there, which
        /// began or continued a burst on one flow (TransportEngine::ContinuesBurst): the
        /// round-robin of new data stays with it. By default never.
        virtual bool ContinuesBurst(uint32_t /* port */) const
        {
            return false;
        }

      private:
        friend class MetaRocePortScheduler;
        /// The sender's marks on ports below 64, by kind, that the scheduler holds for certain:
        /// MarkWork writes only the bits that differ from what it is told. A mark held beyond
        /// these (SetControlFirst marks every sender) is a "maybe" that a pull clears when it
        /// finds no work; one of these never is missing, or work would go unmarked.
        metaroce::PortWork m_marks;
    };

    /// (port, slot in that port's round-robin): where a sender is registered.
    using Slot = std::pair<uint32_t, uint32_t>;

    /// Adds a port with no senders; returns its index.
    uint32_t AddPort();

    /// Appends `sender` to `port`'s round-robin, in the most recently freed slot if any
    /// (Remove()); returns its slot. The sender must outlive its registration (until Remove()
    /// or Clear()).
    Slot Add(uint32_t port, Sender* sender);

    /// Takes the sender at `slot` out of its port's round-robin: its marks are cleared and the
    /// slot is free for the next Add() on that port.
    void Remove(const Slot& slot);

    /// Work on every port of every kind: MarkWork with it marks a sender as maybe having work.
    static constexpr metaroce::PortWork kMaybeWork{~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};

    /**
     * Marks the sender at `slots` on each of those ports (below 64; others as maybe having work)
     * with the work its engine reports now (TransportEngine::WorkOnPorts: HasWork and, where those
     * round-robins run, HasControlWork and HasRecoveryWork), and clears the marks of the ports it
     * has none for. Call it after any call into its engine: asked then,
     * the engine's state is still in the cache, where a pull would find it cold, on every port,
     * only to learn that most have nothing (doc/performance.md).
     */
    /// Returns the ports (below 64) that had no sender marked (MayHaveWork) and now have one.
    uint64_t MarkWork(Sender& sender,
                      const std::vector<Slot>& slots,
                      const metaroce::PortWork& work);

    /// The next packet for `port` (only control packets with `controlOnly`), round-robin from
    /// the cursor, or null when no sender has one.
    Ptr<Packet> Pull(uint32_t port, bool controlOnly);

    /// False only when no sender of `port` may have work (no mark in its round-robin of any
    /// packet): a pull returns null, and reads no sender's marks, until MarkWork marks a sender
    /// there again.
    bool MayHaveWork(uint32_t port) const
    {
        return m_markedAny[port] != 0;
    }

    /// Forgets every port and sender.
    void Clear();

    /// Pulls control packets of every sender before any data (see above); off by default.
    void SetControlFirst(bool on);
    bool GetControlFirst() const;

    /// Pulls every sender's recovery before any sender's new data (after control, with control
    /// first; before other senders' control without); off here, on by the NIC's default.
    void SetRecoveryFirst(bool on);
    bool GetRecoveryFirst() const;

  private:
    /// The round-robin kinds, an index into m_maybe.
    static constexpr std::size_t kAny = 0;
    static constexpr std::size_t kControl = 1;
    static constexpr std::size_t kRecovery = 2;

    /// One round-robin over the senders of a port: where it goes on, who may have work.
    struct RoundRobin
    {
        std::size_t cursor{0}; ///< the slot to try first
        std::size_t kind{0};   ///< its bits: m_maybe[kind]
    };

    /// The senders of one port and its round-robins.
    struct Port
    {
        std::vector<Sender*> senders;      ///< in the order they were added (null: removed)
        std::vector<uint32_t> freeSlots;   ///< removed slots, the next Add()'s last first
        RoundRobin any{0, kAny};           ///< any packet
        RoundRobin control{0, kControl};   ///< control packets (with control first only)
        RoundRobin recovery{0, kRecovery}; ///< recovery (with recovery first only)
    };

    /// One turn of `rr` (the port's `any`, `control` or `recovery`) from its cursor, pulling
    /// `kind`; the packet, or null.
    Ptr<Packet> Turn(Port& port, uint32_t index, RoundRobin& rr, metaroce::PullKind kind);

    /// Round-robin over the marked slots of `rr` in [from, end); the packet, or null.
    Ptr<Packet> PullFromSlots(Port& port,
                              uint32_t index,
                              RoundRobin& rr,
                              std::size_t from,
                              std::size_t end,
                              metaroce::PullKind kind);

    /// MarkWork on a NIC of more than 64 ports, where the sender's m_marks cannot hold them all:
    /// every slot's marks written.
    uint64_t MarkEverySlot(const std::vector<Slot>& slots, const metaroce::PortWork& work);

    /// The bit word of `slot` of `port` in m_maybe[kind].
    uint64_t& Word(std::size_t kind, uint32_t port, std::size_t slot)
    {
        return m_maybe[kind][slot / 64 * m_ports.size() + port];
    }

    /// Sets or clears the mark of `slot` of `port` in m_maybe[kind], counting kAny's marks;
    /// true when that makes `port` go from no sender marked in kAny to one.
    bool SetMark(std::size_t kind, uint32_t port, std::size_t slot, bool marked)
    {
        uint64_t& word = Word(kind, port, slot);
        const uint64_t bit = uint64_t(1) << (slot % 64);
        const uint64_t next = marked ? word | bit : word & ~bit;
        const bool changed = next != word;
        word = next;
        if (kind != kAny || !changed)
        {
            return false;
        }
        m_markedAny[port] += marked ? 1 : -1;
        return marked && m_markedAny[port] == 1;
    }

    std::vector<Port> m_ports;
    /// Per round-robin kind, one bit per slot of each port's senders: that sender may have work
    /// of this kind; a clear bit means it certainly has none. Word w of port p is at
    /// [w * ports + p], so that one sender's bits on all ports (usually the same slot) share a
    /// cache line: marking a queue pair after every call into its engine read a separate array
    /// per port and kind, two cache misses per port in large fabrics (doc/performance.md).
    std::array<std::vector<uint64_t>, 3> m_maybe;
    /// Per port, the senders marked in m_maybe[kAny] (MayHaveWork without reading its words).
    std::vector<uint32_t> m_markedAny;

    bool m_controlFirst{false};
    bool m_recoveryFirst{false};
};

} // namespace ns3

#endif // METAROCE_PORT_SCHEDULER_H
