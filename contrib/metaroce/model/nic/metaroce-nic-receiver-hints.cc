/*
 * What MetaRoceNic shares with all its connections (spec 8.3, 8.5): the fair share of its
 * inbound line rate and each sender's admission target, which the connections read as they
 * build their ACKs (receiver-hints.h). The loss evidence it shares (loss-evidence.h, spec 4.6)
 * needs no code of the NIC's: the connections write and read it.
 */
#include "metaroce-nic.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
MetaRoceNic::UpdateFairShare(bool senderJoined)
{
    // Recomputed at most once per window, on arrivals only, so no event keeps the simulation
    // alive; the admission budget's split also the moment a new sender appears (spec 8.5).
    const Time now = Simulator::Now();
    const bool due = m_fairShare.IsDue(now, m_fairShareWindow);
    const bool admission = m_admissionRtt.IsStrictlyPositive();
    if (!due && !(admission && senderJoined))
    {
        return;
    }
    uint64_t line = 0;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        line += m_ports[p].up ? LineRateBps(p) : 0;
    }
    const uint64_t share =
        due ? m_fairShare.Recompute(now, line, m_fairShareWindow, m_fairShareWhenMarked) : 0;
    const uint64_t credit = admission ? AdmissionCredit(line) : 0;
    // The connections read these as they build their ACKs (receiver-hints.h). No queue pair
    // is marked again: a rate hint or a credit target rides the next ACK and makes no packet
    // due, and no engine's HasWork() reads them, so every mark stays exact.
    if (due)
    {
        m_receiverHints.SetFairShare(share);
    }
    if (admission)
    {
        m_receiverHints.SetAdmissionTarget(credit);
    }
}

uint64_t
MetaRoceNic::AdmissionCredit(uint64_t lineBps) const
{
    // The budget: what the inbound line rate delivers in one AdmissionRtt (spec 8.5).
    const long double budget =
        static_cast<long double>(lineBps) * m_admissionRtt.GetNanoSeconds() / 8e9L;
    const uint64_t senders = std::max<uint64_t>(m_fairShare.GetActiveSenders(), 1);
    return std::max<uint64_t>(static_cast<uint64_t>(budget / senders), 1);
}

} // namespace ns3
