/*
 * Path selection (spec 4.2): which path the next packet of a connection takes on a given port.
 *
 * The NIC serves each port when it is free and asks the connection for a packet for that port,
 * so the plane is chosen by whichever port has capacity - the NIC alone picks the plane - and
 * the selector only has to spray over the paths of that plane. Pluggable like congestion
 * control. SprayPathSelector sprays round-robin over paths that have window room, preferring
 * paths that are Up and whose last ACK echoed no congestion, so marked paths are steered
 * around. The default, RecyclingPathSelector, first reuses the paths whose packets came back
 * without a mark, one packet per packet acknowledged clean (entropy recycling): each path then
 * carries what its route delivers, and a route that queues or marks loses its share to
 * routes that do not (spec 4.2).
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

    /// An ACK of path `path` acknowledged `ackedPackets` in-flight DATA packets and echoed
    /// `ceCount` marks: what the selector may learn of the path's route (none by default).
    virtual void OnAck(const Path& /*path*/, uint32_t /*ackedPackets*/, uint32_t /*ceCount*/)
    {
    }

    virtual std::unique_ptr<PathSelector> Clone() const = 0;
};

/// Round-robin spraying over usable paths, clear ones first.
class SprayPathSelector : public PathSelector
{
  public:
    const char* Name() const override;
    int Select(const PathTable& paths, uint16_t port, uint32_t bytes, uint32_t maxPackets) override;
    std::unique_ptr<PathSelector> Clone() const override;

  protected:
    /// Where the next round-robin search of `port` starts (made on first use).
    std::size_t& Cursor(uint16_t port);

  private:
    std::vector<std::size_t> m_cursor; ///< per port: where the next search starts
};

/**
 * Entropy recycling (spec 4.2): a path earns a credit for every packet of it that an ACK
 * acknowledges without a mark, and the selector spends credits first, round-robin over the
 * port's credited paths that are still clear and have room; with none, it sprays as
 * SprayPathSelector. A marked ACK, or the path's move to a new route (its epoch), voids the
 * path's credits. The packets a connection has in flight then stay on the routes that delivered
 * them cleanly, each route carrying what it returns, while a route that marks or queues returns
 * fewer credits and its share goes to the round-robin, which offers it to every clear path.
 * State: three bytes per path of the connection, made at the first clean ACK.
 */
class RecyclingPathSelector : public SprayPathSelector
{
  public:
    const char* Name() const override;
    int Select(const PathTable& paths, uint16_t port, uint32_t bytes, uint32_t maxPackets) override;
    void OnAck(const Path& path, uint32_t ackedPackets, uint32_t ceCount) override;
    std::unique_ptr<PathSelector> Clone() const override;

    /// Credits path `id` holds now (tests).
    uint32_t Credits(uint16_t id) const
    {
        return id < m_credits.size() ? m_credits[id] : 0;
    }

  private:
    /// Drops the credits of path `id` of `port`.
    void Void(uint16_t id, uint16_t port);

    std::vector<uint16_t> m_credits;     ///< per path: packets acknowledged clean, not yet reused
    std::vector<uint8_t> m_epoch;        ///< per path: low byte of the epoch that earned them
    std::vector<uint32_t> m_portCredits; ///< per port: the sum of its paths' credits
};

} // namespace metaroce

#endif // METAROCE_ENGINE_PATH_SELECTOR_H
