#include "ns3-nic-adapter.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-header.h"
#include "ns3/metaroce-aimd.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-config-attributes.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/node.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <stdexcept>

using namespace ns3;

namespace metaroce::compliance
{

namespace
{

/// Bytes of a packet the runner reads to find its destination (the 16-byte common header and
/// the RoCEv2 BTH lie well within them).
constexpr uint32_t kPeekBytes = 64;

/// The runner never needs more rounds than this for one injection to arrive.
constexpr int kMaxInjectRounds = 16;

/// An injected packet arrives at `port` now, as an event of the node: after its arrivals of
/// this instant (metaroce-arrivals.h).
void
DeliverNow(Ptr<MetaRoceNetDevice> port, Ptr<Packet> p)
{
    MetaRoceArrivals::Of(port->GetNode())->Run(&MetaRoceNetDevice::Receive, PeekPointer(port), p);
}

Time
Ns(TimeNs t)
{
    return NanoSeconds(static_cast<int64_t>(t));
}

Ipv4Address
NicAddress(uint16_t port)
{
    return Ipv4Address((10u << 24) | (uint32_t{port} << 8) | 1u);
}

Ipv4Address
PeerAddress(uint16_t port)
{
    return Ipv4Address((10u << 24) | (uint32_t{port} << 8) | 2u);
}

/// Strips IPv4 and UDP; returns the UDP payload and fills the ports and CE bit.
std::vector<uint8_t>
UdpPayload(Ptr<Packet> p, WirePacket& w)
{
    Ipv4Header ip;
    UdpHeader udp;
    if (p->RemoveHeader(ip) == 0 || ip.GetProtocol() != 17 || p->RemoveHeader(udp) == 0)
    {
        throw std::logic_error("ns3-nic: the NIC sent a frame that is not IPv4/UDP");
    }
    w.udpSrcPort = udp.GetSourcePort();
    w.udpDstPort = udp.GetDestinationPort();
    w.ecnCe = ip.GetEcn() == Ipv4Header::ECN_CE;
    std::vector<uint8_t> bytes(p->GetSize());
    p->CopyData(bytes.data(), static_cast<uint32_t>(bytes.size()));
    return bytes;
}

} // namespace

Ns3NicAdapter::~Ns3NicAdapter()
{
    Teardown();
}

const char*
Ns3NicAdapter::Name() const
{
    return "ns3-nic";
}

void
Ns3NicAdapter::Teardown()
{
    m_qp = nullptr;
    auto dispose = [](Ptr<MetaRoceNic>& nic) {
        if (nic != nullptr)
        {
            nic->Dispose();
            nic = nullptr;
        }
    };
    dispose(m_nic);
    dispose(m_peer);
    m_nicPorts.clear();
    Simulator::Destroy();
}

void
Ns3NicAdapter::ApplyAttributes()
{
    // Every portable setting is a row of the engine's configuration tables, and every row an
    // attribute of the NIC (metaroce-config-attributes.h): hand the whole configuration over.
    for (const Ptr<MetaRoceNic>& nic : {m_nic, m_peer})
    {
        if (m_setup.transport == Transport::MetaRoce)
        {
            SetConfigAttributes(*nic, m_setup.metaroce, MetaRoceConfigFields());
            Ptr<MetaRoceAimd> aimd = CreateObject<MetaRoceAimd>();
            SetConfigAttributes(*aimd, m_setup.metaroce.aimd, AimdConfigFields());
            nic->SetCongestionOps(aimd);
        }
        else
        {
            nic->SetAttribute("Mtu", UintegerValue(m_setup.rocev2.mtu));
            SetConfigAttributes(*nic, m_setup.rocev2, RoceV2ConfigFields(), "Roce");
            Ptr<MetaRoceDcqcn> dcqcn = CreateObject<MetaRoceDcqcn>();
            SetConfigAttributes(*dcqcn, m_setup.rocev2.dcqcn, DcqcnConfigFields());
            dcqcn->SetAttribute("Variant",
                                StringValue(DcqcnVariantName(m_setup.rocev2.dcqcn.variant)));
            nic->SetRoceRateControl(dcqcn);
        }
        // With the mCRC the engine checks the whole datagram, so it must be handed every byte
        // (spec 4.1; the regions stay virtual: nothing is placed).
        nic->SetAttribute(
            "RealPayload",
            BooleanValue(m_setup.transport == Transport::MetaRoce && m_setup.metaroce.mcrc));
    }
}

void
Ns3NicAdapter::Reset(const DutSetup& setup)
{
    Teardown();
    m_setup = setup;
    m_emitted.clear();
    m_completions.clear();
    m_refusedByNic = Counters();
    m_nicArrivals = 0;

    Ptr<Node> dutNode = CreateObject<Node>();
    Ptr<Node> wireNode = CreateObject<Node>();
    Ptr<Node> peerNode = CreateObject<Node>();
    Ptr<Node> voidNode = CreateObject<Node>();
    m_nic = CreateObject<MetaRoceNic>();
    m_peer = CreateObject<MetaRoceNic>();
    m_nic->AssignStreams(1);
    m_peer->AssignStreams(2);
    ApplyAttributes();

    MetaRoceLinkHelper link;
    link.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    link.SetDeviceAttribute("DataRate", DataRateValue(DataRate(setup.PortRateBps())));
    for (uint16_t port = 0; port < setup.Ports(); ++port)
    {
        NetDeviceContainer dev = link.Install(dutNode, wireNode);
        Ptr<MetaRoceNetDevice> nicPort = DynamicCast<MetaRoceNetDevice>(dev.Get(0));
        Ptr<MetaRoceNetDevice> wire = DynamicCast<MetaRoceNetDevice>(dev.Get(1));
        wire->SetReceiveCallback(
            MakeCallback(+[](Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&) {
                return true; // the wire absorbs what the NIC sends; PhyTxBegin captured it
            }));
        nicPort->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&Ns3NicAdapter::OnPhyTxBegin, this).Bind(port));
        m_nic->AddPort(nicPort, NicAddress(port));
        m_nicPorts.push_back(nicPort);

