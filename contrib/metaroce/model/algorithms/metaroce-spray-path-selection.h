/*
 * Round-robin spraying (spec 4.2, metaroce::SprayPathSelector) as an ns-3 object: the NIC's
 * default "PathSelection". It has no parameters.
 */
#ifndef METAROCE_SPRAY_PATH_SELECTION_H
#define METAROCE_SPRAY_PATH_SELECTION_H

#include "metaroce-path-selection.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Chooses metaroce::SprayPathSelector: round-robin over a port's paths, clear ones first.
 */
class MetaRoceSprayPathSelection : public MetaRocePathSelection
{
  public:
    static TypeId GetTypeId();
    MetaRoceSprayPathSelection();
    ~MetaRoceSprayPathSelection() override;

    std::unique_ptr<metaroce::PathSelector> Create() const override;
};

} // namespace ns3

#endif // METAROCE_SPRAY_PATH_SELECTION_H
