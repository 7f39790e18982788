/*
 * PFC frames (MakePfcFrame, ParsePfcFrame: the format is in metaroce-switch-pfc.h) and the
 * switch's PFC state machine (MetaRoceSwitch, part 2 of 3).
 */
#include "metaroce-switch-pfc.h"

#include "metaroce-switch.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSwitchPfc");
NS_OBJECT_ENSURE_REGISTERED(MetaRocePfcHeader);

namespace
{
constexpr uint8_t kDscpCs7 = 56;
constexpr uint32_t kIpv4HeaderSize = 20;
} // namespace

MetaRoceTrafficClass
MetaRoceClassify(uint8_t tos, uint32_t l4Payload, uint32_t controlMaxPayload)
{
    const uint8_t dscp = tos >> 2;
    if (dscp == kMetaRoceControlDscp || dscp == kDscpCs7 ||
        (controlMaxPayload > 0 && l4Payload <= controlMaxPayload))
    {
        return METAROCE_CLASS_CONTROL;
    }
    return METAROCE_CLASS_DATA;
}

TypeId
MetaRocePfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRocePfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRocePfcHeader>();
    return tid;
}

TypeId
MetaRocePfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MetaRocePfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
MetaRocePfcHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(m_magic);
    start.WriteU8(m_opcode);
    start.WriteU8(m_class);
    start.WriteHtonU16(m_quanta);
    start.WriteHtonU16(m_reserved);
}

uint32_t
MetaRocePfcHeader::Deserialize(Buffer::Iterator start)
{
    m_magic = start.ReadNtohU16();
    m_opcode = start.ReadU8();
    m_class = start.ReadU8();
    m_quanta = start.ReadNtohU16();
    m_reserved = start.ReadNtohU16();
    return SIZE;
}

void
MetaRocePfcHeader::Print(std::ostream& os) const
{
    os << (m_opcode == OP_PAUSE    ? "PFC PAUSE"
           : m_opcode == OP_RESUME ? "PFC RESUME"
                                   : "PFC ?")
       << " class=" << unsigned(m_class) << " quanta=" << m_quanta;
}

Ptr<Packet>
MakePfcFrame(uint8_t cls, bool pause, uint16_t quanta)
{
    NS_LOG_FUNCTION(unsigned(cls) << pause << quanta);
    NS_ASSERT_MSG(cls < kMetaRoceNumClasses, "MakePfcFrame: class " << unsigned(cls));
    MetaRocePfcHeader pfc;
    pfc.m_opcode = pause ? MetaRocePfcHeader::OP_PAUSE : MetaRocePfcHeader::OP_RESUME;
    pfc.m_class = cls;
    pfc.m_quanta = pause ? quanta : 0;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);

    Ipv4Header ip;
    ip.SetSource(Ipv4Address::GetAny());
    ip.SetDestination(Ipv4Address::GetBroadcast());
    ip.SetProtocol(kMetaRocePfcProtocol);
    ip.SetTtl(1);
    ip.SetDscp(Ipv4Header::DSCP_CS7);
    ip.SetEcn(Ipv4Header::ECN_NotECT);
    ip.SetDontFragment();
    ip.SetPayloadSize(MetaRocePfcHeader::SIZE);
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    p->AddHeader(ip);
    return p;
}

bool
IsPfcProtocol(Ptr<const Packet> packet)
{
    uint8_t buf[kIpv4HeaderSize];
    if (packet->CopyData(buf, kIpv4HeaderSize) < kIpv4HeaderSize)
    {
        return false;
    }
    return (buf[0] >> 4) == 4 && buf[9] == kMetaRocePfcProtocol;
}

std::optional<MetaRocePfcFrame>
ParsePfcFrame(Ptr<const Packet> packet)
{
    // The IPv4 header may carry options (IHL > 5): read the PFC header after IHL * 4 bytes.
    uint8_t buf[60 + MetaRocePfcHeader::SIZE];
    const uint32_t n = packet->CopyData(buf, sizeof(buf));
    if (n < kIpv4HeaderSize || (buf[0] >> 4) != 4 || buf[9] != kMetaRocePfcProtocol)
    {
        return std::nullopt;
    }
    const uint32_t ihl = (buf[0] & 0x0f) * 4u;
    if (ihl < kIpv4HeaderSize || n < ihl + MetaRocePfcHeader::SIZE)
    {
        return std::nullopt;
    }
    const uint8_t* h = buf + ihl;
    const uint16_t magic = (h[0] << 8) | h[1];
    const uint8_t op = h[2];
    const uint8_t cls = h[3];
    const uint16_t quanta = (h[4] << 8) | h[5];
    const uint16_t reserved = (h[6] << 8) | h[7];
    if (magic != MetaRocePfcHeader::MAGIC || cls >= kMetaRoceNumClasses || reserved != 0 ||
        (op != MetaRocePfcHeader::OP_PAUSE && op != MetaRocePfcHeader::OP_RESUME))
    {
        NS_LOG_LOGIC("not a metaroce PFC frame: magic " << magic << " op " << unsigned(op)
                                                        << " class " << unsigned(cls));
        return std::nullopt;
    }
    MetaRocePfcFrame f;
    f.cls = cls;
    f.pause = op == MetaRocePfcHeader::OP_PAUSE && quanta != 0; // 802.1Qbb: quanta 0 = XON
    f.quanta = f.pause ? quanta : 0;
    return f;
}

