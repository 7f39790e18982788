#include "metaroce-job-placement.h"

#include "metaroce-options.h"
#include "metaroce-transports.h"

#include "ns3/random-variable-stream.h"

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

/// The entries of a per-job list option, one per job (empty: none given).
std::vector<std::string>
JobList(const MetaRoceExperimentConfig& c, const std::string& option, const std::string& text)
{
    if (text.empty())
    {
        return {};
    }
    const std::vector<std::string> items = SplitOptionList(option, text);
    Require(items.size() == c.jobs,
            option,
            std::to_string(items.size()) + " entries for " + std::to_string(c.jobs) +
                " jobs (one per job)");
    return items;
}

/// Each job's collective and size can run on its hosts over the run's channels.
void
ValidateJobWorkloads(const MetaRoceExperimentConfig& c)
{
    const std::vector<std::string> names = JobList(c, "jobWorkloads", c.jobWorkloads);
    const std::vector<std::string> sizes = JobList(c, "jobBytes", c.jobBytes);
    for (const std::string& size : sizes)
    {
        Require(size.find_first_not_of("0123456789") == std::string::npos && size.size() <= 10 &&
                    std::stoull(size) >= 1 && std::stoull(size) <= kMaxMessageBytes,
                "jobBytes",
                "'" + size + "' is not a size in bytes in [1, " + std::to_string(kMaxMessageBytes) +
                    "]");
    }
    const uint32_t channels = MetaRoceChannels(c.transport, c.channels, c.planes);
    for (uint32_t j = 0; j < c.jobs; ++j)
    {
        const std::string option = names.empty() ? "jobBytes" : "jobWorkloads";
        MetaRoceCollective collective{};
        try
        {
            collective = JobCollective(c, j);
            if (collective != MetaRoceCollective::ALL_TO_ALLV)
            {
                BuildPlan(collective,
                          c.hosts / c.jobs,
                          JobBytes(c, j) / channels,
                          c.treeChunkBytes);
            }
        }
        catch (const std::invalid_argument& e)
        {
            Require(false, option, "job " + std::to_string(j) + ": " + e.what());
        }
        Require(collective != MetaRoceCollective::ALL_TO_ALLV,
                "jobWorkloads",
                "job " + std::to_string(j) +
                    ": alltoallv's matrix spans every host (one job only)");
    }
}

} // namespace

MetaRoceCollective
JobCollective(const MetaRoceExperimentConfig& c, uint32_t job)
{
    if (c.jobWorkloads.empty())
    {
        return ParseCollective(c.workload);
    }
    return ParseCollective(SplitOptionList("jobWorkloads", c.jobWorkloads).at(job));
}

uint64_t
JobBytes(const MetaRoceExperimentConfig& c, uint32_t job)
{
    if (c.jobBytes.empty())
    {
        return c.messageBytes;
    }
    return std::stoull(SplitOptionList("jobBytes", c.jobBytes).at(job));
}

void
ValidateJobs(const MetaRoceExperimentConfig& c)
{
    Require(c.jobs >= 1, "jobs", "need at least 1 job, not 0");
    Require(c.placement == "packed" || c.placement == "spread" || c.placement == "random",
            "placement",
            "'" + c.placement + "' is not packed, spread or random");
    Require(c.soloJob >= -1 && c.soloJob < static_cast<int64_t>(c.jobs),
            "soloJob",
            std::to_string(c.soloJob) + " is not -1 (every job) or a job below " +
                std::to_string(c.jobs));
    if (c.jobs == 1)
    {
        return;
    }
    const std::string jobs = std::to_string(c.jobs) + " jobs";
    Require(c.hosts % c.jobs == 0 && c.hosts / c.jobs >= 2,
            "jobs",
            jobs + " do not split " + std::to_string(c.hosts) +
                " hosts into equal jobs of at least 2 hosts");
    Require(c.workload != "flows", "jobs", jobs + ": the flows workload has no jobs");
    Require(c.workload != "alltoallv",
            "jobs",
            jobs + ": alltoallv's matrix spans every host (one job only)");
    // Equal jobs of a power-of-two host count are powers of two too (allreduce-hd), and the
    // blocks of a job's ranks are larger than those of all the hosts (Validate checks those).
    Require(c.stragglers == 0, "stragglers", "stragglers are chosen among one job's ranks only");
    ValidateJobWorkloads(c);
}

std::vector<std::string>
UnusedJobOptions(const MetaRoceExperimentConfig& c, const MetaRoceExperimentConfig& d)
{
    std::vector<std::string> unused;
    if (c.jobs <= 1 && c.placement != d.placement)
    {
        unused.push_back("--placement=" + c.placement + " has no effect without --jobs above 1");
    }
    if (c.jobs <= 1 && c.soloJob != d.soloJob)
    {
        unused.push_back("--soloJob=" + std::to_string(c.soloJob) +
                         " has no effect without --jobs above 1");
    }
    if (c.jobs <= 1 && c.jobWorkloads != d.jobWorkloads)
    {
        unused.push_back("--jobWorkloads=" + c.jobWorkloads +
                         " has no effect without --jobs above 1");
    }
    if (c.jobs <= 1 && c.jobBytes != d.jobBytes)
    {
        unused.push_back("--jobBytes=" + c.jobBytes + " has no effect without --jobs above 1");
    }
    return unused;
}

std::vector<std::vector<uint32_t>>
PlaceJobs(const MetaRoceExperimentConfig& c, int64_t stream)
{
    std::vector<uint32_t> order(c.hosts);
    std::iota(order.begin(), order.end(), 0);
    if (c.placement == "random")
    {
        Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();
        uniform->SetStream(stream);
        for (uint32_t i = c.hosts; i > 1; --i)
        {
            const auto j = std::min<uint32_t>(i - 1, uint32_t(uniform->GetValue() * i));
            std::swap(order[i - 1], order[j]);
        }
    }
    const uint32_t size = c.hosts / c.jobs;
    std::vector<std::vector<uint32_t>> jobs(c.jobs);
    for (uint32_t i = 0; i < c.hosts; ++i)
    {
        if (c.placement == "spread")
        {
            jobs[i % c.jobs].push_back(order[i]);
        }
        else
        {
            jobs[i / size].push_back(order[i]);
        }
    }
    return jobs;
}

} // namespace ns3
