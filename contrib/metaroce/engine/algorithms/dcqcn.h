/*
 * DCQCN, the rate-based congestion control of RoCEv2 (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015; spec 10.5, "DCQCN").
 *
 * Three roles: switches mark packets with ECN (RED-style, outside the engine); the notification
 * point (NP, the receiving NIC) turns CE marks into CNP packets, at most one per interval per
 * queue pair; the reaction point (RP, the sending NIC) cuts its rate after CNPs and raises it
 * again on timers (and byte counts). Both classes here are pure state machines driven with
 * `now`: they own no timer, the queue pair asks NextTimer() and calls OnTimer().
 *
 * Two variants of the reaction point (DcqcnVariant):
 *
 * nic (the default): DCQCN as NICs run it and as the RDMA literature simulates it (NVIDIA
 *   ConnectX firmware's parameters and defaults; the "mlx" DCQCN of HPCC's ns-3 simulator,
 *   RdmaHw). The first CNP a queue pair ever receives arms the timers and cuts nothing at once:
 *   - alpha, every K: alpha = (1 - g) alpha + g if a CNP arrived in the period, else
 *     (1 - g) alpha (the first CNP sets alpha to its initial value and does not count);
 *   - rate decrease, every D on a grid from the first CNP: if a CNP arrived since the last
 *     check, Rc = max(min, Rc (1 - alpha/2)), and first Rt = Rc if the rate timer raised the
 *     rate since the last cut (NVIDIA's clamp_tgt_rate_after_time_inc), or always with
 *     ClampTargetRate; the increase state restarts. So the first cut comes one decrease
 *     interval after the first CNP, and the CNPs of one interval cut once;
 *   - rate increase, every T after the last cut (timer stage T += 1) and every B bytes sent
 *     (byte stage BC += 1), with the paper's rules below; with the byte counter off (HPCC's
 *     simulator has none), HPCC's ladder on the timer stage: fast recovery while T <= F, one
 *     additive step at T = F + 1 (Rt += R_AI), hyper steps after it (Rt += R_HAI); each event
 *     then sets Rc = (Rt + Rc)/2.
 *   Alpha is evaluated lazily (its periods without CNP are a plain decay), so only the decrease
 *   check and the increase timer are deadlines.
 *
 * paper: the algorithm as the DCQCN paper writes it:
 *   - on CNP, at once: Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1 - g) alpha + g; the rate
 *     timer, the byte counter and both stage counts restart;
 *   - every K without a CNP: alpha = (1 - g) alpha (applied when the next CNP arrives);
 *   - every T while Rc is below line rate (timer stage T += 1) and every B bytes sent (byte stage
 *     BC += 1): fast recovery when max(T, BC) <= F; hyper increase when min(T, BC) > F,
 *     Rt += (min(T, BC) - F) R_HAI; additive increase otherwise, Rt += R_AI; then
 *     Rc = (Rt + Rc)/2.
 *
 * In both, Rt is capped at line rate, Rc never falls below the minimum rate, rates are integer
 * bits per second and the halving rounds up, so Rc reaches Rt exactly and the timers stop once
 * the queue pair is back at line rate.
 *
 * Parameters whose defaults differ between the variants are 0 in DcqcnConfig, "the variant's
 * default", which Resolved() fills in (see kDcqcnNicDefaults and kDcqcnPaperDefaults in
 * dcqcn.cc for every value and its source).
 */
#ifndef METAROCE_ENGINE_DCQCN_H
#define METAROCE_ENGINE_DCQCN_H

#include "../common/config-field.h"
#include "../common/engine-types.h"

#include <cstdint>
#include <string>

