/*
 * The paths of one connection (spec 4.1), each made when it is first used.
 *
 * A connection has ports x pathsPerPort paths (64 by default), but a short flow sprays over
 * a few of them: in a 64-host all-to-all of 64 KiB per rank each connection sends 16 packets,
 * one on each of 16 paths, and the 48 others would stay as they were made (152 bytes each,
 * 39 MB over the 4,032 connections; doc/benchmarks.md). A path that was never used is in a
 * known state - Up, nothing in flight, the initial window and RTT - so the table keeps only
 * its first entropy until something touches it, and answers the one question asked of unused
 * paths (may it send?) without making them.
 *
 * The first entropies are drawn for all paths at once, in path order, when the table is made:
 * the generator's draws are then the same whichever paths are used, and in whatever order.
 * Paths are held by pointer (common/lazy-slots.h), so a reference to one stays valid while
 * others are made.
 */
#ifndef METAROCE_ENGINE_PATH_TABLE_H
#define METAROCE_ENGINE_PATH_TABLE_H

#include "../common/lazy-slots.h"
#include "metaroce-config.h"
#include "metaroce-path.h"

#include <boost/range/irange.hpp>
#include <cassert>
#include <cstdint>
#include <vector>

namespace metaroce
{

class PathRecovery;

/// A connection's paths, made on first use (see the file comment).
class PathTable
{
  public:
    /// Paths of a connection configured by `config` whose PSNs start at `initialPsn`.
    PathTable(const MetaRoceConfig& config, uint32_t initialPsn);

    /// Draws every path's first entropy, in path order; nothing is made yet. Once only.
    void Make(PathRecovery& recovery);

    /// True until Make().
    bool IsEmpty() const
    {
        return m_slots.Empty();
    }

    /// The number of paths, made or not (ports x pathsPerPort once made, else 0).
    std::size_t Count() const
    {
        return m_slots.Size();
    }

    /// The port (plane) of path `id`: paths are numbered port by port (spec 4.1).
    uint16_t PortOf(uint16_t id) const
    {
        return static_cast<uint16_t>(id / m_config.pathsPerPort);
    }

    /// The ids of the paths of `port`, in order (none before Make()).
    boost::integer_range<uint16_t> OfPort(uint16_t port) const
    {
        const auto first =
            static_cast<uint16_t>(m_slots.Empty() ? 0 : port * m_config.pathsPerPort);
        const auto count = static_cast<uint16_t>(m_slots.Empty() ? 0 : m_config.pathsPerPort);
        return boost::irange(first, static_cast<uint16_t>(first + count));
    }

    /// Path `id` (< Count()), made now if it never was.
    Path& operator[](uint16_t id)
    {
        Path* path = m_slots.Find(id);
        return path ? *path : MakePath(id);
    }

    /// Path `id`, which must have been made (throws std::out_of_range otherwise).
    const Path& operator[](uint16_t id) const;

    /// Path `id` (< Count()) if it was made, else null (an unused path, in its initial state).
    const Path* Find(uint16_t id) const
    {
        return m_slots.Find(id);
    }

    /// True when path `id` (< Count()) may take a packet of `bytes` now (Path::HasRoom), made
    /// or not.
    bool HasRoom(uint16_t id, uint32_t bytes, uint32_t maxPackets) const
    {
        const Path* path = Find(id);
        // An unused path has nothing in flight: room for one packet, whatever its size.
        return path ? path->HasRoom(bytes, maxPackets) : maxPackets > 0;
    }

    /// True when path `id` is Up, with no recent congestion mark, and has room for `bytes` (made
    /// or not): the spraying selector's first choice (spec 4.2), which a burst also keeps to.
    bool IsClearWithRoom(uint16_t id, uint32_t bytes, uint32_t maxPackets) const
    {
        const Path* path = Find(id);
        return (path == nullptr || (path->health == PathHealth::Up && path->markedRounds == 0)) &&
               HasRoom(id, bytes, maxPackets);
    }

    /// The paths made so far, in path order: a range of `const Path&` (unused paths hold
    /// nothing any scan looks for). Valid while the table lives; making a path adds to it.
    auto Made() const
    {
        return m_slots.Made();
    }

    /// The configuration the paths follow.
    const MetaRoceConfig& Config() const
    {
        return m_config;
    }

    /// The number of paths made so far.
    std::size_t MadeCount() const
    {
        return m_slots.MadeCount();
    }

  private:
    Path& MakePath(uint16_t id);

    const MetaRoceConfig& m_config;       ///< the connection's, which outlives this table
    LazySlots<Path> m_slots;              ///< two bytes per path until it is made
    std::vector<uint16_t> m_firstEntropy; ///< per path, drawn by Make()
    uint32_t m_initialPsn;                ///< every path's first PSN (spec 3.2)
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PATH_TABLE_H
