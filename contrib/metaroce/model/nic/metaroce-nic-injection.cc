/*
 * MetaRoceNic's gate on DATA at the NIC's injection rate (spec 9.7, A58; NicInjectionControl):
 * after a packet pulled while DATA may go, a port pulls no DATA until that packet's time at the
 * share of its line rate the NIC's InjectionRate allows; a port that went idle waiting is
 * kicked when DATA may go again. Control packets pass while DATA waits.
 */
#include "metaroce-nic.h"

#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

bool
MetaRoceNic::InjectionAllows(uint32_t index, bool arm)
{
    Port& port = m_ports[index];
    if (!m_metaRoce.nicInjectionControl || Simulator::Now() >= port.dataReleaseAt)
    {
        return true;
    }
    if (arm && !MetaRoceIsPending(port.injectionWake))
    {
        port.injectionWake = m_arrivals->Schedule(&port.injectionWake,
                                                  port.dataReleaseAt - Simulator::Now(),
                                                  &MetaRoceNic::InjectionWake,
                                                  this,
                                                  index);
    }
    return false;
}

void
MetaRoceNic::OnInjected(uint32_t index, const Ptr<Packet>& packet)
{
    if (!m_metaRoce.nicInjectionControl)
    {
        return;
    }
    // Every packet pulled while DATA may go counts, control included: the port's time at the
    // injection rate (spec 9.7). Control pulled while DATA waits is not charged.
    const double share = m_lossEvidence.Injection().Share();
    if (share < 1)
    {
        const double seconds = packet->GetSize() * 8.0 / (share * LineRateBps(index));
        m_ports[index].dataReleaseAt = Simulator::Now() + Seconds(seconds);
    }
}

void
MetaRoceNic::InjectionWake(uint32_t index)
{
    if (m_ports[index].up)
    {
        m_ports[index].queue->Kick();
    }
}

bool
MetaRoceNic::InjectionWakeDueBy(int64_t step) const
{
    return std::any_of(m_ports.begin(), m_ports.end(), [step](const Port& port) {
        return MetaRoceIsPending(port.injectionWake) &&
               port.injectionWake.GetTs() <= static_cast<uint64_t>(step);
    });
}

} // namespace ns3
