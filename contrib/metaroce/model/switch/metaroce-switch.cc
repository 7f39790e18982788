/*
 * MetaRoceSwitch, part 1 of 4: ports, the forwarding path (receive -> parse -> route -> admit
 * -> mark -> enqueue; pull -> dequeue), link state and configuration. The PFC state machine is
 * in metaroce-switch-pfc.cc, counters and accessors in metaroce-switch-counters.cc, the
 * admission and marking objects in metaroce-switch-algorithms.cc.
 */
#include "metaroce-switch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-dynamic-threshold-admission.h"
#include "ns3/metaroce-red-ecn-marker.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSwitch);

namespace
{
constexpr uint8_t kUdp = 17;
constexpr uint32_t kUdpHeaderSize = 8;
constexpr MetaRoceDropReason kAdmitted = MetaRoceDropReason::COUNT;
} // namespace

TypeId
MetaRoceSwitch::GetTypeId()
{
    static TypeId tid = AddTraceSources(AddFormerAttributes(AddEcnAttributes(
        TypeId("ns3::MetaRoceSwitch")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceSwitch>()
            .AddAttribute("EcmpSeed",
                          "Per-switch seed of the ECMP hash; give each switch its own to avoid "
                          "hash polarisation between tiers.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_ecmpSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcmpByDestination",
                          "Choose an ECMP member by the destination address modulo the group's "
                          "live size instead of the hash (destination-mod-k routing, as fat-tree "
                          "routing engines do): a balanced placement for permutations and "
                          "all-to-alls, whatever the sender's entropy.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceSwitch::m_ecmpByDestination),
                          MakeBooleanChecker())
            .AddAttribute("BufferSize",
                          "Shared packet buffer of the switch, in bytes (IPv4 sizes).",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute(
                "BufferAdmission",
                "Lossy mode: which policy admits packets to egress queues of the "
                "shared buffer (a MetaRoceBufferAdmission and its attributes).",
                ObjectFactoryValue(DefaultAlgorithmFactory<MetaRoceDynamicThresholdAdmission>()),
                MakeObjectFactoryAccessor(&MetaRoceSwitch::SetBufferAdmissionFactory,
                                          &MetaRoceSwitch::GetBufferAdmissionFactory),
                MakeAlgorithmFactoryChecker(MetaRoceBufferAdmission::GetTypeId()))
            .AddAttribute("ControlMaxPayload",
                          "Without a DSCP CS6/CS7 mark, largest L4 payload (bytes) that still "
                          "makes a packet CONTROL class; 0 (default) turns the size rule off.",
                          UintegerValue(kMetaRoceControlMaxPayload),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_controlMaxPayload),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ControlPriority",
                          "Serve CS6/CS7 packets (ACKs, NACKs, CNPs) and trimmed headers before "
                          "DATA. false: all but trimmed headers queue as DATA, as HPCC's "
                          "simulator's switches keep an ACK in its flow's priority group.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceSwitch::m_controlPriority),
                          MakeBooleanChecker())
            .AddAttribute("PfcEnabled",
                          "Lossless mode: send PAUSE/RESUME per ingress port and class, and "
                          "honour those received.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceSwitch::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcXoff",
                          "Bytes buffered from one ingress port and class above which that "
                          "ingress is paused.",
                          UintegerValue(96 * 1024),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_pfcXoff),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcXon",
                          "Bytes at or below which a paused ingress is resumed (< PfcXoff).",
                          UintegerValue(64 * 1024),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_pfcXon),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcQuanta",
                          "Pause time carried in PAUSE frames, in 512-bit-time units.",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_pfcQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("TrimEnabled",
                          "Trim a DATA packet that does not fit to its headers and forward "
                          "it as CONTROL instead of dropping it.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceSwitch::m_trimEnabled),
                          MakeBooleanChecker())
            .AddAttribute("TrimSize",
                          "UDP payload bytes a trimmed packet keeps (its transport header; "
                          "64 covers every MetaRoCE and RoCEv2 data header).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&MetaRoceSwitch::m_trimSize),
                          MakeUintegerChecker<uint32_t>()))));
    return tid;
}

