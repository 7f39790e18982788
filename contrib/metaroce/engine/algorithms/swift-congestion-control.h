/*
 * A delay-based MetaRoCE congestion control in the manner of Swift (Kumar et al., "Swift:
 * Delay is Simple and Effective for Congestion Control in the Datacenter", SIGCOMM 2020;
 * spec 9.6).
 *
 * Swift reacts to the fabric delay an ACK measures instead of ECN marks, so it needs nothing
 * from the switches: a standing queue that RED never marks (ECN off, or a queue below Kmin)
 * still lengthens the RTT and makes Swift back off. Per ACK, with the ACK's own RTT sample
 * `delay` (AckSample::rtt; the path's srtt when the ACK carried no timestamp):
 *
 *   delay <  target:  W = clamp(W + AI * ackedBytes / W)            (about +AI per RTT)
 *   delay >= target:  W = clamp(W * max(1 - beta * (delay - target) / delay, 1 - maxDecrease))
 *                     at most once per RTT
 *
 * for the path window (gain `beta`) and the connection window (gain `connectionBeta`), each
 * with its own once-per-RTT clock (WindowState::MayDecrease). The decrease is proportional to
 * how far the delay is above target, so a queue just over target costs little and a deep one
 * at most maxDecrease per RTT. As with AIMD, loss is not necessarily congestion on a lossy
 * fabric (spec 9.3): a loss cuts only the path, by maxDecrease (Swift's cut on fast
 * retransmit), and a timeout sets the path to its minimum window. ECN counts are ignored.
 *
 * Left out of this model: Swift's flow- and topology-scaled target (the target here is one
 * fixed fabric delay), the pacing of windows below one packet (the connection's rate-hint
 * pacing and the path's "one packet when empty" rule stand in), and the separate endpoint
 * (host) delay target, since the simulated NICs add no host delay.
 */
#ifndef METAROCE_ENGINE_SWIFT_CONGESTION_CONTROL_H
#define METAROCE_ENGINE_SWIFT_CONGESTION_CONTROL_H

#include "../common/config-field.h"
#include "congestion-control.h"

namespace metaroce
{

/// Parameters of SwiftCongestionControl (spec 9.6; every default an assumption, spec 11 A34).
struct SwiftConfig
{
    TimeNs targetDelayNs{12000};          ///< fabric RTT above which windows are cut
    uint32_t additiveIncreaseBytes{4096}; ///< per RTT below target, per path and connection
    double beta{0.8};                     ///< gain of the path's proportional decrease
    double connectionBeta{0.4};           ///< same, for the connection window
    double maxDecrease{0.5};              ///< largest share of a window one cut removes

    /// Throws std::invalid_argument naming the first field out of range, prefixed by `owner`.
    void Validate(const char* owner = "SwiftConfig") const;
};

/// The tunables of SwiftConfig, one row each (config-field.h).
const ConfigFields<SwiftConfig>& SwiftConfigFields();

/// Delay-based AIMD with a decrease proportional to the excess delay, per path and connection.
class SwiftCongestionControl : public CongestionControl
{
  public:
    /// \param config validated here: throws std::invalid_argument naming a bad field
    explicit SwiftCongestionControl(const SwiftConfig& config = SwiftConfig());

    const char* Name() const override;
    void OnAck(WindowState& path,
               WindowState& connection,
               const AckSample& sample,
               TimeNs now) override;
    void OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now) override;
    void OnTimeout(WindowState& path, WindowState& connection, TimeNs now) override;
    std::unique_ptr<CongestionControl> Clone() const override;

    /// The factor a window with gain `gain` is multiplied by at `delay` (>= the target).
    double DecreaseFactor(double gain, TimeNs delay) const;

  private:
    SwiftConfig m_config;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_SWIFT_CONGESTION_CONTROL_H
