/*
 * MetaRoceNic's pluggable algorithms (spec 7.5, 4.2): the attributes that choose them, in the
 * manner of TcpL4Protocol's SocketType and TcpSocketBase's CongestionOps but as ObjectFactory
 * values, so that one "Name=Value;..." string chooses the algorithm and its parameters
 * ("CongestionControl=ns3::MetaRoceSwift[TargetDelay=15us]"). The NIC makes one object of each
 * on first use and asks it for a fresh engine algorithm per connection (CreateQueuePair).
 */
#include "metaroce-nic.h"

#include "ns3/abort.h"
#include "ns3/metaroce-algorithm-factory.h"

namespace ns3
{

TypeId
MetaRoceNic::AddAlgorithmAttributes(TypeId tid)
{
    return tid
        .AddAttribute("CongestionControl",
                      "Congestion control of MetaRoCE connections: a MetaRoceCongestionOps "
                      "type and its attributes (spec 7).",
                      ObjectFactoryValue(ObjectFactory("ns3::MetaRoceAimd")),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetCongestionControlFactory,
                                                &MetaRoceNic::GetCongestionControlFactory),
                      MakeObjectFactoryChecker())
        .AddAttribute("PathSelection",
                      "Path selection of MetaRoCE connections: a MetaRocePathSelection type "
                      "and its attributes (spec 4.2).",
                      ObjectFactoryValue(ObjectFactory("ns3::MetaRoceSprayPathSelection")),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetPathSelectionFactory,
                                                &MetaRoceNic::GetPathSelectionFactory),
                      MakeObjectFactoryChecker())
        .AddAttribute("RoceRateControl",
                      "Rate control of RoCEv2 queue pairs: DCQCN and its parameters (spec 8.5); "
                      "ns3::MetaRoceDcqcn[Enabled=false] sends at line rate without CNPs.",
                      ObjectFactoryValue(ObjectFactory("ns3::MetaRoceDcqcn")),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetRoceRateControlFactory,
                                                &MetaRoceNic::GetRoceRateControlFactory),
                      MakeObjectFactoryChecker());
}

void
MetaRoceNic::SetCongestionControlFactory(const ObjectFactory& factory)
{
    m_congestionControlFactory = factory;
    m_congestionOps = nullptr;
}

ObjectFactory
MetaRoceNic::GetCongestionControlFactory() const
{
    return m_congestionControlFactory;
}

void
MetaRoceNic::SetPathSelectionFactory(const ObjectFactory& factory)
{
    m_pathSelectionFactory = factory;
    m_pathSelection = nullptr;
}

ObjectFactory
MetaRoceNic::GetPathSelectionFactory() const
{
    return m_pathSelectionFactory;
}

Ptr<MetaRoceCongestionOps>
MetaRoceNic::GetCongestionOps()
{
    if (m_congestionOps == nullptr)
    {
        m_congestionOps = CreateAlgorithm<MetaRoceCongestionOps>(m_congestionControlFactory,
                                                                 "MetaRoceNic::CongestionControl");
    }
    return m_congestionOps;
}

void
MetaRoceNic::SetCongestionOps(Ptr<MetaRoceCongestionOps> ops)
{
    NS_ABORT_MSG_IF(ops == nullptr, "MetaRoceNic::SetCongestionOps: null");
    m_congestionOps = ops;
}

Ptr<MetaRocePathSelection>
MetaRoceNic::GetPathSelection()
{
    if (m_pathSelection == nullptr)
    {
        m_pathSelection = CreateAlgorithm<MetaRocePathSelection>(m_pathSelectionFactory,
                                                                 "MetaRoceNic::PathSelection");
    }
    return m_pathSelection;
}

void
MetaRoceNic::SetPathSelection(Ptr<MetaRocePathSelection> selection)
{
    NS_ABORT_MSG_IF(selection == nullptr, "MetaRoceNic::SetPathSelection: null");
    m_pathSelection = selection;
}

void
MetaRoceNic::SetRoceRateControlFactory(const ObjectFactory& factory)
{
    m_roceRateControlFactory = factory;
    m_roceRateControl = nullptr;
}

ObjectFactory
MetaRoceNic::GetRoceRateControlFactory() const
{
    return m_roceRateControlFactory;
}

Ptr<MetaRoceDcqcn>
MetaRoceNic::GetRoceRateControl()
{
    if (m_roceRateControl == nullptr)
    {
        m_roceRateControl = CreateAlgorithm<MetaRoceDcqcn>(m_roceRateControlFactory,
                                                           "MetaRoceNic::RoceRateControl");
    }
    return m_roceRateControl;
}

void
MetaRoceNic::SetRoceRateControl(Ptr<MetaRoceDcqcn> dcqcn)
{
    NS_ABORT_MSG_IF(dcqcn == nullptr, "MetaRoceNic::SetRoceRateControl: null");
    m_roceRateControl = dcqcn;
}

} // namespace ns3
