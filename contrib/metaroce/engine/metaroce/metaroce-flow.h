/*
 * One logical flow of a MetaRoCE connection, as its sender sees it (spec 6).
 *
 * A flow is a plane (NIC port) plus a UDP source port (the ECMP entropy that picks a route
 * through that plane). It owns its ordered FSN sequence, its outstanding packets, its window,
 * its RTT estimate, its ECN history and its health. The entropy can be re-drawn at any time to
 * move off a bad route; the FSN sequence continues, and a new route epoch begins so that loss
 * detection does not mistake cross-route reordering for loss.
 *
 * Health (spec 6.3) changes only through SetHealth(), which checks the transition is legal:
 *
 *     Up --RTO--> Suspect --more RTOs--> Down --probe acknowledged--> Up
 *     Up/Suspect --port down--> Down      Suspect --any ACK--> Up
 */
#ifndef METAROCE_ENGINE_METAROCE_FLOW_H
#define METAROCE_ENGINE_METAROCE_FLOW_H

#include "../algorithms/congestion-control.h"
#include "../common/engine-types.h"
#include "loss-detection.h"

#include <cstdint>
#include <memory>

namespace metaroce
{

/// Health of a flow.
enum class FlowHealth : uint8_t
{
    Up,      ///< carries data within its window
    Suspect, ///< timed out recently: one packet at a time until it is heard from again
    Down,    ///< carries only probes (and none while its port is down)
};

/// Printable name of a health state.
const char* FlowHealthName(FlowHealth health);

/// RFC 6298-style RTT estimator in integer nanoseconds.
class RttEstimator
{
  public:
    explicit RttEstimator(TimeNs initial);
    void Sample(TimeNs rtt);

    TimeNs Smoothed() const
    {
        return m_srtt;
    }

    /// The smallest sample; before any, the initial estimate.
    TimeNs Minimum() const
    {
        return HasSample() ? m_min : m_srtt;
    }

    /// srtt + 4 * rttvar, clamped to [min, max].
    TimeNs Rto(TimeNs min, TimeNs max) const;

    bool HasSample() const
    {
        return m_min != kNever;
    }

  private:
    TimeNs m_srtt;
    TimeNs m_rttvar;
    TimeNs m_min{kNever}; ///< kNever until the first sample (a flag would cost 8 bytes a flow)
};

/// A data packet declared lost, remembered until an ACK tells whether it arrived (spec 7.5).
struct LostPacket
{
    SentPacket packet;
    uint64_t nextFsnAtLoss{0}; ///< the flow's next FSN then: only FSNs from here on carry a floor
                               ///< past this packet
    bool byRule{false};        ///< declared by loss detection (5.3), not by a timeout or take-down
};

/// Sender-side state of one flow.
struct Flow
{
    Flow(uint16_t id, uint16_t port, uint16_t entropy, TimeNs initialRtt);

    // Small fields first, so that they pack: a connection holds 64 flows or more.
    uint16_t id;
    uint16_t port;
    uint16_t entropy;
    FlowHealth health{FlowHealth::Up};
    bool countedDown{false}; ///< counted in the requester's flows Down at its last Refresh()
    uint32_t epoch{0};
    uint32_t consecutiveTimeouts{0};
    uint32_t markedRounds{0};  ///< consecutive ACKs echoing CE, towards an entropy re-draw
    uint32_t inflightBytes{0}; ///< at most 256 FSNs of one MTU each (HasRoom)
    uint64_t nextFsn{0};
    TimeNs probeDue{kNever}; ///< Down flows: when to send the next probe
    /// Send time of the oldest in-flight DATA packet, or kNever, as of the requester's last
    /// look at the flow (its deadlines, spec 4.6 and 4.5, are kept from it).
    TimeNs firstDataAt{kNever};
    double undoWindow{0}; ///< window before the last loss cut, while it may be undone (5.7)
    uint64_t packetsSent{0};
    uint64_t bytesAcked{0};
    Ring<SentPacket> outstanding; ///< FSN order; front() is the ack floor
    WindowState window;
    RttEstimator rtt;
    /// Data declared lost, until an ACK settles it (5.7); made at the flow's first loss, as
    /// most flows of a lossless fabric never lose a packet.
    std::unique_ptr<Ring<LostPacket>> recentLosses;

    /// Lowest FSN not yet resolved (acknowledged or given up): what packets carry as ack floor.
    uint64_t Floor() const
    {
        return outstanding.empty() ? nextFsn : outstanding.front().fsn;
    }

    /// True when a packet of `bytes` fits the flow's window and its 256-FSN SACK span.
    bool HasRoom(uint32_t bytes, uint32_t maxPackets) const;

    /// Oldest in-flight DATA packet (PROBEs skipped), or null: what the RTO times (5.5).
    const SentPacket* OldestDataInFlight() const;

    /// Drops resolved packets from the front, advancing the floor: acknowledged or lost ones,
    /// and a PROBE there once a later FSN of the flow is acknowledged (spec 4.5).
    void PopResolved();

    /// True when the front packet is a PROBE and a later one of the flow has been acknowledged.
    bool UnansweredProbeAtFloor() const;

    /// Changes health; asserts the transition is one the state machine allows.
    void SetHealth(FlowHealth next);

    /// Moves the flow to a new route: new entropy, new epoch.
    void Redraw(uint16_t newEntropy);
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_FLOW_H
