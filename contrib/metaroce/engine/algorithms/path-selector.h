/*
 * Path selection (spec 4.2): which path the next packet of a connection takes on a given port.
 *
 * The NIC serves each port when it is free and asks the connection for a packet for that port,
 * so the plane is chosen by whichever port has capacity - the NIC alone picks the plane - and
 * the selector only has to spray over the paths of that plane. Pluggable like congestion
 * control; the default sprays round-robin over paths that have window room, preferring paths
 * that are Up and whose last ACK echoed no congestion, so marked paths are steered around.
 */
#ifndef METAROCE_ENGINE_PATH_SELECTOR_H
#define METAROCE_ENGINE_PATH_SELECTOR_H

#include "../metaroce/path-table.h"

#include <memory>
#include <vector>

namespace metaroce
{

/// Interface of a path selection policy.
class PathSelector
{
  public:
    virtual ~PathSelector() = default;
    virtual const char* Name() const = 0;

    /**
     * Picks one of the paths of `port` (PathTable::OfPort) for a packet of `bytes`, or
     * returns -1 when none may send now. A path never used is not made (PathTable::Find is
     * null): it is Up, unmarked and empty.
     */
    virtual int Select(const PathTable& paths,
                       uint16_t port,
                       uint32_t bytes,
                       uint32_t maxPackets) = 0;

    virtual std::unique_ptr<PathSelector> Clone() const = 0;
};

/// Round-robin spraying over usable paths, clear ones first.
class SprayPathSelector : public PathSelector
{
  public:
    const char* Name() const override;
    int Select(const PathTable& paths, uint16_t port, uint32_t bytes, uint32_t maxPackets) override;
    std::unique_ptr<PathSelector> Clone() const override;

  private:
    std::vector<std::size_t> m_cursor; ///< per port: where the next search starts
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PATH_SELECTOR_H
