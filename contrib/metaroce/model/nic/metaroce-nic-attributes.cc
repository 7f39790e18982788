/*
 * MetaRoceNic's attributes and the engine configurations made from them. The engine tunables
 * are not written here one by one: they are the rows of the engine's configuration tables
 * (engine/common/config-field.h), added by AddConfigAttributes(); only what belongs to the NIC
 * itself (payload mode, fair-share policy) is declared by hand.
 */
#include "metaroce-nic.h"

#include "ns3/boolean.h"
#include "ns3/metaroce-config-attributes.h"
#include "ns3/metaroce-connection.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/rocev2-queue-pair.h"

#include <algorithm>

namespace ns3
{

TypeId
MetaRoceNic::GetTypeId()
{
    static const TypeId tid = [] {
        TypeId t = TypeId("ns3::MetaRoceNic")
                       .SetParent<Object>()
                       .SetGroupName("MetaRoce")
                       .AddConstructor<MetaRoceNic>();
        t = AddConfigAttributes(t, &MetaRoceNic::m_metaRoce, metaroce::MetaRoceConfigFields());
        t = AddConfigAttributes(t, &MetaRoceNic::m_roceV2, metaroce::RoceV2ConfigFields(), "Roce");
        return AddAlgorithmAttributes(AddHandWrittenAttributes(t));
    }();
    return tid;
}

bool
MetaRoceNic::Corrupts(Ptr<const Packet> packet, uint8_t* byte) const
{
    if (!m_corruptionModel || !m_corruptionModel->IsCorrupt(packet->Copy()))
    {
        return false;
    }
    if (byte != nullptr)
    {
        *byte ^= 0x10;
    }
    return true;
}

TypeId
MetaRoceNic::AddHandWrittenAttributes(TypeId tid)
{
    return tid
        .AddAttribute("RealPayload",
                      "Copy whole packets to the engines so registered memory receives real "
                      "bytes (slower); otherwise payloads are virtual.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&MetaRoceNic::m_realPayload),
                      MakeBooleanChecker())
        .AddAttribute("CorruptionModel",
                      "Bit errors the engines' checks see (spec 4.1): a packet this model "
                      "judges corrupt reaches its queue pair marked corrupted (with real "
                      "payloads, one bit of it flipped too). A MetaRoCE connection with Mcrc "
                      "refuses it as bad-crc, and so does RoCEv2 (its ICRC); without Mcrc it "
                      "goes undetected. Unlike a device's ReceiveErrorModel, which drops the "
                      "frame below the NIC, the drop is the transport's and counted as such. "
                      "Null: nothing is corrupted.",
                      PointerValue(),
                      MakePointerAccessor(&MetaRoceNic::m_corruptionModel),
                      MakePointerChecker<ErrorModel>())
        .AddAttribute("FairShareWindow",
                      "A queue pair counts as an active sender for the rate hint when it "
                      "delivered data within this window (spec 8.3).",
                      TimeValue(MicroSeconds(20)),
                      MakeTimeAccessor(&MetaRoceNic::m_fairShareWindow),
                      MakeTimeChecker(NanoSeconds(1)))
        .AddAttribute("FairShareWhenMarked",
                      "Advertise the fair share only while arriving data carries ECN CE "
                      "marks (this receiver's last hop is the bottleneck); otherwise the "
                      "line rate. False: always the fair share (spec 8.3).",
                      BooleanValue(true),
                      MakeBooleanAccessor(&MetaRoceNic::m_fairShareWhenMarked),
                      MakeBooleanChecker())
        .AddAttribute(
            "AdmissionRtt",
            "Receiver admission (spec 8.5): grant the active senders, split equally, "
            "credit for what the inbound line rate delivers in this time (the budget "
            "of bytes in flight towards this NIC); pair it with UnscheduledBytes, set "
            "alike on every NIC (without, the senders' first windows go unadmitted and "
            "the credit binds from the first ACK). 0: no admission, senders are limited by their "
            "windows.",
            TimeValue(Seconds(0)),
            MakeTimeAccessor(&MetaRoceNic::m_admissionRtt),
            MakeTimeChecker(Seconds(0), Seconds(1)))
        .AddAttribute(
            "ControlFirst",
            "Send every queue pair's ACKs, NAKs and CNPs before any data on a port, "
            "as a NIC whose responder builds them apart from the send queues' "
            "scheduler (spec A38). False: a queue pair's ACK waits for its turn in the "
            "port's round-robin, behind the data of the other queue pairs (the first "
            "waves' timing, which fakes reordering in all-to-alls).",
            BooleanValue(true),
            MakeBooleanAccessor(&MetaRoceNic::SetControlFirst, &MetaRoceNic::GetControlFirst),
            MakeBooleanChecker())
        .AddAttribute(
            "RecoveryFirst",
            "Send every queue pair's recovery (tail markers, tail-loss probes and the "
            "retransmissions of packets proven lost) before any queue pair's new data on a "
            "port, after control (spec A42). False: recovery waits for its queue pair's turn "
            "in the port's round-robin, behind one packet of every other queue pair with data.",
            BooleanValue(true),
            MakeBooleanAccessor(&MetaRoceNic::SetRecoveryFirst, &MetaRoceNic::GetRecoveryFirst),
            MakeBooleanChecker())
        .AddTraceSource("Tx",
                        "A packet left on a port (IPv4 and below not yet added by the "
                        "device: starts with IPv4).",
                        MakeTraceSourceAccessor(&MetaRoceNic::m_txTrace),
                        "ns3::MetaRoceNic::PortTracedCallback")
        .AddTraceSource("Rx",
                        "A packet arrived on a port (starts with IPv4).",
                        MakeTraceSourceAccessor(&MetaRoceNic::m_rxTrace),
                        "ns3::MetaRoceNic::PortTracedCallback")
        .AddTraceSource("Drop",
                        "An arriving packet was refused, with the reason.",
                        MakeTraceSourceAccessor(&MetaRoceNic::m_dropTrace),
                        "ns3::MetaRoceNic::DropTracedCallback");
}

std::shared_ptr<const metaroce::MetaRoceConfig>
MetaRoceNic::SharedMetaRoceConfig()
{
    metaroce::MetaRoceConfig c = m_metaRoce;
    c.ports = static_cast<uint16_t>(m_ports.size());
    c.portRateBps = LineRateBps(0);
    // Attributes may change between connections: those made before keep what they were made
    // with, as when every connection held a copy.
    if (!m_sharedMetaRoce || !metaroce::SameTunablesAndShape(*m_sharedMetaRoce, c))
    {
        m_sharedMetaRoce = std::make_shared<const metaroce::MetaRoceConfig>(c);
    }
    return m_sharedMetaRoce;
}

metaroce::RoceV2Config
MetaRoceNic::RoceV2ConfigFor(uint32_t local, uint32_t remote, uint32_t plane)
{
    metaroce::RoceV2Config c = m_roceV2;
    c.localQpn = local;
    c.remoteQpn = remote;
    c.mtu = m_metaRoce.mtu;
    c.port = static_cast<uint16_t>(plane);
    c.udpSrcPort = static_cast<uint16_t>(m_rng->GetInteger(49152, 65535));
    c.lineRateBps = LineRateBps(plane);
    c.dcqcn = GetRoceRateControl()->GetConfig();
    return c;
}

namespace
{

/// `config`'s fields of `fields` (attributes `prefix` + name) as `settings` leave them.
template<typename Config>
void
SettleConfig(Config& config,
             const metaroce::ConfigFields<Config>& fields,
             const std::string& prefix,
             const MetaRoceAttributeSettings& settings)
{
    for (const metaroce::ConfigField<Config>& f : fields)
    {
        double v = 0;
        const auto value =
            GetSettledAttribute(MetaRoceNic::GetTypeId(), prefix + f.attribute, settings);
        if (value && ReadConfigFieldValue(f.unit, *value, v))
        {
            f.set(config, v);
        }
    }
}

} // namespace

std::string
MetaRoceNic::GetConfigProblem(const MetaRoceAttributeSettings& settings,
                              uint32_t ports,
                              uint64_t rateBps,
                              metaroce::Transport transport)
{
    const TypeId tid = GetTypeId();
    // The engines CreateQueuePair() makes, from the same configuration and algorithms: their
    // constructors validate everything and throw what the NIC would report as a fatal error.
    metaroce::MetaRoceConfig config;
    SettleConfig(config, metaroce::MetaRoceConfigFields(), "", settings);
    config.ports = static_cast<uint16_t>(std::min<uint32_t>(ports, UINT16_MAX));
    config.portRateBps = rateBps;
    try
    {
        if (transport == metaroce::Transport::MetaRoce)
        {
            const auto cc =
                CreateSettledAlgorithm<MetaRoceCongestionOps>(tid, "CongestionControl", settings);
            const auto flows =
                CreateSettledAlgorithm<MetaRoceFlowSelection>(tid, "FlowSelection", settings);
            if (cc == nullptr || flows == nullptr)
            {
                return "MetaRoceNic: CongestionControl or FlowSelection cannot make its object";
            }
            metaroce::MetaRoceConnection connection(config, nullptr, cc->Create(), flows->Create());
            return "";
        }
        metaroce::RoceV2Config roce;
        SettleConfig(roce, metaroce::RoceV2ConfigFields(), "Roce", settings);
        const auto dcqcn = CreateSettledAlgorithm<MetaRoceDcqcn>(tid, "RoceRateControl", settings);
        if (dcqcn == nullptr)
        {
            return "MetaRoceNic: RoceRateControl cannot make its object";
        }
        roce.mtu = config.mtu;
        roce.lineRateBps = rateBps;
        roce.dcqcn = dcqcn->GetConfig();
        metaroce::MemoryRegistry memory;
        metaroce::RoceV2QueuePair queuePair(roce, memory);
    }
    catch (const std::invalid_argument& e)
    {
        return std::string("MetaRoceNic: invalid configuration: ") + e.what();
    }
    return "";
}

// The scheduler keeps ControlFirst and RecoveryFirst: the attributes read and write it.

void
MetaRoceNic::SetControlFirst(bool on)
{
    m_scheduler.SetControlFirst(on);
}

bool
MetaRoceNic::GetControlFirst() const
{
    return m_scheduler.GetControlFirst();
}

void
MetaRoceNic::SetRecoveryFirst(bool on)
{
    m_scheduler.SetRecoveryFirst(on);
}

bool
MetaRoceNic::GetRecoveryFirst() const
{
    return m_scheduler.GetRecoveryFirst();
}

} // namespace ns3
