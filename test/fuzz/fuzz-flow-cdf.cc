// Fuzz target: the flow-size CDF reader (ParseFlowSizeCdf, what ReadFlowSizeCdf() reads a
// --cdfFile with) on arbitrary text. A bad file is refused with std::invalid_argument; an
// accepted one has non-decreasing points within the documented bounds, ends at probability 1,
// and a finite mean within its size range (the flow generator divides by it).
#include "fuzz-input.h"
#include "metaroce-flow-size-cdf.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

using namespace ns3;
using metaroce_fuzz::Check;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    MetaRoceFlowSizeCdf cdf;
    try
    {
        cdf = ParseFlowSizeCdf(in, "fuzz.cdf");
    }
    catch (const std::invalid_argument&)
    {
        return 0;
    }
    Check(!cdf.points.empty() && cdf.points.back().second == 1.0, "accepted CDF not ending at 1");
    double lastBytes = 0;
    double lastProb = 0;
    for (const auto& [bytes, prob] : cdf.points)
    {
        Check(bytes >= 1 && bytes <= kMetaRoceMaxFlowBytes, "size out of bounds");
        Check(prob >= 0 && prob <= 1, "probability out of bounds");
        Check(bytes >= lastBytes && prob >= lastProb, "points decreasing");
        lastBytes = bytes;
        lastProb = prob;
    }
    Check(std::isfinite(cdf.meanBytes) && cdf.meanBytes >= 1 &&
              cdf.meanBytes <= kMetaRoceMaxFlowBytes,
          "mean not finite or outside [1, max size]");
    return 0;
}