        // The peer NIC's ports lead nowhere: it only lends the connection its identity.
        NetDeviceContainer peerDev = link.Install(peerNode, voidNode);
        m_peer->AddPort(DynamicCast<MetaRoceNetDevice>(peerDev.Get(0)), PeerAddress(port));
    }
    m_nic->TraceConnectWithoutContext("Rx", MakeCallback(&Ns3NicAdapter::OnNicRx, this));
    m_nic->TraceConnectWithoutContext("Drop", MakeCallback(&Ns3NicAdapter::OnNicDrop, this));
    for (const DutRegion& r : setup.regions)
    {
        m_nic->RegisterMemory(r.key, r.addr, r.length, nullptr);
    }
    m_qp = MetaRoceNic::Connect(m_nic, m_peer, setup.transport, 0).first;
    if (m_qp->GetLocalId() != kDutConnection || m_qp->GetRemoteId() != kDutConnection)
    {
        throw std::logic_error("ns3-nic: the NIC's first queue pair is not connection " +
                               std::to_string(kDutConnection));
    }
    m_qp->SetCompletionCallback(MakeCallback(&Ns3NicAdapter::OnCompletion, this));
}

TimeNs
Ns3NicAdapter::Now() const
{
    return static_cast<TimeNs>(Simulator::Now().GetNanoSeconds());
}

void
Ns3NicAdapter::StopNow()
{
    Simulator::Stop();
}

void
Ns3NicAdapter::OutputArrived()
{
    if (m_running && m_stopOnOutput)
    {
        Simulator::Cancel(m_stopMarker);
        Simulator::Stop();
    }
}

void
Ns3NicAdapter::AdvanceTo(TimeNs t, bool stopOnOutput)
{
    if (stopOnOutput && (!m_emitted.empty() || !m_completions.empty()))
    {
        return;
    }
    const TimeNs now = Now();
    // A marker at t (inserted after every event already due at t, which therefore run first)
    // ends the run; output cancels it when the runner wants to stop early.
    m_stopMarker = Simulator::Schedule(Ns(t > now ? t - now : 0), &Ns3NicAdapter::StopNow);
    m_stopOnOutput = stopOnOutput;
    m_running = true;
    Simulator::Run();
    m_running = false;
    m_stopOnOutput = false;
}

