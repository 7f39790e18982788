#include "metaroce-workload-inputs.h"

#include "metaroce-options.h"
#include "metaroce-training-schedule.h"
#include "metaroce-transports.h"

#include "ns3/double.h"
#include "ns3/metaroce-collective-schedule.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ns3
{

namespace
{

void
Require(bool ok, const std::string& option, const std::string& message)
{
    if (!ok)
    {
        throw std::invalid_argument("--" + option + ": " + message);
    }
}

/// The largest message the transport carries (its length field: spec 5.2, 10.2).
uint64_t
MaxMessage(const MetaRoceExperimentConfig& c)
{
    return c.transport == "metaroce" ? kMaxMessageBytes : 2147483648ULL;
}

void
ValidateSkew(const MetaRoceExperimentConfig& c)
{
    ParseZipfSkew(c.skew);
    const uint32_t experts = c.experts == 0 ? c.hosts : c.experts;
    Require(experts <= 65536,
            "experts",
            std::to_string(c.experts) + " experts: at most 65536 (the router draws among all)");
    Require(c.topK >= 1 && c.topK <= experts,
            "topK",
            std::to_string(c.topK) + " is not a number of experts in [1, " +
                std::to_string(experts) + "] (--experts, 0: one per host)");
    Require(c.tokenBytes >= 1, "tokenBytes", "a token needs at least 1 byte, not 0");
    const uint64_t perToken = uint64_t(c.topK) * c.tokenBytes;
    Require(c.tokenBytes <= c.messageBytes && c.messageBytes / perToken >= 1,
            "messageBytes",
            std::to_string(c.messageBytes) + " bytes hold no token: a token goes to " +
                std::to_string(c.topK) + " experts (--topK) with " + std::to_string(c.tokenBytes) +
                " bytes each (--tokenBytes)");
    Require(c.messageBytes / perToken <= kMaxTokensPerRank,
            "messageBytes",
            std::to_string(c.messageBytes / perToken) +
                " tokens per rank (messageBytes / (topK x "
                "tokenBytes)): at most " +
                std::to_string(kMaxTokensPerRank));
}

void
ValidateAllToAllV(const MetaRoceExperimentConfig& c)
{
    Require(c.trafficMatrix.empty() || c.skew.empty(),
            "skew",
            "give --trafficMatrix or --skew, not both");
    Require(!c.trafficMatrix.empty() || !c.skew.empty(),
            "workload",
            "alltoallv needs --trafficMatrix=FILE or --skew=zipf:S");
    if (!c.trafficMatrix.empty())
    {
        ReadTrafficMatrix(c.trafficMatrix, c.hosts, MaxMessage(c));
        return;
    }
    ValidateSkew(c);
}

} // namespace

MetaRoceMoeRouting
MoeRoutingOf(const MetaRoceExperimentConfig& c)
{
    MetaRoceMoeRouting routing;
    routing.zipfExponent = ParseZipfSkew(c.skew);
    routing.experts = c.experts == 0 ? c.hosts : c.experts;
    routing.topK = c.topK;
    routing.tokenBytes = c.tokenBytes;
    routing.tokensPerRank = c.messageBytes / (uint64_t(c.topK) * c.tokenBytes);
    return routing;
}

void
ValidateWorkloadInputs(const MetaRoceExperimentConfig& c)
{
    Require(c.workload != "schedule" || !c.schedule.empty(),
            "workload",
            "schedule needs --schedule=FILE (doc/schedules.md)");
    if (c.workload == "schedule")
    {
        Require(c.jobs <= 1 && c.stragglers == 0,
                "schedule",
                "a schedule has its own groups: no --jobs or --stragglers with it");
        try
        {
            CheckTrainingSchedule(ReadTrainingSchedule(c.schedule, c.hosts),
                                  MetaRoceChannels(c.transport, c.channels, c.planes),
                                  c.treeChunkBytes);
        }
        catch (const std::invalid_argument& e)
        {
            Require(false, "schedule", e.what());
        }
    }
    if (c.workload == "alltoallv")
    {
        ValidateAllToAllV(c);
    }
    if (c.workload == "allreduce-tree")
    {
        Require(c.treeChunkBytes >= 1, "treeChunkBytes", "a chunk needs at least 1 byte, not 0");
        const uint32_t used = MetaRoceChannels(c.transport, c.channels, c.planes);
        Require(c.messageBytes / used >= 2,
                "messageBytes",
                std::to_string(c.messageBytes) + " bytes over " + std::to_string(used) +
                    " channels leave less than a byte for each of allreduce-tree's two trees");
        const uint64_t half = c.messageBytes / used / 2 + 1;
        Require((half + c.treeChunkBytes - 1) / c.treeChunkBytes <= kMaxTreeChunks,
                "treeChunkBytes",
                std::to_string(c.treeChunkBytes) + " cuts each tree's " + std::to_string(half) +
                    " bytes per channel into more than " + std::to_string(kMaxTreeChunks) +
                    " chunks");
    }
    Require(c.stragglers <= c.hosts,
            "stragglers",
            std::to_string(c.stragglers) + " of " + std::to_string(c.hosts) +
                " ranks cannot start late");
    Require(c.stragglers == 0 || c.workload != "flows",
            "stragglers",
            "the flows workload has no ranks (a collective's ranks start late)");
    const Time delay = ParseTimeOption("stragglerDelay", c.stragglerDelay);
    Require(c.stragglers == 0 || delay.IsStrictlyPositive(),
            "stragglerDelay",
            "'" + c.stragglerDelay + "' makes no rank late (give a positive time)");
}

std::vector<std::string>
UnusedWorkloadInputs(const MetaRoceExperimentConfig& c, const MetaRoceExperimentConfig& d)
{
    std::vector<std::string> unused;
    const auto check = [&unused](bool given, bool used, const std::string& text) {
        if (given && !used)
        {
            unused.push_back(text);
        }
    };
    const bool v = c.workload == "alltoallv";
    const std::string noV = " has no effect without --workload=alltoallv (or --workloads)";
    check(c.trafficMatrix != d.trafficMatrix, v, "--trafficMatrix=" + c.trafficMatrix + noV);
    check(c.skew != d.skew, v, "--skew=" + c.skew + noV);
    const bool skew = v && !c.skew.empty();
    const std::string noSkew = " has no effect without --skew (the router's parameter)";
    check(c.experts != d.experts, skew, "--experts=" + std::to_string(c.experts) + noSkew);
    check(c.topK != d.topK, skew, "--topK=" + std::to_string(c.topK) + noSkew);
    check(c.tokenBytes != d.tokenBytes,
          skew,
          "--tokenBytes=" + std::to_string(c.tokenBytes) + noSkew);
    check(c.messageBytes != d.messageBytes,
          !(v && !c.trafficMatrix.empty()),
          "--messageBytes=" + std::to_string(c.messageBytes) +
              " has no effect with --trafficMatrix (the file gives every byte count)");
    check(c.treeChunkBytes != d.treeChunkBytes,
          c.workload == "allreduce-tree",
          "--treeChunkBytes=" + std::to_string(c.treeChunkBytes) +
              " has no effect without --workload=allreduce-tree");
    check(!c.schedule.empty(),
          c.workload == "schedule",
          "--schedule=" + c.schedule + " has no effect without --workload=schedule");
    check(c.stragglerDelay != d.stragglerDelay,
          c.stragglers > 0,
          "--stragglerDelay=" + c.stragglerDelay + " has no effect without --stragglers");
    return unused;
}

MetaRoceTrafficMatrix
MakeTrafficMatrix(const MetaRoceExperimentConfig& c, int64_t stream)
{
    if (!c.trafficMatrix.empty())
    {
        return ReadTrafficMatrix(c.trafficMatrix, c.hosts, MaxMessage(c));
    }
    Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();
    uniform->SetStream(stream);
    return ZipfTrafficMatrix(c.hosts, MoeRoutingOf(c), uniform);
}

std::vector<uint32_t>
ChooseStragglers(const MetaRoceExperimentConfig& c, int64_t stream)
{
    std::vector<uint32_t> ranks(c.hosts);
    std::iota(ranks.begin(), ranks.end(), 0);
    Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();
    uniform->SetStream(stream);
    // The first `stragglers` places of a Fisher-Yates shuffle.
    for (uint32_t i = 0; i < c.stragglers; ++i)
    {
        const uint32_t span = c.hosts - i;
        const auto j = i + std::min<uint32_t>(span - 1, uint32_t(uniform->GetValue() * span));
        std::swap(ranks[i], ranks[j]);
    }
    ranks.resize(c.stragglers);
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

} // namespace ns3
