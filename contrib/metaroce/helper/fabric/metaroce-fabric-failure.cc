#include "metaroce-fabric-failure.h"

#include "ns3/abort.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

namespace ns3
{

namespace
{

/// A receive error model that drops every packet: a cut cable.
Ptr<ErrorModel>
DropEverything()
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(1.0);
    return em;
}

/// Sets `device`'s receive error model (null: none; a null Ptr cannot go through ns-3.37's
/// attribute system, so both devices' own setters are called).
void
SetReceiveErrorModel(const Ptr<NetDevice>& device, const Ptr<ErrorModel>& em)
{
    if (Ptr<MetaRoceNetDevice> fast = DynamicCast<MetaRoceNetDevice>(device))
    {
        fast->SetReceiveErrorModel(em);
    }
    else if (Ptr<PointToPointNetDevice> stock = DynamicCast<PointToPointNetDevice>(device))
    {
        stock->SetReceiveErrorModel(em);
    }
    else
    {
        device->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
}

/// Fails (em drops everything) or restores (em null) one end of a link, in its node's event:
/// the packets arriving at this instant first (metaroce-arrivals.h), then the device and the
/// NIC or switch port.
void
SetEndState(Ptr<NetDevice> device,
            Ptr<ErrorModel> em,
            Ptr<MetaRoceNic> nic,
            uint32_t nicPort,
            Ptr<MetaRoceSwitch> sw,
            uint32_t swPort)
{
    if (device->GetNode()->GetSystemId() != Simulator::GetSystemId())
    {
        return; // a distributed run: the rank that owns this end changes it
    }
    // An event of the node: after its arrivals of this instant.
    MetaRoceArrivals::Of(device->GetNode())->RunCall([=]() {
        SetReceiveErrorModel(device, em);
        if (nic)
        {
            nic->SetPortUp(nicPort, em == nullptr);
        }
        if (sw)
        {
            sw->SetPortUp(swPort, em == nullptr);
        }
    });
}

/// Schedules both ends of `link` to go down (up = false) or up after `delay`, each in its own
/// node's context (so a distributed run changes each end on the rank that owns it).
void
ScheduleEnds(const MetaRoceFabricLink& link, Time delay, bool up)
{
    Simulator::ScheduleWithContext(link.a->GetNode()->GetId(),
                                   delay,
                                   &SetEndState,
                                   link.a,
                                   up ? nullptr : DropEverything(),
                                   link.nic,
                                   link.nicPort,
                                   link.swA,
                                   link.portA);
    Simulator::ScheduleWithContext(link.b->GetNode()->GetId(),
                                   delay,
                                   &SetEndState,
                                   link.b,
                                   up ? nullptr : DropEverything(),
                                   Ptr<MetaRoceNic>(),
                                   0,
                                   link.swB,
                                   link.portB);
}

} // namespace

void
MetaRoceFabricFailure::SetLinkState(MetaRoceFabricLink link, bool up)
{
    const Ptr<ErrorModel> em = up ? nullptr : DropEverything();
    SetEndState(link.a, em, link.nic, link.nicPort, link.swA, link.portA);
    SetEndState(link.b, em, nullptr, 0, link.swB, link.portB);
}

void
MetaRoceFabricFailure::Schedule(const MetaRoceFabricLink& link, Time at, Time until)
{
    NS_ABORT_MSG_IF(until <= at,
                    "MetaRoceFabricHelper: a failure must end ("
                        << until.As(Time::US) << ") after it starts (" << at.As(Time::US) << ")");
    ScheduleEnds(link, at, false);
    if (until != Time::Max())
    {
        ScheduleEnds(link, until, true);
    }
}

} // namespace ns3
