/*
 * What the claims tests share (metaroce-claims-test-suite.cc, metaroce-claims-fidelity.cc):
 * the fabrics of doc/results.md reduced in size, and a check on the runs' drops.
 */
#ifndef METAROCE_CLAIMS_FABRICS_H
#define METAROCE_CLAIMS_FABRICS_H

#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/test.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace claims
{

/// A non-blocking leaf-spine of `hosts` hosts, `hostsPerLeaf` per leaf, 4 spines per plane whose
/// uplinks carry `fabricRate` (4 x fabricRate >= hostsPerLeaf x 100 Gb/s).
inline MetaRoceExperimentConfig
LeafSpine(uint32_t hosts, uint32_t hostsPerLeaf, const std::string& fabricRate, uint32_t planes)
{
    MetaRoceExperimentConfig c;
    c.hosts = hosts;
    c.planes = planes;
    c.hostsPerLeaf = hostsPerLeaf;
    c.spines = 4;
    c.fabricRate = fabricRate;
    return c;
}

/// The 64-host fabric of doc/results.md: 4 leaves of 16 hosts, 4 spines with 400 Gb/s uplinks.
inline MetaRoceExperimentConfig
SixtyFourHosts(uint32_t planes)
{
    MetaRoceExperimentConfig c = LeafSpine(64, 16, "400Gbps", planes);
    c.stopTime = "3ms";
    return c;
}

/// True when no fabric switch dropped anything (the NICs' own refusals aside).
inline bool
NoFabricDrop(const MetaRoceExperimentResults& r)
{
    for (const auto& [reason, count] : r.drops)
    {
        if (reason.rfind("nic-", 0) != 0 && count > 0)
        {
            return false;
        }
    }
    return true;
}

/// The fidelity cases of issue 16 (metaroce-claims-fidelity.cc), each with its duration.
std::vector<std::pair<TestCase*, MetaRoceTestDuration>> FidelityTestCases();

} // namespace claims
} // namespace ns3

#endif // METAROCE_CLAIMS_FABRICS_H
