/*
 * What a NIC's connections learn together about late packets: when one last proved a loss
 * (spec 4.6, "Floor from the loss evidence"; A47), found one spurious (A49), and how long the
 * fabric's round trips take now (4.5, A57).
 *
 * The time rule cannot tell a packet deep in a first-round queue from a lost one: only its
 * reorder floor separates them, and a wide floor finds every loss later while a narrow one
 * copies late packets on a fabric that loses nothing (doc/results.md at 939551b, sections 12 and
 * 17). Which mistake costs more is a property of the fabric, not of one connection: a connection of
 * a collective carries a few packets and proves a loss of its own too late to choose. So the
 * connections of a NIC share one record of the last loss any of them proved by rule 1 (a later
 * packet of the same route acknowledged: the fabric drops packets), and each judges with the
 * narrow floor while that proof is recent and with the wide one otherwise.
 *
 * The record also keeps the last loss a connection of the NIC declared by the time rule and
 * then found spurious (the packet had arrived). With no proof recent, that says the fabric
 * queues some routes deeper than the measured window allows, as an oversubscribed fabric's
 * standing queues do, so the connections widen the time rule's window to a multiple of the
 * smoothed RTT (spec 4.6, A49). A recent proof outranks it: where the fabric drops packets, a
 * wider window finds every loss later.
 *
 * Last, the record keeps one RTT estimate from every ACK of every connection of the NIC. A
 * connection of a wide collective hears from its peer once in hundreds of microseconds, so its
 * own estimate lags a queue that grows meanwhile; the NIC hears an ACK every few hundred
 * nanoseconds and follows the fabric's queues as they move. Where it is the longer and no loss
 * was proven lately, a connection may judge late packets by it: the time rule's window, the
 * tail-loss probe's wait and the RTO's floor (judgeByNicRtt; spec 4.5, 4.6, A57). The same
 * estimate times the rounds of the NIC's injection rate, which it holds for the NIC's ports
 * (nicInjectionControl; injection-rate.h, spec 9.7, A58).
 */
#ifndef METAROCE_ENGINE_LOSS_EVIDENCE_H
#define METAROCE_ENGINE_LOSS_EVIDENCE_H

#include "../common/engine-types.h"
#include "injection-rate.h"
#include "metaroce-flow.h"

namespace metaroce
{

/// A NIC's last proven and spurious losses and its RTT, shared by its connections (see the file
/// comment).
class LossEvidence
{
  public:
    /// An RTT sample of any connection of the NIC.
    void SampleRtt(TimeNs rtt)
    {
        m_rtt.Sample(rtt);
    }

    /// The NIC's estimate from every connection's samples.
    const RttEstimator& Rtt() const
    {
        return m_rtt;
    }

    /// The NIC's DATA injection rate, from every connection's marks (9.7, A58).
    InjectionRate& Injection()
    {
        return m_injection;
    }

    const InjectionRate& Injection() const
    {
        return m_injection;
    }

    /// A loss was proven at `now`.
    void Record(TimeNs now)
    {
        m_lastProof = now;
    }

    /// A loss declared by the time rule was found spurious at `now`.
    void RecordSpurious(TimeNs now)
    {
        m_lastSpurious = now;
    }

    /// True when a loss was proven at most `memory` ns before `now` (and not after it).
    bool Recent(TimeNs now, TimeNs memory) const
    {
        return Within(m_lastProof, now, memory);
    }

    /// True when a spurious loss was found at most `memory` ns before `now` and no loss was
    /// proven in that time: late packets were queued, and nothing says the fabric drops any.
    bool OnlySpuriousRecent(TimeNs now, TimeNs memory) const
    {
        return Within(m_lastSpurious, now, memory) && !Recent(now, memory);
    }

  private:
    static bool Within(TimeNs at, TimeNs now, TimeNs memory)
    {
        return at != kNever && now >= at && now - at < memory;
    }

    TimeNs m_lastProof{kNever};
    TimeNs m_lastSpurious{kNever};
    RttEstimator m_rtt{0}; ///< every connection's samples
    InjectionRate m_injection;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_LOSS_EVIDENCE_H
