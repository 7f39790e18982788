/*
 * The ns-3 face of a MetaRoCE path selector (spec 4.2), chosen by the NIC's "PathSelection"
 * attribute (an ObjectFactory) the way congestion control is (metaroce-congestion-ops.h): the
 * selection rule lives in the engine (metaroce::PathSelector); this object creates one per
 * connection with its attributes as parameters.
 */
#ifndef METAROCE_PATH_SELECTION_H
#define METAROCE_PATH_SELECTION_H

#include "ns3/object.h"
#include "ns3/path-selector.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Base of the MetaRoCE path selection objects: a factory of engine path selectors.
 */
class MetaRocePathSelection : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRocePathSelection();
    ~MetaRocePathSelection() override;

    /// A new engine path selector for one connection.
    virtual std::unique_ptr<metaroce::PathSelector> Create() const = 0;

    /// The policy's short name ("spray", ...): the engine selector's Name().
    virtual std::string GetName() const;
};

} // namespace ns3

#endif // METAROCE_PATH_SELECTION_H
