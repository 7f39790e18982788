/*
 * MetaRoceRemoteChannel: a MetaRoceChannel whose two ends live on different ranks of a
 * distributed run (ns-3's MPI module; built only where it exists).
 *
 * A packet for the other rank travels as an MPI message (MpiInterface::SendPacket) with its
 * arrival time in a tag. The message is due at (transmission start + Delay), one transmission
 * time before the packet arrives: that is at or after the lookahead the conservative
 * synchronisation grants, and it lets the receiving rank stage the packet at its node's
 * MetaRoceArrivals before it arrives, exactly as a sequential run stages it when the
 * transmission starts. So the receiving node sees the same arrivals in the same order either
 * way (metaroce-arrivals.h), and a distributed run gives the sequential run's results.
 *
 * ns-3's MPI messages carry at most 2000 bytes of serialised packet: MetaRoCE and RoCEv2
 * packets with virtual (zero-filled) payloads serialise to far less; a larger one is refused.
 */
#ifndef METAROCE_REMOTE_CHANNEL_H
#define METAROCE_REMOTE_CHANNEL_H

#include "metaroce-channel.h"

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief The time a packet sent to another rank arrives (MetaRoceRemoteChannel).
 */
class MetaRoceArrivalTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buffer) const override;
    void Deserialize(TagBuffer buffer) override;
    void Print(std::ostream& os) const override;

    int64_t at{0}; ///< arrival time step
};

/**
 * \ingroup metaroce
 * \brief A MetaRoceChannel between two ranks (see the file comment).
 */
class MetaRoceRemoteChannel : public MetaRoceChannel
{
  public:
    static TypeId GetTypeId();
    MetaRoceRemoteChannel();
    ~MetaRoceRemoteChannel() override;

    bool TransmitStart(Ptr<Packet> p, const Ptr<MetaRoceNetDevice>& src, Time txTime) override;

    /// Receives for `device`, an end on this rank: aggregates the MpiReceiver through which
    /// ns-3 hands it the packets from the other rank.
    void Listen(Ptr<MetaRoceNetDevice> device);

    /// Packets this process sent to / received from other ranks (a run has ended only when
    /// the sums over the ranks agree: none is between two ranks).
    static uint64_t GetSent();
    static uint64_t GetReceived();

  private:
    /// A packet from the other rank for `device`: staged at its node's arrivals.
    void FromOtherRank(Ptr<MetaRoceNetDevice> device, Ptr<Packet> packet);

    static uint64_t s_sent;
    static uint64_t s_received;
};

} // namespace ns3

#endif /* METAROCE_REMOTE_CHANNEL_H */
