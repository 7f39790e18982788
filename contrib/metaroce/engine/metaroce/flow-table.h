/*
 * The flows of one connection (spec 6.1), each made when it is first used.
 *
 * A connection has ports x flowsPerPort flows (64 by default), but a short flow sprays over
 * a few of them: in a 64-host all-to-all of 64 KiB per rank each connection sends 16 packets,
 * one on each of 16 flows, and the 48 others would stay as they were made (152 bytes each,
 * 39 MB over the 4,032 connections; doc/performance.md). A flow that was never used is in a
 * known state - Up, nothing in flight, the initial window and RTT - so the table keeps only
 * its first entropy until something touches it, and answers the one question asked of unused
 * flows (may it send?) without making them.
 *
 * The first entropies are drawn for all flows at once, in flow order, when the table is made:
 * the generator's draws are then the same whichever flows are used, and in whatever order.
 * Flows are held by pointer (common/lazy-slots.h), so a reference to one stays valid while
 * others are made.
 */
#ifndef METAROCE_ENGINE_FLOW_TABLE_H
#define METAROCE_ENGINE_FLOW_TABLE_H

#include "../common/lazy-slots.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"

#include <boost/range/irange.hpp>
#include <cassert>
#include <cstdint>
#include <vector>

namespace metaroce
{

class FlowRecovery;

/// A connection's flows, made on first use (see the file comment).
class FlowTable
{
  public:
    /// Flows of a connection configured by `config` whose FSNs start at `initialFsn`.
    FlowTable(const MetaRoceConfig& config, uint32_t initialFsn);

    /// Draws every flow's first entropy, in flow order; nothing is made yet. Once only.
    void Make(FlowRecovery& recovery);

    /// True until Make().
    bool IsEmpty() const
    {
        return m_slots.Empty();
    }

    /// The number of flows, made or not (ports x flowsPerPort once made, else 0).
    std::size_t Count() const
    {
        return m_slots.Size();
    }

    /// The port (plane) of flow `id`: flows are numbered port by port (spec 6.1).
    uint16_t PortOf(uint16_t id) const
    {
        return static_cast<uint16_t>(id / m_config.flowsPerPort);
    }

    /// The ids of the flows of `port`, in order (none before Make()).
    boost::integer_range<uint16_t> OfPort(uint16_t port) const
    {
        const auto first =
            static_cast<uint16_t>(m_slots.Empty() ? 0 : port * m_config.flowsPerPort);
        const auto count = static_cast<uint16_t>(m_slots.Empty() ? 0 : m_config.flowsPerPort);
        return boost::irange(first, static_cast<uint16_t>(first + count));
    }

    /// Flow `id` (< Count()), made now if it never was.
    Flow& operator[](uint16_t id)
    {
        Flow* flow = m_slots.Find(id);
        return flow ? *flow : MakeFlow(id);
    }

    /// Flow `id`, which must have been made (throws std::out_of_range otherwise).
    const Flow& operator[](uint16_t id) const;

    /// Flow `id` (< Count()) if it was made, else null (an unused flow, in its initial state).
    const Flow* Find(uint16_t id) const
    {
        return m_slots.Find(id);
    }

    /// True when flow `id` (< Count()) may take a packet of `bytes` now (Flow::HasRoom), made
    /// or not.
    bool HasRoom(uint16_t id, uint32_t bytes, uint32_t maxPackets) const
    {
        const Flow* flow = Find(id);
        // An unused flow has nothing in flight: room for one packet, whatever its size.
        return flow ? flow->HasRoom(bytes, maxPackets) : maxPackets > 0;
    }

    /// True when flow `id` is Up, with no recent congestion mark, and has room for `bytes` (made
    /// or not): the spraying selector's first choice (spec 6.2), which a burst also keeps to.
    bool IsClearWithRoom(uint16_t id, uint32_t bytes, uint32_t maxPackets) const
    {
        const Flow* flow = Find(id);
        return (flow == nullptr || (flow->health == FlowHealth::Up && flow->markedRounds == 0)) &&
               HasRoom(id, bytes, maxPackets);
    }

    /// The flows made so far, in flow order: a range of `const Flow&` (unused flows hold
    /// nothing any scan looks for). Valid while the table lives; making a flow adds to it.
    auto Made() const
    {
        return m_slots.Made();
    }

    /// The configuration the flows follow.
    const MetaRoceConfig& Config() const
    {
        return m_config;
    }

    /// The number of flows made so far.
    std::size_t MadeCount() const
    {
        return m_slots.MadeCount();
    }

  private:
    Flow& MakeFlow(uint16_t id);

    const MetaRoceConfig& m_config;       ///< the connection's, which outlives this table
    LazySlots<Flow> m_slots;              ///< two bytes per flow until it is made
    std::vector<uint16_t> m_firstEntropy; ///< per flow, drawn by Make()
    uint32_t m_initialFsn;                ///< every flow's first FSN (spec 2.5)
};

} // namespace metaroce

#endif // METAROCE_ENGINE_FLOW_TABLE_H
