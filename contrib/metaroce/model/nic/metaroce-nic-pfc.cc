#include "metaroce-nic-pfc.h"

#include "ns3/log.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceNicPfc");

uint32_t
MetaRoceNicPfc::AddPort(Callback<void> resume)
{
    PortPause port;
    port.resume = resume;
    m_ports.push_back(port);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

void
MetaRoceNicPfc::OnFrame(uint32_t port, const std::optional<MetaRocePfcFrame>& frame, DataRate rate)
{
    if (frame && frame->cls == METAROCE_CLASS_DATA)
    {
        SetDataPaused(port, frame->pause, PfcQuantaToTime(frame->quanta, rate));
    }
}

bool
MetaRoceNicPfc::IsDataPaused(uint32_t port) const
{
    return m_ports[port].dataPaused;
}

bool
MetaRoceNicPfc::HasExpiryDueBy(Time t) const
{
    return std::any_of(m_ports.begin(), m_ports.end(), [t](const PortPause& p) {
        return MetaRoceIsPending(p.expiry) &&
               p.expiry.GetTs() <= static_cast<uint64_t>(t.GetTimeStep());
    });
}

void
MetaRoceNicPfc::SetDataPaused(uint32_t port, bool paused, Time duration)
{
    NS_LOG_FUNCTION(this << port << paused << duration);
    PortPause& state = m_ports[port];
    state.expiry.Cancel();
    state.dataPaused = paused;
    if (paused)
    {
        state.expiry =
            m_arrivals->Schedule(&state.expiry, duration, &MetaRoceNicPfc::Expire, this, port);
        return;
    }
    state.resume();
}

void
MetaRoceNicPfc::SetArrivals(Ptr<MetaRoceArrivals> arrivals)
{
    m_arrivals = arrivals;
}

void
MetaRoceNicPfc::Expire(uint32_t port)
{
    // The arrivals of this instant have come first (Schedule()): one may have renewed the pause.
    const PortPause& state = m_ports[port];
    if (state.dataPaused && !MetaRoceIsPending(state.expiry))
    {
        SetDataPaused(port, false, Time());
    }
}

void
MetaRoceNicPfc::Clear()
{
    for (PortPause& port : m_ports)
    {
        port.expiry.Cancel();
    }
    m_ports.clear();
    m_arrivals = nullptr;
}

} // namespace ns3
