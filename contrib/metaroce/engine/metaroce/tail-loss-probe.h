/*
 * The connection's tail-loss probe (spec 5.5, after TCP's tail loss probe, RFC 8985 7).
 *
 * Loss detection needs a later packet acknowledged to see a hole; a lost tail has none. When
 * nothing was sent or newly acknowledged for a probe timeout (PTO) and the connection has no
 * data waiting, the probe becomes Due on the path whose newest in-flight packet was sent last;
 * that path's next pull sends its newest unacknowledged DATA again (or a PROBE), and the ACK of
 * that packet exposes the hole. PTO = max(2 srtt, srtt + ACK delay, tailProbeMin); from the
 * third probe without progress each waits twice as long as the one before, at most rtoMax;
 * after maxTailProbes the retransmission timer is left to act. No probe before the first RTT
 * sample: the first window may still sit in an incast queue.
 */
#ifndef METAROCE_ENGINE_TAIL_LOSS_PROBE_H
#define METAROCE_ENGINE_TAIL_LOSS_PROBE_H

#include "metaroce-config.h"
#include "metaroce-path.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace metaroce
{

/// The path whose newest in-flight packet was sent last (Down paths aside), or nullptr.
const Path* NewestTail(const std::vector<Path>& paths);

/// Tail-loss probe state of one requester.
class TailLossProbe
{
  public:
    enum class State : uint8_t
    {
        Waiting, ///< the PTO runs from the last send or acknowledgement of new data
        Due,     ///< a probe is due on DuePath()
    };

    explicit TailLossProbe(const MetaRoceConfig& config);

    /// A packet was sent at `now`: the PTO restarts.
    void OnSent(TimeNs now);

    /// New data was acknowledged at `now`: the probe count resets and the PTO restarts.
    void OnProgress(TimeNs now);

    /// When the probe is due, or kNever: `dataQueued` when data waits to be sent (later
    /// packets follow then, and reveal a hole by the time rule), `tail` when a path that is not
    /// Down has a packet in flight (NewestTail() would find one).
    TimeNs DueAt(bool dataQueued, const RttEstimator& connectionRtt, bool tail) const;

    /// Makes the probe Due on NewestTail(paths) when DueAt() has come at `now`.
    void ArmIfDue(TimeNs now,
                  bool dataQueued,
                  const RttEstimator& connectionRtt,
                  bool tail,
                  const std::vector<Path>& paths);

    /// True, and counts a probe sent, when the probe is due on `path`.
    bool TakeIfDueOn(uint16_t path);

    /// `path` went down: a probe due on it is not sent.
    void Cancel(uint16_t path);

    /// The path the due probe goes out on.
    std::optional<uint16_t> DuePath() const
    {
        return m_state == State::Due ? std::optional<uint16_t>(m_path) : std::nullopt;
    }

  private:
    const MetaRoceConfig& m_config;
    State m_state{State::Waiting};
    uint16_t m_path{0};   ///< valid while Due
    TimeNs m_base{0};     ///< last send or acknowledgement of new data
    uint32_t m_probes{0}; ///< probes since data was last acknowledged
};

} // namespace metaroce

#endif // METAROCE_ENGINE_TAIL_LOSS_PROBE_H
