/*
 * The fixed point of DCQCN's fluid model, for the validation suite's DCQCN check
 * (metaroce-validation-dcqcn.cc, doc/validation.md).
 *
 * The model. Zhu et al., "Congestion Control for Large-Scale RDMA Deployments" (SIGCOMM 2015),
 * section 5, describe N DCQCN flows through one bottleneck of capacity C with a RED marker on
 * the instantaneous queue q; Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN
 * and TIMELY" (CoNEXT 2016), section 3, analyse its fixed point. Rates are in packets per
 * second, B in packets, p is the probability that one packet is marked:
 *
 *   p(q)      = 0 below Kmin, Pmax (q - Kmin) / (Kmax - Kmin) up to Kmax, 1 above
 *   dq/dt     = N Rc - C
 *   dalpha/dt = g/tau' [ (1 - (1 - p)^(tau' Rc)) - alpha ]
 *   dRt/dt    = -(Rt - Rc)/tau [1 - (1 - p)^(tau Rc)]
 *               + R_AI Rc p (1 - p)^(F B)      / ((1 - p)^(-B)      - 1)
 *               + R_AI Rc p (1 - p)^(F T Rc)   / ((1 - p)^(-T Rc)   - 1)
 *   dRc/dt    = -Rc alpha/(2 tau) [1 - (1 - p)^(tau Rc)]
 *               + (Rt - Rc)/2 Rc p / ((1 - p)^(-B)    - 1)
 *               + (Rt - Rc)/2 Rc p / ((1 - p)^(-T Rc) - 1)
 *
 * (all right-hand sides at t - tau*, the feedback delay, which moves no fixed point). tau is
 * the CNP interval of the notification point (one CNP per tau while marks arrive, so a cut
 * happens in a tau with probability 1 - (1-p)^(tau Rc)); tau' the alpha timer; T the rate
 * increase timer; B the byte counter; F the fast-recovery steps; R_AI the additive step. The
 * two increase terms are the rates of byte-counter and timer events, a geometric count of
 * unmarked packets between cuts; only events past fast recovery (after F of them) raise Rt.
 * Hyper increase is left out, as in the paper: it needs min(T, BC) > F, more than F byte
 * counts (F x 10 MB) without a cut, which never happens at the fixed point.
 *
 * The fixed point. Setting every derivative to 0 gives Rc* = C/N, and with
 *   a  = 1 - (1 - p)^(tau Rc),   a' = 1 - (1 - p)^(tau' Rc) (= alpha*),
 *   eB = Rc p / ((1 - p)^(-B) - 1),   eT = Rc p / ((1 - p)^(-T Rc) - 1):
 *   from dRc/dt = 0:  (Rt - Rc) (eB + eT) = Rc alpha a / tau
 *   from dRt/dt = 0:  (Rt - Rc) a / tau   = R_AI [(1-p)^(F B) eB + (1-p)^(F T Rc) eT]
 * and eliminating Rt - Rc, one equation in p alone:
 *   f(p) = Rc a' a^2 / (tau^2 (eB + eT)) - R_AI [(1-p)^(F B) eB + (1-p)^(F T Rc) eT] = 0.
 * f < 0 as p -> 0 (the left side vanishes like p^3, the right tends to R_AI (Rc/B + 1/T)) and
 * f > 0 as p -> 1 (the event rates vanish), so bisection finds p*. The queue follows from
 * RED's inverse: q* = Kmin + p* (Kmax - Kmin) / Pmax, when p* < Pmax (else q* sits at Kmax,
 * where RED jumps to 1).
 *
 * The nic variant (NVIDIA firmware's reaction point, spec 10.5, the model's default) in the same
 * mean-field terms. Its target is clamped at a cut only if the rate timer raised the rate since
 * the last one, and that timer (T = 300 us) is longer than the time between CNPs wherever
 * packets are marked, so Rt climbs to the line rate L and stays there; every byte-counter event
 * (each B bytes sent) halves Rc's gap to it, and every cut takes alpha/2 of Rc:
 *   dRc/dt = (L - Rc)/2 Rc/B - Rc alpha lambda/2,
 * with lambda the CNP rate, at most 1/tau (the notification point's interval), and
 * alpha* = K lambda (alpha rises by g in each period K holding a CNP, falls by (1-g) in the
 * others; g cancels). A fixed point at Rc = C/N needs K lambda^2 = (L - C/N)/B; when
 * (L - C/N)/B > K/tau^2 there is none: even with every packet marked the cuts cannot hold the
 * rate, each flow settles at Rc = L - B K/tau^2 and the queue grows until something else
 * bounds it (the buffer, PFC, or the queue pairs' windows).
 *
 * Units in the model under test. Its DCQCN paces Rc over each packet's UDP payload plus 46
 * bytes of frame overhead (spec 10.5), while a link serialises IPv4 + 2 bytes: C and Rc are
 * converted to packets with their own byte counts, so that the fixed point's Rc = C/N holds in
 * packets. RED counts the queue in IPv4 bytes.
 */