Time
PfcQuantaToTime(uint16_t quanta, DataRate rate)
{
    return rate.CalculateBitsTxTime(uint32_t(quanta) * 512u);
}

// ---------------------------------------------------------------------------------------------
// MetaRoceSwitch, part 2 of 3: the PFC state machine. Per port and class, two independent halves:
// as a receiver of traffic the switch pauses its neighbour (pausing, refresh) when the bytes
// buffered from that ingress cross PfcXoff and resumes it at PfcXon; as a sender it obeys the
// neighbour's PAUSE (paused, pauseExpiry) until RESUME or expiry.
// ---------------------------------------------------------------------------------------------

void
MetaRoceSwitch::MaybeResume(uint32_t ingress, uint32_t cls)
{
    Port& in = m_ports[ingress];
    if (in.pausing[cls] && in.ingressBytes[cls] <= m_pfcXon)
    {
        in.pausing[cls] = false;
        in.refresh[cls].Cancel();
        SendPfc(ingress, cls, false);
    }
}

DataRate
MetaRoceSwitch::PortRate(uint32_t port) const
{
    DataRateValue rate;
    m_ports[port].device->GetAttribute("DataRate", rate);
    return rate.Get();
}

void
MetaRoceSwitch::SendPfc(uint32_t port, uint32_t cls, bool pause)
{
    NS_LOG_FUNCTION(this << port << cls << pause);
    Port& pt = m_ports[port];
    if (!pt.up)
    {
        return;
    }
    pt.pfcOut.push_back(MakePfcFrame(cls, pause, m_pfcQuanta));
    if (pause)
    {
        pt.counters.pauseSent++;
        // Refresh at half the pause time, so the neighbour never resumes on expiry while we
        // are still above Xon (and a lost RESUME costs at most one pause time).
        pt.refresh[cls].Cancel();
        pt.refresh[cls] = m_arrivals->Schedule(&pt.refresh[cls],
                                               PfcQuantaToTime(m_pfcQuanta, PortRate(port)) / 2,
                                               &MetaRoceSwitch::RefreshPause,
                                               this,
                                               port,
                                               cls);
    }
    else
    {
        pt.counters.resumeSent++;
    }
    m_pfcTxTrace(port, cls, pause);
    KickPort(port);
}

void
MetaRoceSwitch::RefreshPause(uint32_t port, uint32_t cls)
{
    // Arrivals of this instant have come first (Schedule()): one may have re-sent the PAUSE.
    if (m_ports[port].pausing[cls] && !MetaRoceIsPending(m_ports[port].refresh[cls]))
    {
        SendPfc(port, cls, true);
    }
}

void
MetaRoceSwitch::HandlePfcFrame(uint32_t port, const MetaRocePfcFrame& frame)
{
    NS_LOG_FUNCTION(this << port << unsigned(frame.cls) << frame.pause << frame.quanta);
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceSwitch::HandlePfcFrame: no port " << port);
    NS_ABORT_MSG_IF(frame.cls >= kMetaRoceNumClasses,
                    "MetaRoceSwitch::HandlePfcFrame: class " << unsigned(frame.cls));
    Port& pt = m_ports[port];
    const uint32_t cls = frame.cls;
    pt.pauseExpiry[cls].Cancel();
    m_pfcRxTrace(port, cls, frame.pause);
    if (frame.pause)
    {
        pt.counters.pauseReceived++;
        pt.paused[cls] = true;
        pt.pauseExpiry[cls] = m_arrivals->Schedule(&pt.pauseExpiry[cls],
                                                   PfcQuantaToTime(frame.quanta, PortRate(port)),
                                                   &MetaRoceSwitch::PauseTimedOut,
                                                   this,
                                                   port,
                                                   cls);
    }
    else
    {
        pt.counters.resumeReceived++;
        PauseExpired(port, cls);
    }
}

void
MetaRoceSwitch::PauseTimedOut(uint32_t port, uint32_t cls)
{
    // Arrivals of this instant have come first (Schedule()): one may have renewed the pause.
    if (!MetaRoceIsPending(m_ports[port].pauseExpiry[cls]))
    {
        PauseExpired(port, cls);
    }
}

void
MetaRoceSwitch::PauseExpired(uint32_t port, uint32_t cls)
{
    Port& pt = m_ports[port];
    if (pt.paused[cls])
    {
        pt.paused[cls] = false;
        KickPort(port);
    }
}

bool
MetaRoceSwitch::IsPaused(uint32_t port, uint32_t cls) const
{
    return m_ports.at(port).paused.at(cls);
}

bool
MetaRoceSwitch::HasTimerDueBy(Time t) const
{
    const auto step = static_cast<uint64_t>(t.GetTimeStep());
    const auto due = [step](const EventId& e) { return MetaRoceIsPending(e) && e.GetTs() <= step; };
    return std::any_of(m_ports.begin(), m_ports.end(), [&due](const Port& p) {
        return std::any_of(p.refresh.begin(), p.refresh.end(), due) ||
               std::any_of(p.pauseExpiry.begin(), p.pauseExpiry.end(), due);
    });
}

} // namespace ns3
