#include "tail-loss-probe.h"

#include <algorithm>

namespace metaroce
{

const Path*
NewestTail(const std::vector<Path>& paths)
{
    const Path* tail = nullptr;
    uint64_t newest = 0;
    for (const Path& path : paths)
    {
        if (path.health == PathHealth::Down)
        {
            continue;
        }
        for (auto it = path.outstanding.rbegin(); it != path.outstanding.rend(); ++it)
        {
            if (it->state == SentPacket::State::InFlight)
            {
                if (tail == nullptr || it->txSeq > newest)
                {
                    tail = &path;
                    newest = it->txSeq;
                }
                break;
            }
        }
    }
    return tail;
}

TailLossProbe::TailLossProbe(const MetaRoceConfig& config)
    : m_config(config)
{
}

void
TailLossProbe::OnSent(TimeNs now)
{
    m_base = now;
}

void
TailLossProbe::OnProgress(TimeNs now)
{
    // The probe timer restarts from the acknowledgement (RFC 8985 7.2).
    m_probes = 0;
    m_base = std::max(m_base, now);
    m_state = State::Waiting;
}

TimeNs
TailLossProbe::DueAt(bool dataQueued, const RttEstimator& connectionRtt, bool tail) const
{
    // Only a true tail is probed: while the connection has data waiting, later packets will
    // follow as soon as a window opens, and the time rule finds a hole by them (spec 5.5).
    if (m_probes >= m_config.maxTailProbes || m_state == State::Due || dataQueued)
    {
        return kNever;
    }
    // Before any RTT sample the first window may still sit in an incast queue: no probing yet.
    if (!connectionRtt.HasSample() || !tail)
    {
        return kNever;
    }
    // PTO = 2 srtt (RFC 8985 7.2), but at least one srtt plus the receiver's longest ACK delay,
    // and a small floor. From the third probe on, each waits twice as long as the one before:
    // a probe or its ACK can be lost as well, and without more probes a tail on a path with no
    // RTT sample of its own would wait for that path's initial RTO (spec 5.5, A32).
    const TimeNs srtt = connectionRtt.Smoothed();
    const TimeNs pto = std::max({2 * srtt, srtt + m_config.ackDelayNs, m_config.tailProbeMinNs});
    const uint32_t backoff = std::min<uint32_t>(m_probes > 1 ? m_probes - 1 : 0, 8);
    return m_base + std::min(pto << backoff, m_config.rtoMaxNs);
}

void
TailLossProbe::ArmIfDue(TimeNs now,
                        bool dataQueued,
                        const RttEstimator& connectionRtt,
                        bool tail,
                        const std::vector<Path>& paths)
{
    if (DueAt(dataQueued, connectionRtt, tail) <= now)
    {
        m_state = State::Due;
        m_path = NewestTail(paths)->id;
    }
}

bool
TailLossProbe::TakeIfDueOn(uint16_t path)
{
    if (m_state != State::Due || m_path != path)
    {
        return false;
    }
    m_state = State::Waiting;
    ++m_probes;
    return true;
}

void
TailLossProbe::Cancel(uint16_t path)
{
    if (m_state == State::Due && m_path == path)
    {
        m_state = State::Waiting;
    }
}

} // namespace metaroce
