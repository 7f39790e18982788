/*
 * How a NIC reacts to PFC from its switch (the RoCEv2-with-PFC baseline; the switch side is
 * metaroce-switch-pfc.h). A PAUSE for the DATA class holds the port's data back until a RESUME
 * or until the pause time lapses; while it holds, the port sends control packets only (the
 * engines' PullControlPacket, spec 1.3), so data stays in the engines, unsent and untimed, as a
 * NIC's scheduler skips a paused class, and nothing is dropped. Other classes are never paused
 * at a NIC: its control packets go in the switches' CONTROL class.
 */
#ifndef METAROCE_NIC_PFC_H
#define METAROCE_NIC_PFC_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief The PFC PAUSE state of each port of a NIC for the DATA class.
 */
class MetaRoceNicPfc
{
  public:
    /// Adds a port; `resume` restarts its transmission when data may go again. Returns its
    /// index.
    uint32_t AddPort(Callback<void> resume);

    /// The node's arrivals, delivered before a pause expires (metaroce-arrivals.h).
    void SetArrivals(Ptr<MetaRoceArrivals> arrivals);

    /**
     * Applies a PFC frame (as ParsePfcFrame() decoded it; nothing if malformed) that arrived on
     * `port`, whose line rate `rate` turns pause quanta into time.
     */
    void OnFrame(uint32_t port, const std::optional<MetaRocePfcFrame>& frame, DataRate rate);

    /// True while the DATA class of `port` is paused: it may send control packets only.
    bool IsDataPaused(uint32_t port) const;

    /// True if a pause of some port lapses at time t or earlier.
    bool HasExpiryDueBy(Time t) const;

    /// Cancels every pending pause expiry and forgets the ports.
    void Clear();

  private:
    /// The pause state of one port.
    struct PortPause
    {
        Callback<void> resume;
        bool dataPaused{false}; ///< the switch sent PFC PAUSE for the DATA class
        EventId expiry;         ///< when the PAUSE lapses without a RESUME
    };

    /// Pauses `port`'s data for `duration`, or resumes it.
    void SetDataPaused(uint32_t port, bool paused, Time duration);

    /// The pause of `port` lapses, unless a frame that arrives at this instant renewed or ended
    /// it.
    void Expire(uint32_t port);

    std::vector<PortPause> m_ports;
    Ptr<MetaRoceArrivals> m_arrivals;
};

} // namespace ns3

#endif // METAROCE_NIC_PFC_H