void
Ns3NicAdapter::Inject(const WirePacket& pkt)
{
    if (pkt.port >= m_nicPorts.size())
    {
        throw std::invalid_argument("ns3-nic adapter: no port " + std::to_string(pkt.port));
    }
    Ptr<Packet> p = Create<Packet>(pkt.bytes.data(), static_cast<uint32_t>(pkt.bytes.size()));
    UdpHeader udp;
    udp.SetSourcePort(pkt.udpSrcPort);
    udp.SetDestinationPort(pkt.udpDstPort);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(PeerAddress(pkt.port));
    ip.SetDestination(NicAddress(pkt.port));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetEcn(pkt.ecnCe ? Ipv4Header::ECN_CE : Ipv4Header::ECN_ECT0);
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    const uint64_t arrivals = m_nicArrivals + 1;
    Ptr<MetaRoceNetDevice> port = m_nicPorts[pkt.port];
    Simulator::ScheduleWithContext(port->GetNode()->GetId(), Seconds(0), &DeliverNow, port, p);
    const TimeNs now = Now();
    for (int round = 0; m_nicArrivals < arrivals; ++round)
    {
        if (round == kMaxInjectRounds)
        {
            throw std::logic_error("ns3-nic: an injected packet did not reach the NIC");
        }
        AdvanceTo(now, false);
    }
    if (Now() != now)
    {
        throw std::logic_error("ns3-nic: injection took simulated time");
    }
}

uint64_t
Ns3NicAdapter::Post(const WorkRequest& wr)
{
    switch (wr.op)
    {
    case Opcode::Write:
        return m_qp->PostWrite(wr.stream,
                               wr.length,
                               wr.remoteAddr,
                               wr.remoteKey,
                               wr.localAddr,
                               wr.localKey);
    case Opcode::Send:
        return m_qp->PostSend(wr.stream, wr.length, wr.localAddr, wr.localKey);
    case Opcode::Recv:
        return m_qp->PostRecv(wr.stream, wr.length, wr.localAddr, wr.localKey);
    }
    throw std::invalid_argument("ns3-nic adapter: unknown work request opcode");
}

void
Ns3NicAdapter::PostToRefuse(const WorkRequest& wr)
{
    if (wr.op == Opcode::Recv)
    {
        m_qp->GetEngine().PostRecv(wr);
    }
    else
    {
        m_qp->GetEngine().PostSend(wr, Now());
    }
}

void
Ns3NicAdapter::SetPortState(uint16_t port, bool up)
{
    m_nic->SetPortUp(port, up);
}

void
Ns3NicAdapter::OnPhyTxBegin(uint16_t port, Ptr<const Packet> frame)
{
    Ptr<Packet> p = frame->Copy();
    PppHeader ppp;
    p->RemoveHeader(ppp);
    WirePacket w;
    w.time = Now();
    w.port = port;
    w.bytes = UdpPayload(p, w);
    m_emitted.push_back(std::move(w));
    OutputArrived();
}

void
Ns3NicAdapter::OnNicRx(Ptr<const Packet> packet, uint32_t port)
{
    ++m_nicArrivals;
}

void
Ns3NicAdapter::OnNicDrop(Ptr<const Packet> packet, uint32_t port, std::string reason)
{
    // Refusals of the engine are in its own counters; only the NIC's own are added here, under
    // the spec reason each amounts to (kNicDropReasons).
    const ReasonInfo<NicDropReason>* nic = FindReason(kNicDropReasons, reason);
    if (nic == nullptr || nic->specName == nullptr)
    {
        return;
    }
    WirePacket w;
    const std::vector<uint8_t> bytes = UdpPayload(packet->Copy(), w);
    DropReason counted = *DropReasonBySpecName(nic->specName);
    const std::size_t n = std::min<std::size_t>(bytes.size(), kPeekBytes);
    if (nic->reason == NicDropReason::UnknownDestination &&
        !PeekDestination(bytes.data(), n, w.udpDstPort))
    {
        counted = DropReason::Truncated; // not even a destination to read (spec 5.8, check 2)
    }
    ++m_refusedByNic.rxPackets;
    m_refusedByNic.rxBytes += bytes.size();
    m_refusedByNic.CountDrop(counted);
}

void
Ns3NicAdapter::OnCompletion(Ptr<MetaRoceQueuePair> qp, const Completion& c)
{
    m_completions.push_back(c);
    OutputArrived();
}

Counters
Ns3NicAdapter::ReadCounters() const
{
    Counters c = m_qp->GetCounters();
    c.rxPackets += m_refusedByNic.rxPackets;
    c.rxBytes += m_refusedByNic.rxBytes;
    for (std::size_t i = 0; i < c.drops.size(); ++i)
    {
        c.drops[i] += m_refusedByNic.drops[i];
    }
    return c;
}

} // namespace metaroce::compliance
