/*
 * The ns-3 face of a MetaRoCE flow selector (spec 6.2), chosen by the NIC's "FlowSelection"
 * attribute (an ObjectFactory) the way congestion control is (metaroce-congestion-ops.h): the
 * selection rule lives in the engine (metaroce::FlowSelector); this object creates one per
 * connection with its attributes as parameters.
 */
#ifndef METAROCE_FLOW_SELECTION_H
#define METAROCE_FLOW_SELECTION_H

#include "ns3/flow-selector.h"
#include "ns3/object.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Base of the MetaRoCE flow selection objects: a factory of engine flow selectors.
 */
class MetaRoceFlowSelection : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceFlowSelection();
    ~MetaRoceFlowSelection() override;

    /// A new engine flow selector for one connection.
    virtual std::unique_ptr<metaroce::FlowSelector> Create() const = 0;

    /// The policy's short name ("spray", ...): the engine selector's Name().
    virtual std::string GetName() const;
};

} // namespace ns3

#endif // METAROCE_FLOW_SELECTION_H
