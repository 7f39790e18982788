#include "path-recovery.h"

#include <algorithm>

namespace metaroce
{

PathRecovery::PathRecovery(const MetaRoceConfig& config,
                           Counters& counters,
                           const ConnectionIds& ids)
    : m_config(config)
    , m_counters(counters)
    , m_seed(ids.seed * 0x9e3779b97f4a7c15ULL + ids.local)
{
}

uint16_t
PathRecovery::DrawEntropy()
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
PathRecovery::LastRedraw(const Path& path)
{
    // Made on the first move: most connections of a lossless fabric never move a path.
    if (m_lastRedraw.empty())
    {
        m_lastRedraw.assign(size_t{m_config.ports} * m_config.pathsPerPort, kNever);
    }
    return m_lastRedraw[path.id];
}

void
PathRecovery::ReleaseGenerator()
{
    m_rng.reset();
}

TimeNs
PathRecovery::Rto(const Path& path, TimeNs floor) const
{
    // RFC 6298 from the path's own samples. A path without one keeps the conservative initial
    // RTO: its first packets may sit behind an incast far longer than other paths' samples
    // suggest (with 64 hosts, borrowing the connection's estimate timed out 12,000 times in a
    // lossless all-to-all). The time rule and the tail-loss probe repair its losses meanwhile.
    const TimeNs base = path.rtt.HasSample() ? path.rtt.Rto(m_config.rtoMinNs, m_config.rtoMaxNs)
                                             : m_config.initialRtoNs;
    const uint32_t shift = std::min<uint32_t>(path.consecutiveTimeouts, 8);
    return std::min(std::max(base, floor) << shift, m_config.rtoMaxNs);
}

bool
PathRecovery::TimeoutTakesDown(const Path& path) const
{
    return path.consecutiveTimeouts >= m_config.pathDownTimeouts;
}

void
PathRecovery::AfterTimeout(Path& path, TimeNs now)
{
    if (path.consecutiveTimeouts >= m_config.pathSuspectTimeouts)
    {
        path.SetHealth(PathHealth::Suspect);
    }
    LastRedraw(path) = kNever; // a timeout always moves the path
    MaybeRedraw(path, now);
}

void
PathRecovery::TakeDown(Path& path, bool portUp, TimeNs now)
{
    if (path.health != PathHealth::Down)
    {
        path.SetHealth(PathHealth::Down);
        ++m_counters.pathsDown;
    }
    path.probeDue = portUp ? now + m_config.probeIntervalNs : kNever;
}

void
PathRecovery::OnPortUp(Path& path, TimeNs now)
{
    if (path.health == PathHealth::Down)
    {
        path.probeDue = now;
    }
}

void
PathRecovery::OnProbeSent(Path& path, TimeNs now)
{
    path.probeDue = now + m_config.probeIntervalNs;
}

void
PathRecovery::OnProgress(Path& path, bool probeAcked)
{
    path.consecutiveTimeouts = 0;
    // Suspect returns on any acknowledgement, Down only on a covered PROBE (spec 4.3).
    if (path.health == PathHealth::Suspect || (path.health == PathHealth::Down && probeAcked))
    {
        if (path.health == PathHealth::Down)
        {
            path.window.window = path.window.minWindow * m_config.initialPathWindowPackets;
            path.window.Clamp();
        }
        path.SetHealth(PathHealth::Up);
        path.probeDue = kNever;
    }
}

void
PathRecovery::OnMarks(Path& path, uint16_t ceCount, uint32_t ackedPackets, TimeNs now)
{
    if (ceCount > 0)
    {
        path.undoWindow = 0; // a congestion cut is not undone (spec 5.7)
        if (++path.markedRounds >= m_config.entropyRedrawMarks)
        {
            MaybeRedraw(path, now);
        }
    }
    else if (ackedPackets > 0)
    {
        path.markedRounds = 0;
    }
}

void
PathRecovery::MaybeRedraw(Path& path, TimeNs now)
{
    // At most one move per RTT: the new route needs a round trip to show whether it is better.
    TimeNs& last = LastRedraw(path);
    if (last != kNever && now < last + path.rtt.Smoothed())
    {
        return;
    }
    last = now;
    uint16_t entropy = DrawEntropy();
    while (entropy == path.entropy && m_config.entropyCount > 1)
    {
        entropy = DrawEntropy();
    }
    path.Redraw(entropy);
    ++m_counters.entropyRedraws;
}

} // namespace metaroce
