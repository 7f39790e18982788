/*
 * MetaRoceNic's pluggable algorithms (spec 9.5, 6.2): the attributes that choose them, in the
 * manner of TcpL4Protocol's SocketType and TcpSocketBase's CongestionOps but as ObjectFactory
 * values, so that one "Name=Value;..." string chooses the algorithm and its parameters
 * ("CongestionControl=ns3::MetaRoceSwift[TargetDelay=15us]"). The NIC makes one object of each
 * on first use and asks it for a fresh engine algorithm per connection (CreateQueuePair).
 */
#include "metaroce-nic.h"

#include "ns3/abort.h"
#include "ns3/metaroce-aimd.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-spray-flow-selection.h"

namespace ns3
{

TypeId
MetaRoceNic::AddAlgorithmAttributes(TypeId tid)
{
    return tid
        .AddAttribute("CongestionControl",
                      "Congestion control of MetaRoCE connections: a MetaRoceCongestionOps "
                      "type and its attributes (spec 9).",
                      ObjectFactoryValue(DefaultAlgorithmFactory<MetaRoceAimd>()),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetCongestionControlFactory,
                                                &MetaRoceNic::GetCongestionControlFactory),
                      MakeAlgorithmFactoryChecker(MetaRoceCongestionOps::GetTypeId()))
        .AddAttribute("FlowSelection",
                      "Flow selection of MetaRoCE connections: a MetaRoceFlowSelection type "
                      "and its attributes (spec 6.2).",
                      ObjectFactoryValue(DefaultAlgorithmFactory<MetaRoceSprayFlowSelection>()),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetFlowSelectionFactory,
                                                &MetaRoceNic::GetFlowSelectionFactory),
                      MakeAlgorithmFactoryChecker(MetaRoceFlowSelection::GetTypeId()))
        .AddAttribute("RoceRateControl",
                      "Rate control of RoCEv2 queue pairs: DCQCN and its parameters (spec 10.5), "
                      "as NICs run it by default; ns3::MetaRoceDcqcn[Variant=paper] runs the "
                      "DCQCN paper's, ns3::MetaRoceDcqcn[Enabled=false] sends at line rate "
                      "without CNPs.",
                      ObjectFactoryValue(DefaultAlgorithmFactory<MetaRoceDcqcn>()),
                      MakeObjectFactoryAccessor(&MetaRoceNic::SetRoceRateControlFactory,
                                                &MetaRoceNic::GetRoceRateControlFactory),
                      MakeAlgorithmFactoryChecker(MetaRoceDcqcn::GetTypeId()));
}

void
MetaRoceNic::SetCongestionControlFactory(const ObjectFactory& factory)
{
    m_congestionControl.SetFactory(factory);
}

ObjectFactory
MetaRoceNic::GetCongestionControlFactory() const
{
    return m_congestionControl.GetFactory();
}

Ptr<MetaRoceCongestionOps>
MetaRoceNic::GetCongestionOps()
{
    return m_congestionControl.Get();
}

void
MetaRoceNic::SetCongestionOps(Ptr<MetaRoceCongestionOps> ops)
{
    m_congestionControl.Set(ops);
}

void
MetaRoceNic::SetFlowSelectionFactory(const ObjectFactory& factory)
{
    m_flowSelection.SetFactory(factory);
}

ObjectFactory
MetaRoceNic::GetFlowSelectionFactory() const
{
    return m_flowSelection.GetFactory();
}

Ptr<MetaRoceFlowSelection>
MetaRoceNic::GetFlowSelection()
{
    return m_flowSelection.Get();
}

void
MetaRoceNic::SetFlowSelection(Ptr<MetaRoceFlowSelection> selection)
{
    m_flowSelection.Set(selection);
}

void
MetaRoceNic::SetRoceRateControlFactory(const ObjectFactory& factory)
{
    m_roceRateControl.SetFactory(factory);
}

ObjectFactory
MetaRoceNic::GetRoceRateControlFactory() const
{
    return m_roceRateControl.GetFactory();
}

Ptr<MetaRoceDcqcn>
MetaRoceNic::GetRoceRateControl()
{
    return m_roceRateControl.Get();
}

void
MetaRoceNic::SetRoceRateControl(Ptr<MetaRoceDcqcn> dcqcn)
{
    m_roceRateControl.Set(dcqcn);
}

} // namespace ns3
