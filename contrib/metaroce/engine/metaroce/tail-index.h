/*
 * The connection's DATA transmissions in transmission order, for the tail-loss probe (spec 4.5).
 *
 * FindTail() (tail-loss-probe.h) walks every flow of a connection, 64 and more, and at the end
 * of every transfer the requester asks for the tail after each event (doc/performance.md: 2,000
 * instructions a call, 3% of a 64-host fabric run). The tail is the oldest DATA packet in flight
 * that no acknowledged packet was sent after and whose data is still needed, and each of those
 * conditions, once false, stays false: the newest acknowledged transmission only moves forward,
 * a packet acknowledged, declared lost or released never flies again (a retransmission is a new
 * transmission), and acknowledged data is never needed again. So a FIFO of the transmissions,
 * pruned from the front of those that can no longer be the tail, has the tail at or near its
 * front. NextTimeoutByScan() keeps calling FindTail(), and the loopback tests check after every
 * event that both agree.
 */
#ifndef METAROCE_ENGINE_TAIL_INDEX_H
#define METAROCE_ENGINE_TAIL_INDEX_H

#include "../common/ring.h"
#include "flow-table.h"
#include "loss-detection.h"
#include "metaroce-flow.h"
#include "send-queue.h"
#include "tail-loss-probe.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace metaroce
{

/// DATA transmissions in transmission order, pruned of those that can never be the tail again.
class TailIndex
{
  public:
    /// A DATA packet (not a PROBE) was sent on `flow` under `fsn`; transmissions come in order.
    /// A full FIFO is pruned of its settled front before it grows, which keeps it near what is
    /// in flight at a cost of about one look-up per transmission.
    void OnSent(uint16_t flow, uint64_t fsn, const FlowTable& flows, const RackState& rack)
    {
        if (m_sent.full())
        {
            PruneSettled(flows, rack);
        }
        m_sent.push_back(Entry{fsn, flow});
    }

    /// FindTail(flows, queue, rack), from the front of the FIFO, which it prunes.
    std::optional<Tail> Find(const FlowTable& flows, const SendQueue& queue, const RackState& rack);

  private:
    /// Drops the front entries settled for good (no longer in flight, or with an acknowledged
    /// packet sent after them), without asking the queue.
    void PruneSettled(const FlowTable& flows, const RackState& rack);

    struct Entry
    {
        uint64_t fsn;
        uint16_t flow;
    };

    /// The entry's packet while the flow still holds it, else null.
    static const SentPacket* Lookup(const FlowTable& flows, const Entry& e);

    /// True while `p` is in flight and no acknowledged packet was sent after it.
    static bool Unsettled(const SentPacket* p, const RackState& rack)
    {
        return p != nullptr && p->state == SentPacket::State::InFlight && !rack.SentAfter(*p);
    }

    Ring<Entry> m_sent;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_TAIL_INDEX_H