TypeId
MetaRoceSwitch::AddTraceSources(TypeId tid)
{
    return tid
        .AddTraceSource("Enqueue",
                        "A packet entered an egress queue (packet, port, class).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_enqueueTrace),
                        "ns3::MetaRoceSwitch::PacketTracedCallback")
        .AddTraceSource("Dequeue",
                        "A packet left an egress queue for the wire (packet, port, class).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_dequeueTrace),
                        "ns3::MetaRoceSwitch::PacketTracedCallback")
        .AddTraceSource("Drop",
                        "A packet was dropped (packet, port, reason).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_dropTrace),
                        "ns3::MetaRoceSwitch::DropTracedCallback")
        .AddTraceSource("EcnMark",
                        "A packet was marked CE (packet, port, DATA queue bytes).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_ecnTrace),
                        "ns3::MetaRoceSwitch::EcnTracedCallback")
        .AddTraceSource("Trim",
                        "A packet was trimmed (trimmed packet, port, class).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_trimTrace),
                        "ns3::MetaRoceSwitch::PacketTracedCallback")
        .AddTraceSource("PfcPause",
                        "A PFC frame was sent (port, class, PAUSE or RESUME).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_pfcTxTrace),
                        "ns3::MetaRoceSwitch::PfcTracedCallback")
        .AddTraceSource("PfcReceived",
                        "A PFC frame was received (port, class, PAUSE or RESUME).",
                        MakeTraceSourceAccessor(&MetaRoceSwitch::m_pfcRxTrace),
                        "ns3::MetaRoceSwitch::PfcTracedCallback");
}

MetaRoceSwitch::MetaRoceSwitch()
    : m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSwitch::~MetaRoceSwitch() = default;

void
MetaRoceSwitch::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    CheckConfig();
    Object::DoInitialize();
}

void
MetaRoceSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (Port& pt : m_ports)
    {
        for (uint32_t c = 0; c < kMetaRoceNumClasses; ++c)
        {
            pt.refresh[c].Cancel();
            pt.pauseExpiry[c].Cancel();
        }
        m_arrivals->ReleasePort(pt.device, this);
        pt.queue->ReleaseOwner(this);
    }
    m_ports.clear();
    m_rng = nullptr;
    m_arrivals = nullptr;
    m_ecnMarker->Dispose();
    m_ecnMarker = nullptr;
    m_admission = nullptr;
    Object::DoDispose();
}

void
MetaRoceSwitch::CheckConfig()
{
    // Cross-attribute checks: attributes may be set in any order, so they are checked when the
    // switch starts (DoInitialize) and, for switches never initialised, on the first packet.
    m_admission->CheckConfig();
    m_ecnMarker->CheckConfig();
    const std::string pfc = PfcProblem(m_pfcEnabled, m_pfcXon, m_pfcXoff, m_bufferSize);
    NS_ABORT_MSG_IF(!pfc.empty(), pfc);
    m_configChecked = true;
}

std::string
MetaRoceSwitch::PfcProblem(bool enabled, uint64_t xon, uint64_t xoff, uint64_t buffer)
{
    if (enabled && xon >= xoff)
    {
        return "MetaRoceSwitch: PfcXon (" + std::to_string(xon) + ") must be below PfcXoff (" +
               std::to_string(xoff) + ")";
    }
    if (enabled && xoff >= buffer)
    {
        return "MetaRoceSwitch: PfcXoff (" + std::to_string(xoff) + ") must be below BufferSize (" +
               std::to_string(buffer) + ")";
    }
    return "";
}

