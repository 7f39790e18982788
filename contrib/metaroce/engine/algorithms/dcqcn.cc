#include "dcqcn.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

/// The values a 0 in a "variant" field stands for.
struct VariantDefaults
{
    double g;
    TimeNs alphaTimerNs;
    TimeNs rateDecreaseIntervalNs;
    TimeNs rateTimerNs;
    uint64_t byteCounterBytes;
    uint32_t fastRecoverySteps;
    uint64_t additiveIncreaseBps;
    uint64_t hyperIncreaseBps;
    uint64_t minRateBps;
};

/*
 * nic: NVIDIA ConnectX firmware defaults, as `mlxconfig -q` lists them and NVIDIA's "DCQCN CC
 * Parameters" page documents them, on the semantics of the "mlx" DCQCN of HPCC's simulator:
 *   g = 5/1024          DCE_TCP_G 1019: alpha = (1019 alpha + 5 [CNP seen]) / 1024
 *   K = 1 us            DCE_TCP_RTT (HPCC's run.py: t_alpha = 1 us)
 *   D = 4 us            RATE_REDUCE_MONITOR_PERIOD (HPCC: t_dec = 4 us)
 *   T = 300 us          RPG_TIME_RESET (HPCC: t_inc = 300 us)
 *   B = 32767 bytes     RPG_BYTE_RESET (HPCC's simulator has no byte counter)
 *   F = 1               RPG_THRESHOLD (HPCC: FAST_RECOVERY_TIMES 1)
 *   R_AI = 5 Mb/s, R_HAI = 50 Mb/s: RPG_AI_RATE, RPG_HAI_RATE
 *   minimum 1 Mb/s      RPG_MIN_RATE
 * (RPG_GD 11 and RPG_MIN_DEC_FAC 50 are the cut Rc (1 - alpha/2), at most by half;
 * CLAMP_TGT_RATE 0 and CLAMP_TGT_RATE_AFTER_TIME_INC 1 are ClampTargetRate false and the
 * clamp after a timer increase; RATE_TO_SET_ON_FIRST_CNP 0 is no rate change at the first CNP.)
 */
constexpr VariantDefaults
    kDcqcnNicDefaults{5.0 / 1024, 1000, 4000, 300000, 32767, 1, 5000000, 50000000, 1000000};

/*
 * paper: the DCQCN paper's recommended values (g = 1/256, K = T = 55 us, B = 10 MB, F = 5,
 * R_AI = 40 Mb/s); R_HAI = 100 Mb/s and the 100 Mb/s minimum as in DCQCN configurations of the
 * HPCC simulator family (the paper gives neither). D is not used: the paper cuts on every CNP
 * at once.
 */
constexpr VariantDefaults
    kDcqcnPaperDefaults{1.0 / 256, 55000, 0, 55000, 10000000, 5, 40000000, 100000000, 100000000};

template<typename T>
void
Fill(T& field, T value)
{
    if (field == 0)
    {
        field = value;
    }
}

} // namespace

const ConfigFields<DcqcnConfig>&
DcqcnConfigFields()
{
    using C = DcqcnConfig;
    constexpr double kMaxNs = 1e12;
    constexpr double kMaxBps = 1e15;
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<DcqcnConfig> fields = {
        METAROCE_FIELD(C, enabled, "Enabled", Flag, 0, 1, "10.5",
                       "DCQCN rate control: CNPs on CE marks, paced sending. Off: line rate."),
        METAROCE_FIELD(C, g, "G", Real, 0, 1 - 1e-9, "10.5",
                       "Gain g of alpha. 0: the variant's (nic 5/1024, paper 1/256)."),
        METAROCE_FIELD(C, initialAlpha, "InitialAlpha", Real, 0, 1, "10.5",
                       "Alpha at the first CNP (nic) or before it (paper)."),
        METAROCE_FIELD(C, alphaTimerNs, "AlphaTimer", Nanoseconds, 0, kMaxNs, "10.5",
                       "K: alpha update period. 0: the variant's (nic 1 us, paper 55 us)."),
        METAROCE_FIELD(C, rateDecreaseIntervalNs, "RateDecreaseInterval", Nanoseconds, 0, kMaxNs,
                       "10.5", "D, nic only: period of the rate decrease check, which cuts once if "
                       "a CNP arrived since the last. 0: 4 us."),
        METAROCE_FIELD(C, rateTimerNs, "RateTimer", Nanoseconds, 0, kMaxNs, "10.5",
                       "T: period of the timer-driven rate increase. 0: the variant's (nic "
                       "300 us, paper 55 us)."),
        METAROCE_FIELD(C, byteCounterBytes, "ByteCounter", Bytes, 0, 1e15, "10.5",
                       "B: bytes sent between byte-driven rate increases. 0: the variant's (nic "
                       "32767 B, paper 10 MB); 1e15, the largest: none (HPCC's simulator)."),
        METAROCE_FIELD(C, fastRecoverySteps, "FastRecoverySteps", Count, 0, 1e6, "10.5",
                       "F: increase events spent in fast recovery. 0: the variant's (nic 1, "
                       "paper 5)."),
        METAROCE_FIELD(C, additiveIncreaseBps, "AdditiveIncrease", BitsPerSecond, 0, kMaxBps,
                       "10.5", "R_AI: additive increase step. 0: the variant's (nic 20 Mb/s, "
                       "paper 40 Mb/s)."),
        METAROCE_FIELD(C, hyperIncreaseBps, "HyperIncrease", BitsPerSecond, 0, kMaxBps, "10.5",
                       "R_HAI: hyper increase step. 0: the variant's (nic 50 Mb/s, paper "
                       "100 Mb/s)."),
        METAROCE_FIELD(C, minRateBps, "MinRate", BitsPerSecond, 0, kMaxBps, "10.5",
                       "Floor of the current rate (at most the line rate). 0: the variant's (nic "
                       "1 Mb/s, paper 100 Mb/s)."),
        METAROCE_FIELD(C, clampTargetRate, "ClampTargetRate", Flag, 0, 1, "10.5",
                       "nic only: every cut sets the target rate to the current rate (off: only "
                       "a cut after an increase). The paper variant always does."),
        METAROCE_FIELD(C, cnpIntervalNs, "CnpInterval", Nanoseconds, 1, kMaxNs, "10.5",
                       "N: at most one CNP per interval per queue pair (notification point; "
                       "the paper's 50 us; NVIDIA firmware's MIN_TIME_BETWEEN_CNPS is 4 us)."),
    };
    // clang-format on
    return fields;
}

