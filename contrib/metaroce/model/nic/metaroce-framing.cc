#include "metaroce-framing.h"

#include "metaroce-frame-header.h"
#include "metaroce-transport-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/metaroce-switch-fib.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/packet-metadata.h"
#include "ns3/udp-header.h"

#include <algorithm>

namespace ns3
{

namespace
{

constexpr uint16_t kIpv4Protocol = 0x0800; ///< EtherType of IPv4 (what devices pass up)
constexpr uint8_t kUdpProtocol = 17;       ///< IPv4 protocol number of UDP
constexpr uint32_t kMaxIpv4Header = 60;    ///< IHL 15
constexpr uint32_t kUdpHeaderSize = 8;

} // namespace

Ptr<Packet>
MetaRoceFraming::Frame(metaroce::OutPacket& out, Ipv4Address source, Ipv4Address destination)
{
    if (PacketPrintingOn())
    {
        return FrameOneByOne(out, source, destination);
    }
    Ptr<Packet> p = Payload(out);
    metaroce::Ipv4UdpHead head;
    head.tos = static_cast<uint8_t>(Dscp(out) << 2 | Ipv4Header::ECN_ECT0);
    head.source = source.Get();
    head.destination = destination.Get();
    head.sourcePort = out.udpSrcPort;
    head.destinationPort = out.udpDstPort;
    head.udpPayload = static_cast<uint16_t>(out.header.size() + p->GetSize());
    p->AddHeader(MetaRoceFrameHeader(head, out.header));
    return p;
}

Ptr<Packet>
MetaRoceFraming::FrameOneByOne(const metaroce::OutPacket& out,
                               Ipv4Address source,
                               Ipv4Address destination)
{
    Ptr<Packet> p = Payload(out);
    p->AddHeader(MetaRoceTransportHeader(out.header, out.udpDstPort));
    UdpHeader udp;
    udp.SetSourcePort(out.udpSrcPort);
    udp.SetDestinationPort(out.udpDstPort);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(source);
    ip.SetDestination(destination);
    ip.SetProtocol(kUdpProtocol);
    ip.SetTtl(64);
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(Dscp(out)));
    ip.SetPayloadSize(p->GetSize());
    ip.EnableChecksum();
    p->AddHeader(ip);
    return p;
}

Ptr<Packet>
MetaRoceFraming::Payload(const metaroce::OutPacket& out)
{
    return out.payload.empty()
               ? Create<Packet>(out.payloadSize)
               : Create<Packet>(out.payload.data(), static_cast<uint32_t>(out.payload.size()));
}

uint8_t
MetaRoceFraming::Dscp(const metaroce::OutPacket& out)
{
    return out.isControl ? kMetaRoceControlDscp : 0;
}

bool
MetaRoceFraming::PacketPrintingOn()
{
    // Printing must be enabled before the first packet exists (ns-3's rule), so one look at
    // the first frame holds for the whole run. A header recorded in a packet's metadata is
    // how it shows from outside ns-3's PacketMetadata.
    static const bool on = [] {
        PacketMetadata probe(0, 1);
        return probe.BeginItem(Buffer(1)).HasNext();
    }();
    return on;
}

bool
MetaRoceFraming::Unframe(Ptr<const Packet> packet, uint16_t protocol, Arrival& arrival)
{
    // The largest IPv4 header, UDP and the largest transport header.
    uint8_t b[kMaxIpv4Header + kUdpHeaderSize + kMaxTransportHeader];
    const uint32_t n = packet->CopyData(b, sizeof(b));
    MetaRocePacketInfo info;
    if (protocol != kIpv4Protocol || !MetaRoceParseIpv4(b, n, packet->GetSize(), info) ||
        info.key.protocol != kUdpProtocol || n < info.ipHeaderSize + kUdpHeaderSize)
    {
        return false;
    }
    arrival.transportOffset = info.ipHeaderSize + kUdpHeaderSize;
    arrival.transportSize = packet->GetSize() - arrival.transportOffset;
    arrival.ecnCe = info.Ecn() == Ipv4Header::ECN_CE;
    arrival.headSize = std::min(n - arrival.transportOffset, kMaxTransportHeader);
    std::copy_n(b + arrival.transportOffset, arrival.headSize, arrival.head);
    arrival.destination =
        metaroce::PeekDestination(arrival.head, arrival.headSize, info.key.dstPort);
    return true;
}

} // namespace ns3
