/*
 * ECN marking of a MetaRoceSwitch, chosen by its "EcnMarker" attribute (an ObjectFactory, default
 * "ns3::MetaRoceRedEcnMarker") in the manner of ns-3's QueueDisc: the switch asks its marker
 * whether an ECN-capable DATA packet entering an egress DATA queue is marked CE. The switch keeps
 * the rest (only ECT DATA packets are offered, "EcnEnabled" off offers none, the CE rewrite, the
 * EcnMark trace and counters).
 *
 * Random draws come from the switch's own UniformRandomVariable, handed over with
 * SetRandomVariable(): MetaRoceSwitch::AssignStreams keeps covering the marking stream, and a
 * marker creates no random variable of its own (which would shift every automatically numbered
 * stream created after it).
 */
#ifndef METAROCE_ECN_MARKER_H
#define METAROCE_ECN_MARKER_H

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Base of the switch's ECN marking policies.
 */
class MetaRoceEcnMarker : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceEcnMarker();
    ~MetaRoceEcnMarker() override;

    /// True when a DATA packet entering a DATA queue that holds `qBytes` is to be marked CE.
    virtual bool ShouldMark(uint64_t qBytes) = 0;

    /// Why the parameters cannot work (naming the attributes and their values), or "" when
    /// they can. Subclasses with parameters override it.
    virtual std::string GetConfigProblem() const;

    /// Aborts with GetConfigProblem(), if any; the switch calls it when it starts (attributes
    /// may be set in any order before).
    void CheckConfig() const;

    /// The random variable the marker draws from (the switch's).
    void SetRandomVariable(Ptr<UniformRandomVariable> rng);

  protected:
    /// The random variable given by SetRandomVariable (aborts if none was).
    Ptr<UniformRandomVariable> GetRandomVariable() const;
    void DoDispose() override;

  private:
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif // METAROCE_ECN_MARKER_H
