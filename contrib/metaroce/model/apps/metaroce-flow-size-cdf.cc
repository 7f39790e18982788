#include "metaroce-flow-size-cdf.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

MetaRoceFlowSizeCdf
ParseFlowSizeCdf(std::istream& in, const std::string& name)
{
    MetaRoceFlowSizeCdf cdf;
    double lastBytes = 0;
    double lastProb = 0;
    uint32_t lineNo = 0;
    for (std::string line; std::getline(in, line);)
    {
        ++lineNo;
        line = line.substr(0, line.find('#'));
        std::istringstream ss(line);
        double bytes;
        double prob;
        if (!(ss >> bytes))
        {
            // Blank or comment only; text that is not a number is an error, not a comment.
            std::string word;
            std::istringstream again(line);
            if (again >> word)
            {
                throw std::invalid_argument("flow-size CDF " + name + " line " +
                                            std::to_string(lineNo) + ": '" + word +
                                            "' is not a size in bytes");
            }
            continue;
        }
        std::string rest;
        // The upper bound also refuses inf: a flow is one message of at most 2^32-1 bytes.
        if (!(ss >> prob) || (ss >> rest) || !(bytes >= 1 && bytes <= kMetaRoceMaxFlowBytes) ||
            !(prob >= 0 && prob <= 1) || bytes < lastBytes || prob < lastProb)
        {
            throw std::invalid_argument("flow-size CDF " + name + " line " +
                                        std::to_string(lineNo) +
                                        ": expected 'bytes probability' with bytes in "
                                        "[1, 4294967295], probability in [0, 1], both "
                                        "non-decreasing");
        }
        // Interpolation is linear between points: each segment contributes its midpoint.
        cdf.meanBytes += (prob - lastProb) * (cdf.points.empty() ? bytes : (bytes + lastBytes) / 2);
        cdf.points.emplace_back(bytes, prob);
        lastBytes = bytes;
        lastProb = prob;
    }
    if (cdf.points.empty() || lastProb != 1.0)
    {
        throw std::invalid_argument("flow-size CDF " + name +
                                    ": needs at least one point and must end at probability 1");
    }
    return cdf;
}

} // namespace ns3
