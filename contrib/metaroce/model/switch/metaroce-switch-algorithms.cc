/*
 * MetaRoceSwitch, part 4 of 4: its pluggable algorithms, chosen like ns-3's QueueDisc: the
 * "EcnMarker" and "BufferAdmission" factories, the objects made from them, the former
 * attributes DtAlpha, EcnKmin, EcnKmax and EcnPmax, forwarded to those objects
 * (metaroce-forwarded-attribute.h); the ECN marking that asks the marker; and
 * GetConfigProblem(), the check of attribute settings that builds no switch.
 */
#include "metaroce-switch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-forwarded-attribute.h"
#include "ns3/metaroce-red-ecn-marker.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

TypeId
MetaRoceSwitch::AddEcnAttributes(TypeId tid)
{
    return tid
        .AddAttribute("EcnEnabled",
                      "Mark ECN-capable DATA packets CE (RED on the instantaneous queue).",
                      BooleanValue(true),
                      MakeBooleanAccessor(&MetaRoceSwitch::m_ecnEnabled),
                      MakeBooleanChecker())
        .AddAttribute("EcnAtDequeue",
                      "Offer ECN-capable DATA packets to the marker when they leave their "
                      "queue, with the bytes they leave behind (HPCC's simulator), instead "
                      "of when they join it (default).",
                      BooleanValue(false),
                      MakeBooleanAccessor(&MetaRoceSwitch::m_ecnAtDequeue),
                      MakeBooleanChecker())
        .AddAttribute("EcnMarker",
                      "Which policy marks ECN-capable DATA packets CE (a MetaRoceEcnMarker "
                      "and its attributes).",
                      ObjectFactoryValue(DefaultAlgorithmFactory<MetaRoceRedEcnMarker>()),
                      MakeObjectFactoryAccessor(&MetaRoceSwitch::SetEcnMarkerFactory,
                                                &MetaRoceSwitch::GetEcnMarkerFactory),
                      MakeAlgorithmFactoryChecker(MetaRoceEcnMarker::GetTypeId()));
}

TypeId
MetaRoceSwitch::AddFormerAttributes(TypeId tid)
{
    const auto admission = [](const ObjectBase* o) -> Ptr<Object> {
        return static_cast<const MetaRoceSwitch*>(o)->GetBufferAdmission();
    };
    const auto marker = [](const ObjectBase* o) -> Ptr<Object> {
        return static_cast<const MetaRoceSwitch*>(o)->GetEcnMarker();
    };
    AddForwardedAttribute(tid,
                          "DtAlpha",
                          "Former name of the BufferAdmission's Alpha (dynamic threshold).",
                          "Alpha",
                          DoubleValue(1.0),
                          MakeDoubleChecker<double>(),
                          admission);
    AddForwardedAttribute(tid,
                          "EcnKmin",
                          "Former name of the EcnMarker's Kmin (RED).",
                          "Kmin",
                          UintegerValue(100000),
                          MakeUintegerChecker<uint64_t>(),
                          marker);
    AddForwardedAttribute(tid,
                          "EcnKmax",
                          "Former name of the EcnMarker's Kmax (RED).",
                          "Kmax",
                          UintegerValue(400000),
                          MakeUintegerChecker<uint64_t>(),
                          marker);
    return AddForwardedAttribute(tid,
                                 "EcnPmax",
                                 "Former name of the EcnMarker's Pmax (RED).",
                                 "Pmax",
                                 DoubleValue(0.2),
                                 MakeDoubleChecker<double>(),
                                 marker);
}

