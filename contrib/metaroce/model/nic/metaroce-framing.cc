#include "metaroce-framing.h"

#include "metaroce-transport-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/udp-header.h"

#include <algorithm>

namespace ns3
{

namespace
{

constexpr uint16_t kIpv4Protocol = 0x0800; ///< PPP protocol number of IPv4
constexpr uint8_t kUdpProtocol = 17;       ///< IPv4 protocol number of UDP

} // namespace

Ptr<Packet>
MetaRoceFraming::Frame(metaroce::OutPacket& out, Ipv4Address source, Ipv4Address destination)
{
    Ptr<Packet> p = out.payload.empty() ? Create<Packet>(out.payloadSize)
                                        : Create<Packet>(out.payload.data(),
                                                         static_cast<uint32_t>(out.payload.size()));
    p->AddHeader(MetaRoceTransportHeader(std::move(out.header), out.udpDstPort));
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
    if (out.isControl)
    {
        // ACK, NAK, CNP, probe: the switches' CONTROL class (metaroce-switch-pfc.h).
        ip.SetDscp(static_cast<Ipv4Header::DscpType>(kMetaRoceControlDscp));
    }
    ip.SetPayloadSize(p->GetSize());
    ip.EnableChecksum();
    p->AddHeader(ip);
    return p;
}

bool
MetaRoceFraming::Unframe(Ptr<const Packet> packet, uint16_t protocol, Arrival& arrival)
{
    arrival.transport = packet->Copy();
    Ipv4Header ip;
    UdpHeader udp;
    if (protocol != kIpv4Protocol || arrival.transport->RemoveHeader(ip) == 0 ||
        ip.GetProtocol() != kUdpProtocol || arrival.transport->RemoveHeader(udp) == 0)
    {
        return false;
    }
    arrival.ecnCe = ip.GetEcn() == Ipv4Header::ECN_CE;
    arrival.headSize =
        arrival.transport->CopyData(arrival.head,
                                    std::min(arrival.transport->GetSize(), kMaxTransportHeader));
    arrival.destination =
        metaroce::PeekDestination(arrival.head, arrival.headSize, udp.GetDestinationPort());
    return true;
}

} // namespace ns3
