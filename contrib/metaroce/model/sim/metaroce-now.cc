#include "metaroce-now.h"

#include "ns3/simulator.h"

namespace ns3
{

namespace metaroce_now
{

SimulatorImpl* g_impl = nullptr;

namespace
{

void
Forget()
{
    g_impl = nullptr;
}

} // namespace

SimulatorImpl*
Remember()
{
    g_impl = PeekPointer(Simulator::GetImplementation());
    Simulator::ScheduleDestroy(&Forget);
    return g_impl;
}

} // namespace metaroce_now

} // namespace ns3