std::string
MetaRoceSwitch::GetConfigProblem(const MetaRoceAttributeSettings& settings)
{
    const TypeId tid = GetTypeId();
    const Ptr<Object> admission =
        CreateSettledAlgorithm<MetaRoceBufferAdmission>(tid, "BufferAdmission", settings);
    const Ptr<Object> marker =
        CreateSettledAlgorithm<MetaRoceEcnMarker>(tid, "EcnMarker", settings);
    if (admission == nullptr || marker == nullptr)
    {
        return "MetaRoceSwitch: BufferAdmission or EcnMarker cannot make its object";
    }
    // The former attributes (AddFormerAttributes), set on the objects as a switch sets them:
    // after the objects are made, and only a value other than the former default (a setting
    // or Config::SetDefault).
    for (const std::string name : {"DtAlpha", "EcnKmin", "EcnKmax", "EcnPmax"})
    {
        TypeId::AttributeInformation info;
        tid.LookupAttributeByName(name, &info);
        const Ptr<const AttributeValue> given = GetSettledAttribute(tid, name, settings);
        if (given->SerializeToString(info.checker) ==
            info.originalInitialValue->SerializeToString(info.checker))
        {
            continue;
        }
        const bool forAdmission = name == "DtAlpha";
        const Ptr<Object> target = forAdmission ? admission : marker;
        const std::string now = forAdmission ? "Alpha" : name.substr(3); // EcnKmin -> Kmin
        if (!target->SetAttributeFailSafe(now, *given))
        {
            return "MetaRoceSwitch::" + name + ": " + target->GetInstanceTypeId().GetName() +
                   " has no attribute " + now;
        }
    }
    for (const std::string& problem :
         {DynamicCast<MetaRoceBufferAdmission>(admission)->GetConfigProblem(),
          DynamicCast<MetaRoceEcnMarker>(marker)->GetConfigProblem()})
    {
        if (!problem.empty())
        {
            return problem;
        }
    }
    const auto uinteger = [&tid, &settings](const std::string& name) {
        return DynamicCast<const UintegerValue>(GetSettledAttribute(tid, name, settings))->Get();
    };
    return PfcProblem(
        DynamicCast<const BooleanValue>(GetSettledAttribute(tid, "PfcEnabled", settings))->Get(),
        uinteger("PfcXon"),
        uinteger("PfcXoff"),
        uinteger("BufferSize"));
}

void
MetaRoceSwitch::SetEcnMarkerFactory(const ObjectFactory& factory)
{
    Ptr<MetaRoceEcnMarker> marker =
        CreateAlgorithm<MetaRoceEcnMarker>(factory, "MetaRoceSwitch::EcnMarker");
    marker->SetRandomVariable(m_rng);
    m_ecnMarkerFactory = factory;
    m_ecnMarker = marker;
}

ObjectFactory
MetaRoceSwitch::GetEcnMarkerFactory() const
{
    return m_ecnMarkerFactory;
}

void
MetaRoceSwitch::SetBufferAdmissionFactory(const ObjectFactory& factory)
{
    Ptr<MetaRoceBufferAdmission> admission =
        CreateAlgorithm<MetaRoceBufferAdmission>(factory, "MetaRoceSwitch::BufferAdmission");
    m_admissionFactory = factory;
    m_admission = admission;
}

ObjectFactory
MetaRoceSwitch::GetBufferAdmissionFactory() const
{
    return m_admissionFactory;
}

Ptr<MetaRoceEcnMarker>
MetaRoceSwitch::GetEcnMarker() const
{
    return m_ecnMarker;
}

Ptr<MetaRoceBufferAdmission>
MetaRoceSwitch::GetBufferAdmission() const
{
    return m_admission;
}

bool
MetaRoceSwitch::Markable(const MetaRocePacketInfo& info, uint32_t cls) const
{
    const uint8_t ecn = info.Ecn();
    return m_ecnEnabled && cls == METAROCE_CLASS_DATA &&
           (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1);
}

Ptr<Packet>
MetaRoceSwitch::MaybeMarkCe(Ptr<Packet> p, uint32_t egress)
{
    const uint64_t q = m_ports[egress].egressBytes[METAROCE_CLASS_DATA];
    if (!m_ecnMarker->ShouldMark(q))
    {
        return p;
    }
    Ptr<Packet> marked = p->Copy(); // trace sinks upstream may hold `p`
    MarkCe(marked);
    m_ports[egress].counters.ecnMarked++;
    m_ecnTrace(marked, egress, q);
    return marked;
}

void
MetaRoceSwitch::MarkCe(Ptr<Packet> p)
{
    Ipv4Header ip;
    p->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    p->AddHeader(ip);
}

} // namespace ns3
