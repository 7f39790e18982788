/*
 * What a port on a device other than the module's knows of its link: the frame times and the
 * peer to announce arrivals to.
 *
 * ns-3's PointToPointNetDevice serialises a frame (its PPP header included) for
 * DataRate.CalculateBytesTxTime(size), idles for InterframeGap, and its PointToPointChannel
 * hands the frame to the far device Delay after the serialisation ends. The port queue of such a
 * device tells the far node's MetaRoceArrivals when each frame will arrive (Announce), so that
 * the node handles its arrivals before its other events of that instant
 * (model/link/metaroce-arrivals.h), and keeps the end of a frame whose end no event waits for
 * (FrameEnd), as the module's device does. DataRate, InterframeGap and Delay are read when the
 * port is bound: a change later makes arrivals be handled in the scheduler's order instead,
 * nothing worse. A far end on another rank of a distributed run is not told.
 */
#ifndef METAROCE_PORT_LINK_H
#define METAROCE_PORT_LINK_H

#include "ns3/data-rate.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Frame timing and arrival announcements of a port on another device than the module's.
 */
class MetaRocePortLink
{
  public:
    /// Reads `device`'s DataRate and InterframeGap and its channel's Delay and far end; a device
    /// without them announces nothing.
    void Bind(Ptr<NetDevice> device);
    /// Forgets the peer.
    void Clear();

    /// The frame of `bytes` (link header included) starts now: tells the far node when it
    /// arrives; returns when the device is free again (serialisation and gap over).
    Time FrameStarts(uint32_t bytes) const;

  private:
    bool m_known{false}; ///< DataRate, gap and delay were read
    DataRate m_rate;
    Time m_gap;
    Time m_delay;
    Ptr<MetaRoceArrivals> m_peer; ///< the far node's (null: not told)
    uint32_t m_peerIfIndex{0};
};

} // namespace ns3

#endif // METAROCE_PORT_LINK_H
