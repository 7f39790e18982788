/*
 * DCQCN, the rate-based congestion control of RoCEv2 (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015; spec: RoCEv2 baseline, "DCQCN").
 *
 * Three roles: switches mark packets with ECN (RED-style, outside the engine); the notification
 * point (NP, the receiving NIC) turns CE marks into CNP packets, at most one per interval; the
 * reaction point (RP, the sending NIC) cuts its rate on each CNP and raises it again on timers
 * and byte counts. Both classes here are pure state machines driven with `now`: they own no
 * timer, the queue pair asks NextTimer() and calls OnTimer().
 *
 * Reaction point, as the paper describes its algorithm:
 *   - on CNP: Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1 - g) alpha + g; the rate timer, the
 *     byte counter and both stage counts restart;
 *   - every K without a CNP: alpha = (1 - g) alpha (evaluated lazily: nothing depends on alpha
 *     between CNPs, so the decay is applied when the next CNP arrives);
 *   - every T while Rc is below line rate (timer stage T += 1) and every B bytes sent (byte stage
 *     BC += 1): a rate increase event, which is
 *       fast recovery     when max(T, BC) <= F:  Rc = (Rt + Rc) / 2
 *       hyper increase    when min(T, BC) >  F:  Rt += (min(T, BC) - F) R_HAI; Rc = (Rt + Rc) / 2
 *       additive increase otherwise:             Rt += R_AI;                  Rc = (Rt + Rc) / 2
 *     with Rt capped at line rate and Rc never below the minimum rate.
 * Rates are integer bits per second and the halving rounds up, so Rc reaches Rt exactly and the
 * timer stops once the flow is back at line rate.
 *
 * Default parameters (DcqcnConfig) and their sources:
 *   g = 1/256, K = 55 us, N (CNP interval) = 50 us, T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s:
 *     the values the DCQCN paper recommends and evaluates with;
 *   R_HAI = 100 Mb/s and minimum rate = 100 Mb/s: values used in DCQCN configurations of the
 *     HPCC ns-3 simulator family (RATE_HAI, MIN_RATE), as the paper gives no R_HAI default;
 *   initial alpha = 1: the paper (a new flow reacts to its first CNP by halving).
 * NIC firmware exposes the same knobs with defaults of its own (rate timer, byte counter, AI and
 * HAI rates differ between releases); every value is a field of DcqcnConfig.
 */
#ifndef METAROCE_ENGINE_DCQCN_H
#define METAROCE_ENGINE_DCQCN_H

#include "../common/config-field.h"
#include "../common/engine-types.h"

#include <cstdint>

namespace metaroce
{

/// DCQCN parameters. See the file comment for the source of every default.
struct DcqcnConfig
{
    bool enabled{true};                     ///< off: no CNP, no pacing (line rate)
    double g{1.0 / 256};                    ///< alpha gain
    double initialAlpha{1.0};               ///< alpha before the first CNP
    TimeNs alphaTimerNs{55000};             ///< K: alpha decays once per K without CNP
    TimeNs rateTimerNs{55000};              ///< T: period of timer-driven rate increase
    uint64_t byteCounterBytes{10000000};    ///< B: bytes between byte-driven rate increases
    uint32_t fastRecoverySteps{5};          ///< F: increase events spent in fast recovery
    uint64_t additiveIncreaseBps{40000000}; ///< R_AI
    uint64_t hyperIncreaseBps{100000000};   ///< R_HAI
    uint64_t minRateBps{100000000};         ///< floor of the current rate
    TimeNs cnpIntervalNs{50000};            ///< N: at most one CNP per interval per QP (NP)

    /// Throws std::invalid_argument naming the bad field (prefixed by `owner`, e.g.
    /// "RoceV2Config.dcqcn"); the minimum rate must not exceed `lineRateBps`.
    void Validate(uint64_t lineRateBps, const char* owner = "DcqcnConfig") const;
};

/// The tunables of DcqcnConfig, one row each (config-field.h).
const ConfigFields<DcqcnConfig>& DcqcnConfigFields();

/// Which rule the last rate increase event applied.
enum class DcqcnPhase : uint8_t
{
    None, ///< no increase since the last CNP
    FastRecovery,
    AdditiveIncrease,
    HyperIncrease,
};

/// Printable name of a phase.
const char* DcqcnPhaseName(DcqcnPhase phase);

/// The sender side of DCQCN: the rate one QP may send at.
class DcqcnReactionPoint
{
  public:
    /// Starts at line rate; `config` must have passed Validate(lineRateBps).
    DcqcnReactionPoint(const DcqcnConfig& config, uint64_t lineRateBps);

    /// A CNP arrived for this QP.
    void OnCnp(TimeNs now);

    /// `bytes` were sent; drives the byte counter while below line rate.
    void OnBytesSent(uint64_t bytes, TimeNs now);

    /// Applies every rate timer expiry up to `now`.
    void OnTimer(TimeNs now);

    /// Next rate timer expiry, or kNever at line rate.
    TimeNs NextTimer() const;

    uint64_t RateBps() const;
    uint64_t TargetRateBps() const;
    uint64_t LineRateBps() const;
    /// Alpha as it stands at `now` (with the decay of the periods since the last CNP).
    double Alpha(TimeNs now) const;
    uint32_t TimerStage() const;
    uint32_t ByteStage() const;
    DcqcnPhase Phase() const;
    uint64_t CnpsReceived() const;

  private:
    /// One rate increase event (after a stage count moved).
    void Increase();

    DcqcnConfig m_config;
    uint64_t m_lineRate;
    uint64_t m_rate;
    uint64_t m_targetRate;
    double m_alpha;
    TimeNs m_alphaSince{0}; ///< start of the current alpha decay periods
    TimeNs m_rateTimerSince{0};
    uint64_t m_bytes{0};
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    DcqcnPhase m_phase{DcqcnPhase::None};
    uint64_t m_cnps{0};
};

/// The receiver side of DCQCN: decides when a CE mark produces a CNP.
class DcqcnNotificationPoint
{
  public:
    explicit DcqcnNotificationPoint(TimeNs cnpIntervalNs);

    /// A CE-marked packet of this QP arrived; true when a CNP should be sent now (the first mark
    /// ever, or the first at least one interval after the previous CNP).
    bool OnCeMarked(TimeNs now);

    uint64_t CnpsGenerated() const;

  private:
    TimeNs m_interval;
    TimeNs m_lastCnp{0};
    uint64_t m_cnps{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_DCQCN_H
