#include "metaroce-fair-share.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFairShare");

bool
MetaRoceFairShare::OnDataArrival(uint32_t queuePair, bool ecnCe, Time now, Time window)
{
    if (queuePair >= m_lastDataArrival.size())
    {
        m_lastDataArrival.resize(queuePair + 1, Seconds(-1));
    }
    Time& last = m_lastDataArrival[queuePair];
    const bool joined = last < Seconds(0) || now - last > window;
    m_active += joined ? 1 : 0;
    last = now;
    m_markedSinceUpdate += ecnCe ? 1 : 0;
    return joined;
}

bool
MetaRoceFairShare::IsDue(Time now, Time window) const
{
    return m_updated < Seconds(0) || now - m_updated >= window;
}

uint64_t
MetaRoceFairShare::Recompute(Time now, uint64_t lineBps, Time window, bool whenMarked)
{
    m_updated = now;
    const uint64_t active = ActiveSenders(now, window);
    m_active = active;
    const bool congested = !whenMarked || m_markedSinceUpdate > 0;
    m_markedSinceUpdate = 0;
    m_shareBps = congested ? lineBps / std::max<uint64_t>(active, 1) : lineBps;
    NS_LOG_INFO("fair share " << m_shareBps << " b/s: " << active << " active senders"
                              << (congested ? "" : ", unmarked"));
    return m_shareBps;
}

uint64_t
MetaRoceFairShare::GetShareBps() const
{
    return m_shareBps;
}

uint64_t
MetaRoceFairShare::GetActiveSenders() const
{
    return m_active;
}

uint64_t
MetaRoceFairShare::ActiveSenders(Time now, Time window) const
{
    uint64_t active = 0;
    for (const Time& arrival : m_lastDataArrival)
    {
        active += arrival >= Seconds(0) && now - arrival <= window ? 1 : 0;
    }
    return active;
}

} // namespace ns3
