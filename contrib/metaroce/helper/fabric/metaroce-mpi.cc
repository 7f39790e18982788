#include "metaroce-mpi.h"

#include "ns3/global-value.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <cstdlib>
#include <stdexcept>

#ifdef NS3_MPI
#    include "ns3/metaroce-remote-channel.h"
#    include "ns3/mpi-interface.h"

#    include <mpi.h>
#endif

namespace ns3
{

bool
MetaRoceMpi::IsAvailable()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

uint32_t
MetaRoceMpi::LaunchedProcesses()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        if (const char* value = std::getenv(name))
        {
            return static_cast<uint32_t>(std::strtoul(value, nullptr, 10));
        }
    }
    return 1;
}

void
MetaRoceMpi::Enable(int* argc, char*** argv, const std::string& sync)
{
    if (sync != "granted" && sync != "null")
    {
        throw std::invalid_argument("--sync: '" + sync +
                                    "' is not a synchronisation algorithm (granted or null)");
    }
#ifdef NS3_MPI
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "granted" ? "ns3::DistributedSimulatorImpl"
                                                    : "ns3::NullMessageSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
#else
    throw std::invalid_argument(
        "distributed runs need ns-3's MPI module: this build has none (the standalone build "
        "against Debian's ns-3); build in an ns-3 tree configured with --enable-mpi "
        "(test/in-tree/run.sh)");
#endif
}

bool
MetaRoceMpi::IsEnabled()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled();
#else
    return false;
#endif
}

uint32_t
MetaRoceMpi::GetRank()
{
#ifdef NS3_MPI
    return IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

uint32_t
MetaRoceMpi::GetSize()
{
#ifdef NS3_MPI
    return IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

bool
MetaRoceMpi::IsLocal(const Node& node)
{
    return node.GetSystemId() == Simulator::GetSystemId();
}

namespace
{

#ifdef NS3_MPI
/// MPI_Allreduce of `values` with `op` over the ranks.
std::vector<uint64_t>
AllReduce(std::vector<uint64_t> values, MPI_Op op)
{
    if (MpiInterface::IsEnabled() && !values.empty())
    {
        std::vector<uint64_t> out(values.size());
        MPI_Allreduce(values.data(),
                      out.data(),
                      static_cast<int>(values.size()),
                      MPI_UINT64_T,
                      op,
                      MpiInterface::GetCommunicator());
        return out;
    }
    return values;
}
#endif

} // namespace

std::vector<uint64_t>
MetaRoceMpi::Sum(std::vector<uint64_t> values)
{
#ifdef NS3_MPI
    return AllReduce(std::move(values), MPI_SUM);
#else
    return values;
#endif
}

std::vector<uint64_t>
MetaRoceMpi::Max(std::vector<uint64_t> values)
{
#ifdef NS3_MPI
    return AllReduce(std::move(values), MPI_MAX);
#else
    return values;
#endif
}

std::vector<uint64_t>
MetaRoceMpi::Gather(std::vector<uint64_t> values)
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        const MPI_Comm comm = MpiInterface::GetCommunicator();
        const int size = static_cast<int>(GetSize());
        int count = static_cast<int>(values.size());
        std::vector<int> counts(size);
        MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
        std::vector<int> offsets(size, 0);
        for (int r = 1; r < size; ++r)
        {
            offsets[r] = offsets[r - 1] + counts[r - 1];
        }
        std::vector<uint64_t> out(offsets.back() + counts.back());
        MPI_Allgatherv(values.data(),
                       count,
                       MPI_UINT64_T,
                       out.data(),
                       counts.data(),
                       offsets.data(),
                       MPI_UINT64_T,
                       comm);
        return out;
    }
#endif
    return values;
}

uint64_t
MetaRoceMpi::GetRemoteSent()
{
#ifdef NS3_MPI
    return MetaRoceRemoteChannel::GetSent();
#else
    return 0;
#endif
}

uint64_t
MetaRoceMpi::GetRemoteReceived()
{
#ifdef NS3_MPI
    return MetaRoceRemoteChannel::GetReceived();
#else
    return 0;
#endif
}

void
MetaRoceMpi::Abort(int code)
{
#ifdef NS3_MPI
    if (IsEnabled())
    {
        MPI_Abort(MpiInterface::GetCommunicator(), code);
    }
#endif
    std::exit(code);
}

void
MetaRoceMpi::Disable()
{
#ifdef NS3_MPI
    if (IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
}

} // namespace ns3
