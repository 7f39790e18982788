/*
 * The ns-3 face of a MetaRoCE congestion control (spec 9.5), in the manner of ns-3's
 * TcpCongestionOps: an Object, chosen by the NIC's "CongestionControl" attribute (an
 * ObjectFactory such as "ns3::MetaRoceSwift[TargetDelay=12us]"), whose attributes are the
 * algorithm's parameters. The algorithm itself lives in the engine (a metaroce::CongestionControl,
 * no ns-3 in it); this object only adapts: the NIC creates one per NIC and asks it for a fresh
 * engine algorithm per connection.
 */
#ifndef METAROCE_CONGESTION_OPS_H
#define METAROCE_CONGESTION_OPS_H

#include "ns3/congestion-control.h"
#include "ns3/object.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Base of the MetaRoCE congestion control objects: a factory of engine algorithms.
 *
 * To add an algorithm: write a metaroce::CongestionControl in the engine and a subclass of this
 * whose Create() returns it, configured from the subclass's attributes (see
 * examples/metaroce-custom-congestion.cc).
 */
class MetaRoceCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceCongestionOps();
    ~MetaRoceCongestionOps() override;

    /**
     * A new engine algorithm with this object's current parameters, for one connection.
     * Throws std::invalid_argument naming a bad parameter (the NIC turns it into a fatal error).
     */
    virtual std::unique_ptr<metaroce::CongestionControl> Create() const = 0;

    /// The algorithm's short name ("aimd", "swift", ...): the engine algorithm's Name().
    virtual std::string GetName() const;
};

} // namespace ns3

#endif // METAROCE_CONGESTION_OPS_H
