#include "metaroce-fabric-failure.h"

#include "ns3/abort.h"
#include "ns3/error-model.h"
#include "ns3/simulator.h"

namespace ns3
{

void
MetaRoceFabricFailure::SetLinkState(MetaRoceFabricLink link, bool up)
{
    Ptr<RateErrorModel> em;
    if (!up)
    {
        em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(1.0);
    }
    link.a->SetReceiveErrorModel(em);
    link.b->SetReceiveErrorModel(em);
    if (link.nic)
    {
        link.nic->SetPortUp(link.nicPort, up);
    }
    if (link.swA)
    {
        link.swA->SetPortUp(link.portA, up);
    }
    link.swB->SetPortUp(link.portB, up);
}

void
MetaRoceFabricFailure::Schedule(const MetaRoceFabricLink& link, Time at, Time until)
{
    NS_ABORT_MSG_IF(until <= at,
                    "MetaRoceFabricHelper: a failure must end ("
                        << until.As(Time::US) << ") after it starts (" << at.As(Time::US) << ")");
    Simulator::Schedule(at, &MetaRoceFabricFailure::SetLinkState, link, false);
    if (until != Time::Max())
    {
        Simulator::Schedule(until, &MetaRoceFabricFailure::SetLinkState, link, true);
    }
}

} // namespace ns3
