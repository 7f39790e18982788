/*
 * Round-robin spraying (spec 6.2, metaroce::SprayFlowSelector) as an ns-3 object: the NIC's
 * default "FlowSelection". It has no parameters.
 */
#ifndef METAROCE_SPRAY_FLOW_SELECTION_H
#define METAROCE_SPRAY_FLOW_SELECTION_H

#include "metaroce-flow-selection.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Chooses metaroce::SprayFlowSelector: round-robin over a port's flows, clear ones first.
 */
class MetaRoceSprayFlowSelection : public MetaRoceFlowSelection
{
  public:
    static TypeId GetTypeId();
    MetaRoceSprayFlowSelection();
    ~MetaRoceSprayFlowSelection() override;

    std::unique_ptr<metaroce::FlowSelector> Create() const override;
};

} // namespace ns3

#endif // METAROCE_SPRAY_FLOW_SELECTION_H
