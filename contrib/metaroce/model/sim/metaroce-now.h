/*
 * The simulator's current time for the module's per-packet paths: Simulator::Now() asks the
 * simulator's implementation the same thing, but reaches it through Simulator's static lookup
 * each time (about 50 instructions; 1.5 million calls, 5% of the instructions of a 128-host
 * all-to-all, doc/performance.md "The fast path"). MetaRoceNow() keeps a pointer
 * to the implementation, which cannot change until Simulator::Destroy(): a destroy event
 * forgets it, and the next call looks it up again. Same value, any implementation
 * (default, distributed, real time).
 */
#ifndef METAROCE_NOW_H
#define METAROCE_NOW_H

#include "ns3/nstime.h"
#include "ns3/simulator-impl.h"

namespace ns3
{

namespace metaroce_now
{
/// The simulator's implementation while known, else null (see MetaRoceNow).
extern SimulatorImpl* g_impl;
/// Looks the implementation up, keeps it in g_impl until Simulator::Destroy(), returns it.
SimulatorImpl* Remember();
} // namespace metaroce_now

/**
 * \ingroup metaroce
 * The current simulation time, as Simulator::Now().
 */
inline Time
MetaRoceNow()
{
    SimulatorImpl* impl = metaroce_now::g_impl;
    return (impl != nullptr ? impl : metaroce_now::Remember())->Now();
}

} // namespace ns3

#endif /* METAROCE_NOW_H */