#ifndef METAROCE_VALIDATION_DCQCN_FLUID_H
#define METAROCE_VALIDATION_DCQCN_FLUID_H

#include <cmath>
#include <cstdint>

namespace ns3
{
namespace validation
{

/// The parameters of the fluid model (see the file comment); rates in packets per second.
struct DcqcnFluidModel
{
    double capacityPps{0};     ///< C
    uint32_t flows{1};         ///< N
    double cnpIntervalS{0};    ///< tau
    double alphaTimerS{0};     ///< tau'
    double rateTimerS{0};      ///< T
    double byteCounterPkts{0}; ///< B
    double fastRecovery{0};    ///< F
    double additivePps{0};     ///< R_AI
    double kminBytes{0};       ///< RED
    double kmaxBytes{0};
    double pmax{0};
};

/// The fixed point: marking probability, alpha, Rt - Rc, queue.
struct DcqcnFixedPoint
{
    double p{0};
    double alpha{0};
    double targetGapPps{0}; ///< Rt - Rc
    double ratePps{0};      ///< Rc = C / N
    double queueBytes{0};
};

/// Rc p / ((1 - p)^(-n) - 1): the rate of events that come every n unmarked packets.
inline double
DcqcnEventRate(double rc, double p, double n)
{
    const double x = -n * std::log1p(-p);
    return x > 700 ? 0.0 : rc * p / std::expm1(x);
}

/// Solves f(p) = 0 (file comment) by bisection and returns the fixed point.
inline DcqcnFixedPoint
SolveDcqcnFixedPoint(const DcqcnFluidModel& m)
{
    const double rc = m.capacityPps / m.flows;

    struct Terms
    {
        double a, alpha, eB, eT, lp;
    };

    auto terms = [&m, rc](double p) {
        const double lp = std::log1p(-p);
        return Terms{-std::expm1(m.cnpIntervalS * rc * lp),
                     -std::expm1(m.alphaTimerS * rc * lp),
                     DcqcnEventRate(rc, p, m.byteCounterPkts),
                     DcqcnEventRate(rc, p, m.rateTimerS * rc),
                     lp};
    };
    auto f = [&m, rc, &terms](double p) {
        const Terms t = terms(p);
        const double lhs =
            rc * t.alpha * t.a * t.a / (m.cnpIntervalS * m.cnpIntervalS * (t.eB + t.eT));
        const double rhs =
            m.additivePps * (std::exp(m.fastRecovery * m.byteCounterPkts * t.lp) * t.eB +
                             std::exp(m.fastRecovery * m.rateTimerS * rc * t.lp) * t.eT);
        return lhs - rhs;
    };
    double lo = 1e-12;
    double hi = 1 - 1e-12;
    for (int i = 0; i < 200; ++i)
    {
        const double mid = (lo + hi) / 2;
        (f(mid) > 0 ? hi : lo) = mid;
    }
    DcqcnFixedPoint fp;
    fp.p = (lo + hi) / 2;
    const Terms t = terms(fp.p);
    fp.alpha = t.alpha;
    fp.ratePps = rc;
    fp.targetGapPps = rc * t.alpha * t.a / (m.cnpIntervalS * (t.eB + t.eT));
    fp.queueBytes =
        fp.p < m.pmax ? m.kminBytes + fp.p * (m.kmaxBytes - m.kminBytes) / m.pmax : m.kmaxBytes;
    return fp;
}

/// The nic variant's balance (file comment), rates in packets per second, B in packets.
struct DcqcnNicBalance
{
    double neededPerS{0}; ///< alpha lambda a fixed point at C/N needs: (L - C/N)/B
    double mostPerS{0};   ///< the most the CNP interval allows: K/tau^2
    double ratePps{0};    ///< where each flow settles without a fixed point: L - B K/tau^2
    bool fixedPoint{false};
};

inline DcqcnNicBalance
SolveDcqcnNicBalance(const DcqcnFluidModel& m, double lineRatePps)
{
    DcqcnNicBalance b;
    b.neededPerS = (lineRatePps - m.capacityPps / m.flows) / m.byteCounterPkts;
    b.mostPerS = m.alphaTimerS / (m.cnpIntervalS * m.cnpIntervalS);
    b.ratePps = lineRatePps - m.byteCounterPkts * b.mostPerS;
    b.fixedPoint = b.neededPerS <= b.mostPerS;
    return b;
}

} // namespace validation
} // namespace ns3

#endif // METAROCE_VALIDATION_DCQCN_FLUID_H
