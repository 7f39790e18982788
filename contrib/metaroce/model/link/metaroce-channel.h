/*
 * The point-to-point channel of metaroce fabrics: a stock PointToPointChannel (Delay attribute,
 * two PointToPointNetDevice ends, so DataRate, error models, pcap and link up/down all work as
 * usual) whose transmissions are staged at the receiving node's MetaRoceArrivals instead of
 * being scheduled as a Receive event of their own. The packet arrives at the same time as on
 * the stock channel (transmission time plus Delay); what changes is the order within one
 * nanosecond: arrivals first, by receiving interface (see metaroce-arrivals.h).
 *
 * Not fired: the stock channel's TxRxPointToPoint trace (used by NetAnim), which the base class
 * keeps private.
 */
#ifndef METAROCE_CHANNEL_H
#define METAROCE_CHANNEL_H

#include "metaroce-arrivals.h"

#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"

#include <array>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A PointToPointChannel that delivers through the receiving node's MetaRoceArrivals.
 */
class MetaRoceChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId();
    MetaRoceChannel();
    ~MetaRoceChannel() override;

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;

    /// Frames and bytes one end has sent into the channel.
    struct Sent
    {
        uint64_t packets{0};
        uint64_t bytes{0};
    };

    /**
     * What `src` (one of the two ends) has sent, counted as each transmission starts: the
     * fabric monitor's link counters, without a per-packet trace sink. Once the wire is idle it
     * equals what the device's PhyTxEnd trace has seen.
     */
    const Sent& GetSent(Ptr<PointToPointNetDevice> src) const
    {
        return m_sent[WireFrom(src)];
    }

  protected:
    void DoDispose() override;

    /// When a transmission starting now that lasts txTime arrives: now + txTime + Delay, with
    /// txTime at least one time step (a frame that serialises in no time at an absurd rate
    /// still arrives after it was sent, as staging and the MPI lookahead need).
    Time ArrivalTime(Time txTime) const;

    /// The wire a transmission from src travels (0 or 1).
    uint32_t WireFrom(Ptr<PointToPointNetDevice> src) const
    {
        return src == GetSource(0) ? 0 : 1;
    }

    /// Counts a transmission of `bytes` starting on `wire`.
    void CountSent(uint32_t wire, uint32_t bytes)
    {
        ++m_sent[wire].packets;
        m_sent[wire].bytes += bytes;
    }

  private:
    /// The arrivals of wire i's destination node, looked up on the first packet.
    std::array<Ptr<MetaRoceArrivals>, 2> m_arrivals;
    std::array<Sent, 2> m_sent; ///< by wire
};

} // namespace ns3

#endif /* METAROCE_CHANNEL_H */