namespace metaroce
{

/// Which reaction point runs (file comment).
enum class DcqcnVariant : uint8_t
{
    Nic,   ///< NIC firmware and HPCC's simulator: sampled cuts, the first one interval late
    Paper, ///< the DCQCN paper: a cut on every CNP
};

/// "nic" or "paper".
const char* DcqcnVariantName(DcqcnVariant variant);

/// Parses "nic" or "paper"; throws std::invalid_argument otherwise.
DcqcnVariant ParseDcqcnVariant(const std::string& name);

/// The largest ByteCounter, which turns the byte counter off (as in HPCC's simulator, whose
/// DCQCN increases on its timer only).
constexpr uint64_t kDcqcnNoByteCounter = 1000000000000000ULL;

/// DCQCN parameters. A 0 in a field marked "variant" is that variant's default (Resolved()).
struct DcqcnConfig
{
    bool enabled{true};                      ///< off: no CNP, no pacing (line rate)
    DcqcnVariant variant{DcqcnVariant::Nic}; ///< not a table row: an enum ("Variant")
    double g{0};                             ///< alpha gain (variant)
    double initialAlpha{1.0};                ///< alpha at the first CNP (paper: before it)
    TimeNs alphaTimerNs{0};                  ///< K (variant)
    TimeNs rateDecreaseIntervalNs{0};        ///< D (variant; nic only)
    TimeNs rateTimerNs{0};                   ///< T (variant)
    uint64_t byteCounterBytes{0};            ///< B (variant)
    uint32_t fastRecoverySteps{0};           ///< F (variant)
    uint64_t additiveIncreaseBps{0};         ///< R_AI (variant)
    uint64_t hyperIncreaseBps{0};            ///< R_HAI (variant)
    uint64_t minRateBps{0};                  ///< floor of the current rate (variant)
    bool clampTargetRate{false};             ///< nic only: Rt = Rc on every cut
    TimeNs cnpIntervalNs{50000};             ///< N: at most one CNP per interval per QP (NP)

    /// Throws std::invalid_argument naming the bad field (prefixed by `owner`, e.g.
    /// "RoceV2Config.dcqcn"); the minimum rate must not exceed `lineRateBps`.
    void Validate(uint64_t lineRateBps, const char* owner = "DcqcnConfig") const;

    /// A copy with every 0 "variant" field replaced by the variant's default.
    DcqcnConfig Resolved() const;
};

/// The tunables of DcqcnConfig, one row each (config-field.h); the variant is not a row.
const ConfigFields<DcqcnConfig>& DcqcnConfigFields();

/// Which rule the last rate increase event applied.
enum class DcqcnPhase : uint8_t
{
    None, ///< no increase since the last cut
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
    /// Starts at line rate; `config` must have passed Validate(lineRateBps). Zero "variant"
    /// fields take the variant's defaults.
    DcqcnReactionPoint(const DcqcnConfig& config, uint64_t lineRateBps);

    /// A CNP arrived for this QP (nic: first applies every timer due up to `now`).
    void OnCnp(TimeNs now);

    /// `bytes` were sent; drives the byte counter while below line rate.
    void OnBytesSent(uint64_t bytes, TimeNs now);

    /// Applies every timer expiry (rate decrease check, rate increase) up to `now`.
    void OnTimer(TimeNs now);

    /// Next timer expiry, or kNever at line rate with no cut pending.
    TimeNs NextTimer() const;

    uint64_t RateBps() const;
    uint64_t TargetRateBps() const;
    uint64_t LineRateBps() const;
    /// Alpha as it stands at `now` (with the updates of the periods since it was last applied).
    double Alpha(TimeNs now) const;
    uint32_t TimerStage() const;
    uint32_t ByteStage() const;
    DcqcnPhase Phase() const;
    uint64_t CnpsReceived() const;
    /// Rate cuts so far (paper: one per CNP; nic: one per decrease check that saw a CNP).
    uint64_t Cuts() const;
    /// The configuration with the variant's defaults filled in.
    const DcqcnConfig& GetConfig() const;

  private:
    /// The paper's reaction to a CNP: an immediate cut.
    void PaperCnp(TimeNs now);
    /// The nic variant's: arm the timers (first CNP) and note the CNP for alpha and the check.
    void NicCnp(TimeNs now);
    /// nic: applies every alpha period that ended at or before `now`.
    void AdvanceAlpha(TimeNs now);
    /// nic: the decrease check due at `at`, which a CNP since the last one asked for.
    void NicDecrease(TimeNs at);
    /// The cut itself, at `at`, with `alpha`; restarts the increase state.
    void Cut(TimeNs at, double alpha, bool clampTarget);
    /// One rate increase event (after a stage count moved).
    void Increase();

    DcqcnConfig m_config;
    uint64_t m_lineRate;
    uint64_t m_rate;
    uint64_t m_targetRate;
    double m_alpha;
    TimeNs m_alphaSince{0}; ///< paper: last CNP; nic: end of the last alpha period applied
    TimeNs m_rateTimerSince{0};
    uint64_t m_bytes{0};
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    DcqcnPhase m_phase{DcqcnPhase::None};
    uint64_t m_cnps{0};
    uint64_t m_cuts{0};
    // nic only.
    TimeNs m_armedAt{kNever};      ///< the first CNP: origin of the alpha and decrease grids
    bool m_alphaCnp{false};        ///< a CNP arrived in the current alpha period
    TimeNs m_nextDecrease{kNever}; ///< the check a CNP asked for
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
