/*
 * Flow selection (spec 6.2): which flow the next packet of a connection takes on a given port.
 *
 * The NIC serves each port when it is free and asks the connection for a packet for that port,
 * so the plane is chosen by whichever port has capacity - the NIC alone picks the plane - and
 * the selector only has to spray over the flows of that plane. Pluggable like congestion
 * control. The default sprays over flows that have window room, preferring flows that are Up
 * and whose last ACK echoed no congestion, so marked flows are steered around; with entropy
 * recycling (MetaRoceConfig::entropyRecycling, on by default) it reuses first the flows whose
 * packets came back without a mark, one packet per packet acknowledged clean: each flow then
 * carries what its route delivers, and a route that queues or marks loses its share to
 * routes that do not.
 */
#ifndef METAROCE_ENGINE_FLOW_SELECTOR_H
#define METAROCE_ENGINE_FLOW_SELECTOR_H

#include "../metaroce/flow-table.h"

#include <memory>
#include <vector>

namespace metaroce
{

/// Interface of a flow selection policy.
class FlowSelector
{
  public:
    virtual ~FlowSelector() = default;
    virtual const char* Name() const = 0;

    /**
     * Picks one of the flows of `port` (FlowTable::OfPort) for a packet of `bytes`, or
     * returns -1 when none may send now. A flow never used is not made (FlowTable::Find is
     * null): it is Up, unmarked and empty.
     */
    virtual int Select(const FlowTable& flows,
                       uint16_t port,
                       uint32_t bytes,
                       uint32_t maxPackets) = 0;

    /// An ACK of `flow` (of `flows`) acknowledged `ackedPackets` in-flight DATA packets and
    /// echoed `ceCount` marks: what the selector may learn of the flow's route (none by default).
    virtual void OnAck(const FlowTable& /*flows*/,
                       const Flow& /*flow*/,
                       uint32_t /*ackedPackets*/,
                       uint32_t /*ceCount*/)
    {
    }

    virtual std::unique_ptr<FlowSelector> Clone() const = 0;
};

/**
 * Spraying (spec 6.2). With entropy recycling (the table's configuration), a flow earns a
 * credit for every packet of it that an ACK acknowledges without a mark, and credits are spent
 * first, round-robin over the port's credited flows that are still clear and have room; a
 * marked ACK, or the flow's move to a new route (its epoch), voids the flow's credits. Then,
 * and always without recycling, round-robin: flows that are Up, unmarked and have room first,
 * then any flow that is not Down and has room. Recycling keeps a connection's packets on the
 * routes that delivered them cleanly, each route carrying what it returns, while a route that
 * marks or queues returns fewer credits and its share goes to the round-robin, which offers it
 * to every clear flow. State: a cursor per port, and with recycling three bytes per flow made
 * at the first clean ACK.
 */
class SprayFlowSelector : public FlowSelector
{
  public:
    const char* Name() const override;
    int Select(const FlowTable& flows, uint16_t port, uint32_t bytes, uint32_t maxPackets) override;
    void OnAck(const FlowTable& flows,
               const Flow& flow,
               uint32_t ackedPackets,
               uint32_t ceCount) override;
    std::unique_ptr<FlowSelector> Clone() const override;

    /// Credits flow `id` holds now (tests).
    uint32_t Credits(uint16_t id) const
    {
        return id < m_credits.size() ? m_credits[id] : 0;
    }

  private:
    /// The round-robin over a port's flows, clear ones first.
    int RoundRobin(const FlowTable& flows, uint16_t port, uint32_t bytes, uint32_t maxPackets);
    /// A credited flow of `port` that is clear and has room, or -1.
    int Recycled(const FlowTable& flows, uint16_t port, uint32_t bytes, uint32_t maxPackets);
    /// Where the next search of `port` starts (made on first use).
    std::size_t& Cursor(uint16_t port);
    /// Drops the credits of flow `id` of `port`.
    void Void(uint16_t id, uint16_t port);

    std::vector<std::size_t> m_cursor;   ///< per port: where the next search starts
    std::vector<uint16_t> m_credits;     ///< per flow: packets acknowledged clean, not yet reused
    std::vector<uint8_t> m_epoch;        ///< per flow: low byte of the epoch that earned them
    std::vector<uint32_t> m_portCredits; ///< per port: the sum of its flows' credits
};

} // namespace metaroce

#endif // METAROCE_ENGINE_FLOW_SELECTOR_H
