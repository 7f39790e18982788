/*
 * DCQCN, RoCEv2's rate control (spec 8.5), as an ns-3 object: the NIC's "RoceRateControl"
 * attribute (an ObjectFactory, default "ns3::MetaRoceDcqcn"; "ns3::MetaRoceDcqcn[Enabled=false]"
 * for RoCEv2 without rate control) chooses it, and its attributes,
 * the rows of metaroce::DcqcnConfigFields() (Enabled, G, InitialAlpha, AlphaTimer, RateTimer,
 * ByteCounter, FastRecoverySteps, AdditiveIncrease, HyperIncrease, MinRate, CnpInterval),
 * configure every RoCEv2 queue pair the NIC creates. The state machines stay in the engine
 * (metaroce::DcqcnReactionPoint and DcqcnNotificationPoint, used by the queue pair).
 */
#ifndef METAROCE_DCQCN_H
#define METAROCE_DCQCN_H

#include "ns3/dcqcn.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief DCQCN parameters of a NIC's RoCEv2 queue pairs ("Enabled" false: line rate, no CNP).
 */
class MetaRoceDcqcn : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceDcqcn();
    ~MetaRoceDcqcn() override;

    /// The parameters the attributes hold, as the queue pairs take them.
    const metaroce::DcqcnConfig& GetConfig() const;

  private:
    metaroce::DcqcnConfig m_config;
};

} // namespace ns3

#endif // METAROCE_DCQCN_H
