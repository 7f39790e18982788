#include "metaroce-run-end.h"

#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-mpi.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

MetaRoceRunEnd::MetaRoceRunEnd(const MetaRoceFabricHelper& fabric, std::function<bool()> done)
    : m_fabric(fabric)
    , m_done(std::move(done))
{
    for (uint32_t h = 0; h < fabric.GetNHosts(); ++h)
    {
        m_nics.push_back(fabric.GetNic(h));
        m_arrivals.push_back(MetaRoceArrivals::Of(m_nics.back()->GetObject<Node>()));
    }
    for (const auto& sw : fabric.GetSwitches())
    {
        m_switches.push_back(sw);
        m_arrivals.push_back(MetaRoceArrivals::Of(sw->GetObject<Node>()));
    }
}

void
MetaRoceRunEnd::Start(Time tick)
{
    m_tick = tick;
    Simulator::Schedule(tick, &MetaRoceRunEnd::Check, this);
}

void
MetaRoceRunEnd::Check()
{
    // Every rank checks at the same ticks: the run ends when every rank is done and quiet and
    // no packet is between two ranks (sent by one, not yet received by the other).
    const bool local = m_done() && IsQuiet();
    const std::vector<uint64_t> sums = MetaRoceMpi::Sum(
        {local ? 0U : 1U, MetaRoceMpi::GetRemoteSent(), MetaRoceMpi::GetRemoteReceived()});
    if (sums[0] == 0 && sums[1] == sums[2])
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(m_tick, &MetaRoceRunEnd::Check, this);
}

bool
MetaRoceRunEnd::IsQuiet() const
{
    const int64_t now = Simulator::Now().GetTimeStep();
    // A node that already had an event in this instant may have changed what the others will
    // do in it: only a tick before any node event sees the state the instant starts with.
    const bool untouched = std::all_of(m_arrivals.begin(), m_arrivals.end(), [now](const auto& a) {
        return a->GetLastEventStep() < now && a->GetNStaged() == 0;
    });
    // A timer or failure due now would run before or after the stop depending on the order
    // of this instant's events: such an instant is not quiet.
    return untouched && !m_fabric.HasFailureEventAt(Simulator::Now()) &&
           std::all_of(m_switches.begin(),
                       m_switches.end(),
                       [](const auto& sw) {
                           return sw->GetBufferUsed() == 0 && !sw->HasTimerDueBy(Simulator::Now());
                       }) &&
           std::none_of(m_nics.begin(), m_nics.end(), [](const auto& nic) {
               return nic->HasTimerDueBy(Simulator::Now());
           });
}

} // namespace ns3
