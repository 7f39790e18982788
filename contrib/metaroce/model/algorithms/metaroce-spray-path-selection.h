/*
 * The spraying path selectors (spec 4.2) as ns-3 objects, neither with parameters: entropy
 * recycling (metaroce::RecyclingPathSelector), the NIC's default "PathSelection", and plain
 * round-robin (metaroce::SprayPathSelector).
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

/**
 * \ingroup metaroce
 * \brief Chooses metaroce::RecyclingPathSelector: paths that came back clean first, one packet
 * per packet acknowledged without a mark, then round-robin over a port's paths.
 */
class MetaRoceRecyclePathSelection : public MetaRocePathSelection
{
  public:
    static TypeId GetTypeId();
    MetaRoceRecyclePathSelection();
    ~MetaRoceRecyclePathSelection() override;

    std::unique_ptr<metaroce::PathSelector> Create() const override;
};

} // namespace ns3

#endif // METAROCE_SPRAY_PATH_SELECTION_H
