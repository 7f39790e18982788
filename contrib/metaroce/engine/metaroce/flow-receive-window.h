/*
 * The receiver's view of one flow: its cumulative point and the 256-bit SACK bitvector
 * (spec 2.5).
 *
 * Every flow carries its own ordered FSN sequence and follows one route, so packets of a flow
 * arrive in order unless lost. The receiver therefore only has to remember which FSNs above the
 * cumulative point it has seen; a hole below a received FSN is a loss, and the sender learns of
 * it from the bitvector in the next ACK.
 *
 * The sender never retransmits a FSN: lost data goes out again under a fresh FSN, possibly on
 * another flow. To let the cumulative point pass FSNs that will never arrive, every packet
 * carries the sender's ack floor, the lowest FSN it still waits for; the window jumps to it.
 */
#ifndef METAROCE_ENGINE_FLOW_RECEIVE_WINDOW_H
#define METAROCE_ENGINE_FLOW_RECEIVE_WINDOW_H

#include "metaroce-wire.h"

#include <array>
#include <bitset>
#include <cstdint>

namespace metaroce
{

/// Receive-side sequence state of one flow.
class FlowReceiveWindow
{
  public:
    /// What Observe() made of a FSN.
    enum class Verdict
    {
        New,         ///< first arrival, inside the window
        Duplicate,   ///< already seen, or below the cumulative point
        OutOfWindow, ///< beyond cumulative + 256: the sender broke its window
    };

    /**
     * Records the arrival of `fsn` with the sender's `floor`. The floor is applied first (it can
     * only move the cumulative point forward); then the FSN is classified and, when new,
     * recorded. Returns the verdict; OutOfWindow leaves the window unchanged.
     */
    Verdict Observe(uint64_t fsn, uint64_t floor);

    FlowReceiveWindow() = default;

    /// A window expecting `first` next: nothing below it will be received (spec 2.5).
    explicit FlowReceiveWindow(uint64_t first)
        : m_cumulative(first)
    {
    }

    /// Most FSNs a sender's floor may move the window at once (A51): the FSNs a flow can lose
    /// in a row while the receiver hears nothing of it (hundreds of seconds of a down flow's
    /// probes), far fewer than the 2^31 a 32-bit wire FSN can reach.
    static constexpr uint64_t kMaxFloorAdvance = uint64_t{1} << 24;

    /// True when `floor` moves the cumulative point by at most kMaxFloorAdvance (spec 5.8).
    bool FloorFits(uint64_t floor) const
    {
        return floor <= m_cumulative || floor - m_cumulative <= kMaxFloorAdvance;
    }

    /// Checks a FSN without recording it (same classification as Observe, floor ignored).
    Verdict Classify(uint64_t fsn) const;

    /// The next FSN expected in order: every FSN below it was received or abandoned.
    uint64_t Cumulative() const
    {
        return m_cumulative;
    }

    /// True when some FSN above the cumulative point has been received (there is a hole).
    bool HasGap() const;

    /// The SACK bitvector: bit i set when FSN Cumulative()+1+i has been received.
    std::bitset<kSackBits> Sack() const;

    /// Its first 64 bits (bit i: FSN Cumulative()+1+i), without building the whole vector.
    uint64_t SackLow() const
    {
        return m_bits[0];
    }

  private:
    void Advance(uint64_t to);
    /// Whether FSN m_cumulative + `offset` (1 to kSackBits) has arrived.
    bool Test(uint64_t offset) const;
    void Set(uint64_t offset);
    /// Received FSNs directly above the cumulative point, in a row.
    uint64_t ReceivedRun() const;

    static constexpr std::size_t kWords = kSackBits / 64;
    uint64_t m_cumulative{0};
    /// Bit k: FSN m_cumulative + 1 + k received, the SACK's own layout. FSN m_cumulative itself
    /// needs no bit: had it arrived, the cumulative point would have moved past it. 256 bits
    /// rather than 257 keep a responder's per-flow state at 64 bytes (doc/performance.md).
    SackWords m_bits{};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_FLOW_RECEIVE_WINDOW_H
