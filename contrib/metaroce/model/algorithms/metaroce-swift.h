/*
 * Swift-style delay-based congestion control (spec 9.6) as an ns-3 object: its
 * attributes are the rows of metaroce::SwiftConfigFields() (TargetDelay, AdditiveIncrease,
 * Beta, ConnectionBeta, MaxDecrease). Select it with the NIC attribute
 * CongestionControl=ns3::MetaRoceSwift, or with parameters
 * "ns3::MetaRoceSwift[TargetDelay=15us|MaxDecrease=0.3]".
 */
#ifndef METAROCE_SWIFT_H
#define METAROCE_SWIFT_H

#include "metaroce-congestion-ops.h"

#include "ns3/swift-congestion-control.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Chooses metaroce::SwiftCongestionControl.
 */
class MetaRoceSwift : public MetaRoceCongestionOps
{
  public:
    static TypeId GetTypeId();
    MetaRoceSwift();
    ~MetaRoceSwift() override;

    std::unique_ptr<metaroce::CongestionControl> Create() const override;

    /// The parameters the attributes hold.
    const metaroce::SwiftConfig& GetConfig() const;

  private:
    metaroce::SwiftConfig m_config;
};

} // namespace ns3

#endif // METAROCE_SWIFT_H
