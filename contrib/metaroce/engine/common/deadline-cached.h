/*
 * A state machine together with its next deadline, computed at most once per change.
 *
 * A driver asks an engine for NextTimeout() after every event, and most events leave a part of
 * the engine alone (data arriving for the responder does not touch the requester). Scanning
 * that part again each time is wasted; remembering the answer is only safe while the state it
 * was computed from has not changed. DeadlineCached makes that structural: the only mutable
 * access to the machine, Mutate(), drops the remembered deadline, so no mutator can forget to,
 * and NextTimeout() always equals a fresh Machine::NextTimeout().
 */
#ifndef METAROCE_ENGINE_DEADLINE_CACHED_H
#define METAROCE_ENGINE_DEADLINE_CACHED_H

#include "engine-types.h"

#include <utility>

namespace metaroce
{

/// `Machine` needs `TimeNs NextTimeout() const`.
template<typename Machine>
class DeadlineCached
{
  public:
    template<typename... Args>
    explicit DeadlineCached(Args&&... args)
        : m_machine(std::forward<Args>(args)...)
    {
    }

    /// Read-only access: keeps the remembered deadline.
    const Machine& Get() const
    {
        return m_machine;
    }

    /// Access for a call that may change the machine: forgets the remembered deadline.
    Machine& Mutate()
    {
        m_known = false;
        return m_machine;
    }

    /// The machine's NextTimeout(), scanned only when the machine may have changed.
    TimeNs NextTimeout() const
    {
        if (!m_known)
        {
            m_deadline = m_machine.NextTimeout();
            m_known = true;
        }
        return m_deadline;
    }

  private:
    Machine m_machine;
    mutable TimeNs m_deadline{kNever};
    mutable bool m_known{false};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_DEADLINE_CACHED_H
