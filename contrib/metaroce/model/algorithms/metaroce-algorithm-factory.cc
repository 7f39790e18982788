#include "metaroce-algorithm-factory.h"

namespace ns3
{

std::string
AlgorithmFactoryProblem(const ObjectFactory& factory, TypeId base, const std::string& attribute)
{
    const TypeId tid = factory.GetTypeId();
    if (tid.GetUid() == 0)
    {
        return attribute + ": unknown type (expected a " + base.GetName() + ", e.g. " +
               "--PrintGroup=MetaRoce lists them)";
    }
    if (tid != base && !tid.IsChildOf(base))
    {
        return attribute + ": " + tid.GetName() + " is not a " + base.GetName();
    }
    if (!tid.HasConstructor())
    {
        return attribute + ": " + tid.GetName() + " is abstract; choose one of its subclasses";
    }
    return "";
}

} // namespace ns3
