#include "metaroce-memory-estimate.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace ns3
{

namespace
{

std::string
GiB(double bytes)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(bytes < 10 * 1073741824.0 ? 1 : 0) << bytes / 1073741824.0
       << " GiB";
    return os.str();
}

/// A count as digits (counts may exceed 2^64 in a refused configuration: then in e notation).
std::string
Count(double n)
{
    std::ostringstream os;
    if (n < 1e18)
    {
        os << static_cast<uint64_t>(n);
    }
    else
    {
        os << std::setprecision(3) << n;
    }
    return os.str();
}

} // namespace

double
MetaRoceMemoryEstimate::Bytes() const
{
    return kBaseBytes + hostPorts * kHostPortBytes + queuePairs * kQueuePairBytes +
           streams * kStreamBytes + receives * kReceiveBytes + messages * kMessageBytes +
           packets * kPacketBytes;
}

std::string
MetaRoceMemoryEstimate::Describe() const
{
    std::ostringstream os;
    os << "about " << GiB(Bytes());
    const char* separator = ": ";
    for (const auto& [count, what] : {std::make_pair(queuePairs, " queue pairs"),
                                      std::make_pair(streams, " extra streams"),
                                      std::make_pair(receives, " receives posted up front"),
                                      std::make_pair(messages, " messages"),
                                      std::make_pair(packets, " packets tracked"),
                                      std::make_pair(hostPorts, " host ports")})
    {
        if (count >= 1)
        {
            os << separator << Count(count) << what;
            separator = ", ";
        }
    }
    return os.str();
}

double
MetaRoceMemoryEstimate::AvailableBytes()
{
    double bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    std::ifstream cgroup("/sys/fs/cgroup/memory.max");
    double limit = 0;
    if (cgroup >> limit && limit > 0) // "max" (no limit) does not read as a number
    {
        bytes = std::min(bytes, limit);
    }
    if (const char* text = std::getenv("METAROCE_MEMORY_LIMIT"))
    {
        const double given = std::strtod(text, nullptr);
        bytes = given > 0 ? std::min(bytes, given) : bytes;
    }
    return bytes;
}

void
MetaRoceMemoryEstimate::Check(const std::string& what) const
{
    const double available = AvailableBytes();
    if (Bytes() > available)
    {
        throw std::invalid_argument(what + " needs " + Describe() + ", more than the " +
                                    GiB(available) + " of memory this machine has");
    }
}

} // namespace ns3
