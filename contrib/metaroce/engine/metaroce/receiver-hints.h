/*
 * What a receiving NIC advertises to every sender through its ACKs (spec 8.3, 8.5): its fair
 * share of the inbound line rate and the admission target of each sender, the same numbers for
 * all its connections. The NIC keeps one ReceiverHints and its connections read it as they
 * build an ACK: writing the numbers into every connection at each update visited all of them,
 * a cache miss or more each, every fair-share window (doc/performance.md).
 *
 * A connection takes a number only once it has been set after the connection was made; until
 * then it keeps its own (its default, or what SetFairShare/SetAdmissionTarget said), which is
 * what it had when the NIC wrote the numbers into the connections it had at each update.
 */
#ifndef METAROCE_ENGINE_RECEIVER_HINTS_H
#define METAROCE_ENGINE_RECEIVER_HINTS_H

#include <cstdint>
#include <optional>

namespace metaroce
{

/// A receiving NIC's numbers for all its senders (see the file comment).
class ReceiverHints
{
  public:
    /// The fair share advertised in every ACK from now on (bits/s).
    void SetFairShare(uint64_t bps)
    {
        m_fairShareBps = bps;
        ++m_fairShareSets;
    }

    /// Each sender's admission target from now on (bytes; 0: no admission).
    void SetAdmissionTarget(uint64_t bytes)
    {
        m_admissionTarget = bytes;
        ++m_admissionSets;
    }

  private:
    friend class ReceiverHintsView;
    uint64_t m_fairShareBps{0};
    uint64_t m_fairShareSets{0};
    uint64_t m_admissionTarget{0};
    uint64_t m_admissionSets{0};
};

/// One connection's view of its NIC's hints: what was set since the connection was made.
class ReceiverHintsView
{
  public:
    ReceiverHintsView() = default;

    /// A view of `hints` (null: none) from now on.
    explicit ReceiverHintsView(const ReceiverHints* hints)
        : m_hints(hints)
        , m_fairShareSeen(hints ? hints->m_fairShareSets : 0)
        , m_admissionSeen(hints ? hints->m_admissionSets : 0)
    {
    }

    /// The fair share, if the NIC set one since the view was made.
    std::optional<uint64_t> FairShare() const
    {
        if (m_hints == nullptr || m_hints->m_fairShareSets == m_fairShareSeen)
        {
            return std::nullopt;
        }
        return m_hints->m_fairShareBps;
    }

    /// The admission target, if the NIC set one since the view was made.
    std::optional<uint64_t> AdmissionTarget() const
    {
        if (m_hints == nullptr || m_hints->m_admissionSets == m_admissionSeen)
        {
            return std::nullopt;
        }
        return m_hints->m_admissionTarget;
    }

  private:
    const ReceiverHints* m_hints{nullptr};
    uint64_t m_fairShareSeen{0};
    uint64_t m_admissionSeen{0};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_RECEIVER_HINTS_H
