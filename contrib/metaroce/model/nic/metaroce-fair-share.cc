#include "metaroce-fair-share.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFairShare");

bool
MetaRoceFairShare::OnDataArrival(uint32_t queuePair,
                                 uint32_t bytes,
                                 bool ecnCe,
                                 Time now,
                                 Time window)
{
    if (queuePair >= m_lastDataArrival.size())
    {
        m_lastDataArrival.resize(queuePair + 1, Seconds(-1));
        m_bytesSinceUpdate.resize(queuePair + 1, 0);
    }
    m_bytesSinceUpdate[queuePair] += bytes;
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
    const Time elapsed = m_updated < Seconds(0) ? window : now - m_updated;
    m_updated = now;
    const uint64_t active = ActiveSenders(now, window);
    m_active = active;
    const bool congested = !whenMarked || m_markedSinceUpdate > 0;
    m_markedSinceUpdate = 0;
    m_shareBps = congested ? MaxMinShare(lineBps, active, elapsed) : lineBps;
    std::fill(m_bytesSinceUpdate.begin(), m_bytesSinceUpdate.end(), 0);
    NS_LOG_INFO("fair share " << m_shareBps << " b/s: " << active << " active senders"
                              << (congested ? "" : ", unmarked"));
    return m_shareBps;
}

uint64_t
MetaRoceFairShare::MaxMinShare(uint64_t lineBps, uint64_t active, Time elapsed) const
{
    const double seconds = elapsed.GetSeconds();
    uint64_t share = lineBps / std::max<uint64_t>(active, 1);
    if (seconds <= 0 || active < 2)
    {
        return share;
    }
    // Water-filling: a sender below three quarters of the share keeps its rate; the others
    // split the rest. Each round only lowers the count of unlimited senders, so it ends.
    for (uint64_t unlimited = active;;)
    {
        uint64_t limitedBps = 0;
        uint64_t limited = 0;
        for (uint64_t bytes : m_bytesSinceUpdate)
        {
            const auto bps = static_cast<uint64_t>(bytes * 8 / seconds);
            if (bytes > 0 && bps * 4 < share * 3)
            {
                limitedBps += bps;
                ++limited;
            }
        }
        // Senders active in the window but silent since the last recompute count as unlimited.
        const uint64_t rest = active > limited ? active - limited : 0;
        if (rest == 0 || rest >= unlimited || limitedBps >= lineBps)
        {
            return share;
        }
        unlimited = rest;
        share = std::max(share, (lineBps - limitedBps) / rest);
    }
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
