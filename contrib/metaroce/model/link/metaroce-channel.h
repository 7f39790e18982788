/*
 * The point-to-point channel of metaroce fabrics: two MetaRoceNetDevice ends and a propagation
 * Delay (the stock PointToPointChannel's attribute). A transmission is staged at the receiving
 * node's MetaRoceArrivals instead of being scheduled as a Receive event of its own: the packet
 * arrives at the same time as on the stock channel (transmission time plus Delay); what changes
 * is the order within one nanosecond: arrivals first, by receiving interface (see
 * metaroce-arrivals.h).
 *
 * The receiver gets the sender's packet, not a copy (metaroce-net-device.h says why that is
 * safe). Not provided: the stock channel's TxRxPointToPoint trace (used by NetAnim).
 */
#ifndef METAROCE_CHANNEL_H
#define METAROCE_CHANNEL_H

#include "metaroce-arrivals.h"
#include "metaroce-net-device.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"

#include <array>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A point-to-point channel that delivers through the receiving node's MetaRoceArrivals.
 */
class MetaRoceChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    MetaRoceChannel();
    ~MetaRoceChannel() override;

    /// Connects `device` as the next of the two ends (MetaRoceNetDevice::Attach calls this).
    void Attach(Ptr<MetaRoceNetDevice> device);

    /// Starts carrying p from src (one of the ends), serialised in txTime: it arrives at the
    /// other end txTime + Delay from now. False if the channel refused it.
    virtual bool TransmitStart(Ptr<Packet> p, const Ptr<MetaRoceNetDevice>& src, Time txTime);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

    /// The end with index i (0 or 1); aborts if it is not attached.
    Ptr<MetaRoceNetDevice> GetEnd(std::size_t i) const;

    /// The propagation delay.
    Time GetDelay() const;

    /// Frames and bytes one end has sent into the channel.
    struct Sent
    {
        uint64_t packets{0};
        uint64_t bytes{0}; ///< frame bytes (PPP header included, as PhyTxEnd sinks see them)
    };

    /**
     * What `src` (one of the two ends) has sent, counted as each transmission starts: the
     * fabric monitor's link counters, without a per-packet trace sink. Once the wire is idle it
     * equals what the device's PhyTxEnd trace has seen.
     */
    const Sent& GetSent(const Ptr<MetaRoceNetDevice>& src) const
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
    uint32_t WireFrom(const Ptr<MetaRoceNetDevice>& src) const
    {
        return src == m_ends[0] ? 0 : 1;
    }

    /// The end at the far side of `wire`.
    const Ptr<MetaRoceNetDevice>& Destination(uint32_t wire) const
    {
        return m_ends[1 - wire];
    }

    /// A transmission of p from src starts: checks both ends are attached, counts the frame
    /// and returns the wire it travels.
    uint32_t StartOnWire(const Ptr<Packet>& p, const Ptr<MetaRoceNetDevice>& src);

  private:
    Time m_delay;
    std::array<Ptr<MetaRoceNetDevice>, 2> m_ends;
    std::size_t m_nEnds{0};
    /// The arrivals of wire i's destination node, looked up on the first packet.
    std::array<Ptr<MetaRoceArrivals>, 2> m_arrivals;
    /// The receiving end's interface index by wire, read with m_arrivals (a device's index is
    /// fixed once its node has it).
    std::array<uint32_t, 2> m_dstIfIndex{};
    std::array<Sent, 2> m_sent; ///< by wire
};

} // namespace ns3

#endif /* METAROCE_CHANNEL_H */