uint32_t
MetaRoceSwitch::AddPort(Ptr<NetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(device == nullptr, "MetaRoceSwitch::AddPort: null device");
    const uint32_t idx = m_ports.size();
    m_ports.emplace_back();
    Port& pt = m_ports.back();
    pt.device = device;
    pt.queue = CreateObject<MetaRocePortQueue>();
    pt.queue->SetOwner(this, idx);
    pt.queue->Attach(device);
    m_arrivals = MetaRoceArrivals::Of(device->GetNode());
    m_arrivals->BindPort(device, this, idx);
    m_fib.SetPortUp(idx, true);
    return idx;
}

void
MetaRoceSwitch::AddRoute(Ipv4Address dst, Ipv4Mask mask, uint32_t port)
{
    NS_LOG_FUNCTION(this << dst << mask << port);
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceSwitch::AddRoute: no port " << port);
    m_fib.AddRoute(dst, mask, port);
}

std::vector<uint32_t>
MetaRoceSwitch::GetNextHops(Ipv4Address dst) const
{
    return m_fib.GetNextHops(dst);
}

void
MetaRoceSwitch::ReceiveFrame(uint32_t port, Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << port << packet);
    if (!m_configChecked)
    {
        CheckConfig();
    }
    Port& in = m_ports[port];
    // 1. Parse the IPv4/UDP bytes once. PFC frames are link-local MAC control: consumed here,
    //    never counted as traffic (and ignored unless PFC is enabled).
    MetaRocePacketInfo info;
    const bool ipv4 = MetaRoceParseIpv4(packet, info); // the device carries IPv4 only
    if (ipv4 && info.key.protocol == kMetaRocePfcProtocol)
    {
        if (auto frame = ParsePfcFrame(packet))
        {
            if (in.up && m_pfcEnabled)
            {
                HandlePfcFrame(port, *frame);
            }
            return;
        }
    }
    in.counters.rxPackets++;
    in.counters.rxBytes += packet->GetSize();
    m_received++;
    // 2. Look up the egress.
    if (!in.up)
    {
        Drop(packet, port, MetaRoceDropReason::PORT_DOWN);
        return;
    }
    if (!ipv4)
    {
        Drop(packet, port, MetaRoceDropReason::MALFORMED);
        return;
    }
    const MetaRoceFib::Result route = m_fib.Lookup(info.key, m_ecmpSeed, m_ecmpByDestination);
    if (route.status != MetaRoceFib::Status::OK)
    {
        Drop(packet,
             port,
             route.status == MetaRoceFib::Status::NO_ROUTE ? MetaRoceDropReason::NO_ROUTE
                                                           : MetaRoceDropReason::PORT_DOWN);
        return;
    }
    const uint32_t egress = route.port;
    const uint32_t cls =
        m_controlPriority
            ? static_cast<uint32_t>(MetaRoceClassify(info.tos, info.l4Payload, m_controlMaxPayload))
            : static_cast<uint32_t>(METAROCE_CLASS_DATA);

    // 3. Admission to the shared buffer; a refused DATA packet may survive trimmed (a copy).
    const MetaRoceDropReason verdict = Admit(egress, cls, packet->GetSize());
    if (verdict != kAdmitted)
    {
        if (!TrimAndEnqueue(packet, info, port, egress, cls))
        {
            Drop(packet, egress, verdict);
        }
        return;
    }

    // 4. ECN: the marker's policy on the DATA queue, ECT(0) and ECT(1) only, now or (with
    //    EcnAtDequeue) when the packet leaves. An unmarked packet goes on as it came, uncopied
    //    (MetaRoceFrameSink::ReceiveFrame).
    const bool markable = Markable(info, cls);
    if (m_ecnAtDequeue || !markable)
    {
        Enqueue(packet, port, egress, cls, markable);
        return;
    }
    Enqueue(MaybeMarkCe(packet, egress), port, egress, cls);
}

