/*
 * ECN-driven AIMD (spec 9.2), the default MetaRoCE congestion control, as an ns-3 object: its
 * attributes are the rows of metaroce::AimdConfigFields() (AdditiveIncrease, FlowDecrease,
 * ConnectionDecrease), with the engine's defaults.
 */
#ifndef METAROCE_AIMD_H
#define METAROCE_AIMD_H

#include "metaroce-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Chooses metaroce::AimdCongestionControl; the NIC's default "CongestionControl".
 */
class MetaRoceAimd : public MetaRoceCongestionOps
{
  public:
    static TypeId GetTypeId();
    MetaRoceAimd();
    ~MetaRoceAimd() override;

    std::unique_ptr<metaroce::CongestionControl> Create() const override;

    /// The parameters the attributes hold.
    const metaroce::AimdConfig& GetConfig() const;

  private:
    metaroce::AimdConfig m_config;
};

} // namespace ns3

#endif // METAROCE_AIMD_H
