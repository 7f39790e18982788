/*
 * DCQCN, RoCEv2's rate control (spec 10.5), as an ns-3 object: the NIC's "RoceRateControl"
 * attribute (an ObjectFactory, default "ns3::MetaRoceDcqcn"; "ns3::MetaRoceDcqcn[Enabled=false]"
 * for RoCEv2 without rate control, "ns3::MetaRoceDcqcn[Variant=paper]" for the DCQCN paper's
 * algorithm and parameters) chooses it, and its attributes - Variant (nic or paper) and the rows
 * of metaroce::DcqcnConfigFields() (Enabled, G, InitialAlpha, AlphaTimer, RateDecreaseInterval,
 * RateTimer, ByteCounter, FastRecoverySteps, AdditiveIncrease, HyperIncrease, MinRate,
 * ClampTargetRate, CnpInterval; a 0 in a timer or step is the variant's default) - configure
 * every RoCEv2 queue pair the NIC creates. The state machines stay in the engine
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
    /// The Variant attribute (a metaroce::DcqcnVariant).
    void SetVariant(int variant);
    int GetVariant() const;

    metaroce::DcqcnConfig m_config;
};

} // namespace ns3

#endif // METAROCE_DCQCN_H