bool
MetaRoceSwitch::TrimAndEnqueue(Ptr<const Packet> packet,
                               const MetaRocePacketInfo& info,
                               uint32_t ingress,
                               uint32_t egress,
                               uint32_t cls)
{
    if (!m_trimEnabled || cls != METAROCE_CLASS_DATA || info.key.protocol != kUdp ||
        info.l4Payload <= m_trimSize)
    {
        return false;
    }
    Ptr<Packet> p = packet->Copy();
    Trim(p, info);
    if (Admit(egress, METAROCE_CLASS_CONTROL, p->GetSize()) != kAdmitted)
    {
        return false;
    }
    m_ports[egress].counters.trimmed++;
    m_trimTrace(p, egress, METAROCE_CLASS_CONTROL);
    Enqueue(p, ingress, egress, METAROCE_CLASS_CONTROL);
    return true;
}

MetaRoceDropReason
MetaRoceSwitch::Admit(uint32_t port, uint32_t cls, uint32_t size) const
{
    if (m_bufferUsed + size > m_bufferSize)
    {
        return MetaRoceDropReason::BUFFER_FULL;
    }
    // Lossless mode: PFC, not a per-queue limit, keeps the buffer from overflowing.
    if (!m_pfcEnabled &&
        !m_admission->Admit(m_ports[port].egressBytes[cls], size, m_bufferUsed, m_bufferSize))
    {
        return MetaRoceDropReason::PORT_LIMIT;
    }
    return kAdmitted;
}

void
MetaRoceSwitch::Trim(Ptr<Packet> p, const MetaRocePacketInfo& info) const
{
    // Keep IPv4 + UDP + TrimSize bytes; the IPv4 length shrinks, the UDP length (untouched
    // bytes) still tells the receiver the original size.
    Ipv4Header ip;
    p->RemoveHeader(ip);
    const uint32_t keep = kUdpHeaderSize + std::min(m_trimSize, info.l4Payload);
    p->RemoveAtEnd(p->GetSize() - keep);
    ip.SetPayloadSize(keep);
    // What is left is a header the receiver acts on at once: it travels as CONTROL from here.
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(kMetaRoceControlDscp));
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    p->AddHeader(ip);
}

void
MetaRoceSwitch::Enqueue(Ptr<Packet> p,
                        uint32_t ingress,
                        uint32_t egress,
                        uint32_t cls,
                        bool markAtDequeue)
{
    NS_LOG_FUNCTION(this << p << ingress << egress << cls);
    const uint32_t size = p->GetSize();
    Port& out = m_ports[egress];
    out.egress[cls].push_back(Item{p, ingress, size, markAtDequeue});
    out.egressBytes[cls] += size;
    out.counters.maxQueueBytes =
        std::max(out.counters.maxQueueBytes,
                 out.egressBytes[METAROCE_CLASS_CONTROL] + out.egressBytes[METAROCE_CLASS_DATA]);
    m_bufferUsed += size;
    m_queued++;
    m_enqueueTrace(p, egress, cls);
    CheckConservation();

    // PFC: the ingress account crossed Xoff -> pause the upstream neighbour for this class.
    Port& in = m_ports[ingress];
    in.ingressBytes[cls] += size;
    if (m_pfcEnabled && !in.pausing[cls] && in.ingressBytes[cls] > m_pfcXoff)
    {
        in.pausing[cls] = true;
        SendPfc(ingress, cls, true);
    }
    KickPort(egress);
}

void
MetaRoceSwitch::Drop(Ptr<const Packet> p, uint32_t port, MetaRoceDropReason reason)
{
    NS_LOG_LOGIC("drop " << p << " at port " << port << ": " << DropReasonName(reason));
    m_ports[port].counters.drops[size_t(reason)]++;
    m_dropped++;
    m_dropTrace(p, port, DropReasonName(reason));
    CheckConservation();
}

