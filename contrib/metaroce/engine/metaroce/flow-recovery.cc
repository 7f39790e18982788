#include "flow-recovery.h"

#include <algorithm>

namespace metaroce
{

FlowRecovery::FlowRecovery(const MetaRoceConfig& config,
                           Counters& counters,
                           const ConnectionIds& ids)
    : m_config(config)
    , m_counters(counters)
    , m_seed(ids.seed * 0x9e3779b97f4a7c15ULL + ids.local)
{
}

uint16_t
FlowRecovery::DrawEntropy()
{
    if (!m_rng)
    {
        m_rng = std::make_unique<std::mt19937_64>(m_seed);
        m_rng->discard(m_draws);
    }
    ++m_draws;
    return static_cast<uint16_t>(m_config.entropyBase + (*m_rng)() % m_config.entropyCount);
}

TimeNs&
FlowRecovery::LastRedraw(const Flow& flow)
{
    // Made on the first move: most connections of a lossless fabric never move a flow.
    if (m_lastRedraw.empty())
    {
        m_lastRedraw.assign(size_t{m_config.ports} * m_config.flowsPerPort, kNever);
    }
    return m_lastRedraw[flow.id];
}

void
FlowRecovery::ReleaseGenerator()
{
    m_rng.reset();
}

TimeNs
FlowRecovery::Rto(const Flow& flow, TimeNs floor) const
{
    // RFC 6298 from the flow's own samples. A flow without one keeps the conservative initial
    // RTO: its first packets may sit behind an incast far longer than other flows' samples
    // suggest (with 64 hosts, borrowing the connection's estimate timed out 12,000 times in a
    // lossless all-to-all). The time rule and the tail-loss probe repair its losses meanwhile.
    const TimeNs base = flow.rtt.HasSample() ? flow.rtt.Rto(m_config.rtoMinNs, m_config.rtoMaxNs)
                                             : m_config.initialRtoNs;
    const uint32_t shift = std::min<uint32_t>(flow.consecutiveTimeouts, 8);
    return std::min(std::max(base, floor) << shift, m_config.rtoMaxNs);
}

bool
FlowRecovery::TimeoutTakesDown(const Flow& flow) const
{
    return flow.consecutiveTimeouts >= m_config.flowDownTimeouts;
}

void
FlowRecovery::AfterTimeout(Flow& flow, TimeNs now)
{
    if (flow.consecutiveTimeouts >= m_config.flowSuspectTimeouts)
    {
        flow.SetHealth(FlowHealth::Suspect);
    }
    LastRedraw(flow) = kNever; // a timeout always moves the flow
    MaybeRedraw(flow, now);
}

void
FlowRecovery::TakeDown(Flow& flow, bool portUp, TimeNs now)
{
    if (flow.health != FlowHealth::Down)
    {
        flow.SetHealth(FlowHealth::Down);
        ++m_counters.flowsDown;
    }
    flow.probeDue = portUp ? now + m_config.probeIntervalNs : kNever;
}

void
FlowRecovery::OnPortUp(Flow& flow, TimeNs now)
{
    if (flow.health == FlowHealth::Down)
    {
        flow.probeDue = now;
    }
}

void
FlowRecovery::OnProbeSent(Flow& flow, TimeNs now)
{
    flow.probeDue = now + m_config.probeIntervalNs;
}

void
FlowRecovery::OnProgress(Flow& flow, bool probeAcked)
{
    flow.consecutiveTimeouts = 0;
    // Suspect returns on any acknowledgement, Down only on a covered PROBE (spec 6.3).
    if (flow.health == FlowHealth::Suspect || (flow.health == FlowHealth::Down && probeAcked))
    {
        if (flow.health == FlowHealth::Down)
        {
            flow.window.window = flow.window.minWindow * m_config.initialFlowWindowPackets;
            flow.window.Clamp();
        }
        flow.SetHealth(FlowHealth::Up);
        flow.probeDue = kNever;
    }
}

void
FlowRecovery::OnMarks(Flow& flow, uint16_t ceCount, uint32_t ackedPackets, TimeNs now)
{
    if (ceCount > 0)
    {
        flow.undoWindow = 0; // a congestion cut is not undone (spec 7.5)
        if (++flow.markedRounds >= m_config.entropyRedrawMarks)
        {
            MaybeRedraw(flow, now);
        }
    }
    else if (ackedPackets > 0)
    {
        flow.markedRounds = 0;
    }
}

void
FlowRecovery::MaybeRedraw(Flow& flow, TimeNs now)
{
    // At most one move per RTT: the new route needs a round trip to show whether it is better.
    TimeNs& last = LastRedraw(flow);
    if (last != kNever && now < last + flow.rtt.Smoothed())
    {
        return;
    }
    last = now;
    uint16_t entropy = DrawEntropy();
    while (entropy == flow.entropy && m_config.entropyCount > 1)
    {
        entropy = DrawEntropy();
    }
    flow.Redraw(entropy);
    ++m_counters.entropyRedraws;
}

} // namespace metaroce
