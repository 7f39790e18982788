#include "metaroce-remote-channel.h"

#include "ns3/abort.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceArrivalTag);
NS_OBJECT_ENSURE_REGISTERED(MetaRoceRemoteChannel);

namespace
{

/// ns-3's MPI message buffers (2000 bytes in the granted-time-window and null-message
/// interfaces), less what precedes the packet: 16 bytes (time, node, device) in the first, 24
/// (time, guarantee, node, device) in the second.
constexpr uint32_t kMaxSerializedPacket = 2000 - 24;

} // namespace

TypeId
MetaRoceArrivalTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceArrivalTag")
                            .SetParent<Tag>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceArrivalTag>();
    return tid;
}

TypeId
MetaRoceArrivalTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MetaRoceArrivalTag::GetSerializedSize() const
{
    return sizeof(int64_t);
}

void
MetaRoceArrivalTag::Serialize(TagBuffer buffer) const
{
    buffer.WriteU64(static_cast<uint64_t>(at));
}

void
MetaRoceArrivalTag::Deserialize(TagBuffer buffer)
{
    at = static_cast<int64_t>(buffer.ReadU64());
}

void
MetaRoceArrivalTag::Print(std::ostream& os) const
{
    os << "arrives=" << at;
}

TypeId
MetaRoceRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceRemoteChannel")
                            .SetParent<MetaRoceChannel>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceRemoteChannel>();
    return tid;
}

MetaRoceRemoteChannel::MetaRoceRemoteChannel() = default;
MetaRoceRemoteChannel::~MetaRoceRemoteChannel() = default;

bool
MetaRoceRemoteChannel::TransmitStart(Ptr<Packet> p, const Ptr<MetaRoceNetDevice>& src, Time txTime)
{
    const Ptr<MetaRoceNetDevice>& dst = Destination(StartOnWire(p, src));
    Ptr<Packet> copy = p->Copy();
    MetaRoceArrivalTag tag;
    tag.at = ArrivalTime(txTime).GetTimeStep();
    copy->AddPacketTag(tag);
    NS_ABORT_MSG_IF(
        copy->GetSerializedSize() > kMaxSerializedPacket,
        "MetaRoceRemoteChannel: a packet of "
            << copy->GetSerializedSize()
            << " serialised bytes cannot cross ranks (ns-3's MPI messages carry at most "
            << kMaxSerializedPacket << "); use virtual payloads (RealPayload=false)");
    ++s_sent;
    MpiInterface::SendPacket(copy,
                             Simulator::Now() + GetDelay(),
                             dst->GetNode()->GetId(),
                             dst->GetIfIndex());
    return true;
}

void
MetaRoceRemoteChannel::Listen(Ptr<MetaRoceNetDevice> device)
{
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(
        MakeCallback(&MetaRoceRemoteChannel::FromOtherRank, this).Bind(device));
    device->AggregateObject(receiver);
}

void
MetaRoceRemoteChannel::FromOtherRank(Ptr<MetaRoceNetDevice> device, Ptr<Packet> packet)
{
    MetaRoceArrivalTag tag;
    const bool tagged = packet->RemovePacketTag(tag);
    NS_ABORT_MSG_UNLESS(tagged,
                        "MetaRoceRemoteChannel: a packet from another rank without its "
                        "arrival time");
    ++s_received;
    MetaRoceArrivals::Of(device->GetNode())
        ->Stage(TimeStep(tag.at), device, device->GetIfIndex(), packet);
}

uint64_t MetaRoceRemoteChannel::s_sent = 0;
uint64_t MetaRoceRemoteChannel::s_received = 0;

uint64_t
MetaRoceRemoteChannel::GetSent()
{
    return s_sent;
}

uint64_t
MetaRoceRemoteChannel::GetReceived()
{
    return s_received;
}

} // namespace ns3