void
MetaRoceSwitch::Unbuffer(const Item& item, uint32_t egress, uint32_t cls)
{
    m_ports[egress].egressBytes[cls] -= item.size;
    m_bufferUsed -= item.size;
    m_queued--;
    m_ports[item.ingress].ingressBytes[cls] -= item.size;
}

Ptr<Packet>
MetaRoceSwitch::PullPort(uint32_t port)
{
    Port& pt = m_ports[port];
    if (!pt.up)
    {
        return nullptr;
    }
    if (!pt.pfcOut.empty())
    {
        Ptr<Packet> frame = pt.pfcOut.front();
        pt.pfcOut.pop_front();
        return frame;
    }
    for (uint32_t cls = 0; cls < kMetaRoceNumClasses; ++cls)
    {
        if (pt.paused[cls] || pt.egress[cls].empty())
        {
            continue;
        }
        Item item = std::move(pt.egress[cls].front());
        pt.egress[cls].pop_front();
        Unbuffer(item, port, cls);
        if (item.markAtDequeue)
        {
            item.packet = MaybeMarkCe(item.packet, port);
        }
        pt.counters.txPackets++;
        pt.counters.txBytes += item.size;
        m_forwarded++;
        m_dequeueTrace(item.packet, port, cls);
        CheckConservation();
        // A RESUME may be due on the ingress; if that is this very port, it goes out after
        // this packet (the port's device asks again when it is done).
        pt.inPull = true;
        MaybeResume(item.ingress, cls);
        m_ports[port].inPull = false;
        return item.packet;
    }
    return nullptr;
}

bool
MetaRoceSwitch::MayHaveWork(uint32_t port) const
{
    // Everything that queues for a port kicks it (KickPort); a paused class counts, its RESUME
    // kicks as well.
    const Port& pt = m_ports[port];
    return !pt.pfcOut.empty() || std::any_of(pt.egress.begin(), pt.egress.end(), [](const auto& q) {
        return !q.empty();
    });
}

void
MetaRoceSwitch::KickPort(uint32_t port)
{
    Port& pt = m_ports[port];
    if (pt.up && !pt.inPull)
    {
        pt.queue->Kick();
    }
}

void
MetaRoceSwitch::SetPortUp(uint32_t port, bool up)
{
    NS_LOG_FUNCTION(this << port << up);
    NS_ABORT_MSG_IF(port >= m_ports.size(), "MetaRoceSwitch::SetPortUp: no port " << port);
    if (m_ports[port].up == up)
    {
        return;
    }
    m_ports[port].up = up;
    m_fib.SetPortUp(port, up);
    if (up)
    {
        KickPort(port);
        return;
    }
    Port& pt = m_ports[port];
    pt.pfcOut.clear();
    for (uint32_t cls = 0; cls < kMetaRoceNumClasses; ++cls)
    {
        pt.paused[cls] = false;
        pt.pauseExpiry[cls].Cancel();
        pt.pausing[cls] = false;
        pt.refresh[cls].Cancel();
    }
    for (uint32_t cls = 0; cls < kMetaRoceNumClasses; ++cls)
    {
        while (!m_ports[port].egress[cls].empty())
        {
            const Item item = m_ports[port].egress[cls].front();
            m_ports[port].egress[cls].pop_front();
            Unbuffer(item, port, cls);
            Drop(item.packet, port, MetaRoceDropReason::PORT_DOWN);
            MaybeResume(item.ingress, cls);
        }
    }
}

bool
MetaRoceSwitch::IsPortUp(uint32_t port) const
{
    return m_ports.at(port).up;
}

void
MetaRoceSwitch::CheckConservation() const
{
    NS_ASSERT_MSG(m_received == m_forwarded + m_dropped + m_queued,
                  "MetaRoceSwitch: packet conservation violated: received "
                      << m_received << " != forwarded " << m_forwarded << " + dropped " << m_dropped
                      << " + queued " << m_queued);
}

int64_t
MetaRoceSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

} // namespace ns3
