/*
 * MetaRoceRunEnd: ends an experiment at the first tick (every microsecond) at which the
 * workload is done and the fabric is quiet - nothing on a wire, nothing in a switch buffer, no
 * engine, PFC or failure event due in that instant - and nothing has happened yet in that
 * instant. (Timers
 * armed for later, such as an idle connection's, never fire: the run ends first.)
 *
 * Why not stop at the last completion, as before: other nodes may have events in that same
 * nanosecond, and which of them run before the stop depends on the scheduler's tie order (and,
 * in a distributed run, on the ranks), so the final counters would too. At a quiet tick no node
 * has anything left to do in that instant, so the end state is the same whatever the order;
 * the run also ends with its books balanced (every packet sent was delivered or dropped).
 * summary.sim_end_us is that tick; the collective's and the flows' times are unaffected.
 */
#ifndef METAROCE_RUN_END_H
#define METAROCE_RUN_END_H

#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-switch.h"
#include "ns3/nstime.h"

#include <functional>
#include <vector>

namespace ns3
{

class MetaRoceFabricHelper;

/**
 * \ingroup metaroce
 * \brief Stops the simulator at the first quiet tick after the workload is done.
 */
class MetaRoceRunEnd
{
  public:
    /// Watches fabric's nodes (the fabric must outlive it); done() tells whether the workload
    /// has finished.
    MetaRoceRunEnd(const MetaRoceFabricHelper& fabric, std::function<bool()> done);

    /// Schedules the checks, every tick from now on.
    void Start(Time tick = MicroSeconds(1));

  private:
    void Check();
    bool IsQuiet() const;

    std::vector<Ptr<MetaRoceArrivals>> m_arrivals;
    std::vector<Ptr<MetaRoceSwitch>> m_switches;
    std::vector<Ptr<MetaRoceNic>> m_nics;
    const MetaRoceFabricHelper& m_fabric;
    std::function<bool()> m_done;
    Time m_tick;
};

} // namespace ns3

#endif /* METAROCE_RUN_END_H */
