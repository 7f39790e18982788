/*
 * How MetaRoceFabricHelper fails and restores a link at a simulated time.
 *
 * A failed link drops everything in both directions: each end gets a receive error model that
 * drops every packet (what is already on the wire when the link fails is lost too, as it would
 * be when a cable is cut). Both ends are also told that their port went down - the NIC
 * (MetaRoceNic::SetPortUp) and the switches (MetaRoceSwitch::SetPortUp, which withdraws the port
 * from the ECMP groups and flushes its queues) - because real hardware sees loss of signal at
 * once. Restoring removes the error models and brings the ports up again.
 */
#ifndef METAROCE_FABRIC_FAILURE_H
#define METAROCE_FABRIC_FAILURE_H

#include "metaroce-fabric-builder.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Link failures of a fabric (see the file comment).
 */
class MetaRoceFabricFailure
{
  public:
    /**
     * Fails `link` at `at` and, unless `until` is Time::Max(), restores it at `until`; aborts
     * if `until` is not after `at`.
     */
    static void Schedule(const MetaRoceFabricLink& link, Time at, Time until);

    /// Fails (up = false) or restores (up = true) `link` now, both ends (in a distributed run,
    /// the ends this rank simulates).
    static void SetLinkState(MetaRoceFabricLink link, bool up);
};

} // namespace ns3

#endif // METAROCE_FABRIC_FAILURE_H