const char*
DcqcnVariantName(DcqcnVariant variant)
{
    return variant == DcqcnVariant::Paper ? "paper" : "nic";
}

DcqcnVariant
ParseDcqcnVariant(const std::string& name)
{
    if (name == "nic")
    {
        return DcqcnVariant::Nic;
    }
    if (name == "paper")
    {
        return DcqcnVariant::Paper;
    }
    throw std::invalid_argument("unknown DCQCN variant '" + name + "' (nic or paper)");
}

void
DcqcnConfig::Validate(uint64_t lineRateBps, const char* owner) const
{
    ValidateFields(*this, DcqcnConfigFields(), owner);
    if (variant != DcqcnVariant::Nic && variant != DcqcnVariant::Paper)
    {
        ThrowFieldError(owner, "variant", "must be nic or paper", std::to_string(int(variant)));
    }
    const uint64_t minRate = Resolved().minRateBps;
    if (minRate > lineRateBps)
    {
        ThrowFieldError(owner,
                        "minRateBps",
                        "must be <= the line rate " + std::to_string(lineRateBps),
                        std::to_string(minRate));
    }
}

DcqcnConfig
DcqcnConfig::Resolved() const
{
    const VariantDefaults& d =
        variant == DcqcnVariant::Paper ? kDcqcnPaperDefaults : kDcqcnNicDefaults;
    DcqcnConfig c = *this;
    Fill(c.g, d.g);
    Fill(c.minRateBps, d.minRateBps);
    Fill(c.alphaTimerNs, d.alphaTimerNs);
    Fill(c.rateTimerNs, d.rateTimerNs);
    Fill(c.byteCounterBytes, d.byteCounterBytes);
    Fill(c.fastRecoverySteps, d.fastRecoverySteps);
    Fill(c.additiveIncreaseBps, d.additiveIncreaseBps);
    Fill(c.hyperIncreaseBps, d.hyperIncreaseBps);
    // The paper variant never checks (it cuts at once); the nic default is used for both so
    // that a resolved configuration never holds a zero period.
    Fill(c.rateDecreaseIntervalNs, kDcqcnNicDefaults.rateDecreaseIntervalNs);
    return c;
}

const char*
DcqcnPhaseName(DcqcnPhase phase)
{
    switch (phase)
    {
    case DcqcnPhase::None:
        return "none";
    case DcqcnPhase::FastRecovery:
        return "fast-recovery";
    case DcqcnPhase::AdditiveIncrease:
        return "additive-increase";
    case DcqcnPhase::HyperIncrease:
        return "hyper-increase";
    }
    return "?";
}

DcqcnNotificationPoint::DcqcnNotificationPoint(TimeNs cnpIntervalNs)
    : m_interval(cnpIntervalNs)
{
}

bool
DcqcnNotificationPoint::OnCeMarked(TimeNs now)
{
    if (m_cnps > 0 && now < m_lastCnp + m_interval)
    {
        return false;
    }
    m_lastCnp = now;
    ++m_cnps;
    return true;
}

uint64_t
DcqcnNotificationPoint::CnpsGenerated() const
{
    return m_cnps;
}

} // namespace metaroce
