// The fabric fault campaign (doc/reliability.md, "Fault campaign"): for each seed, a small
// ns-3 experiment (MetaRoceExperiment: NICs, switches, a multi-plane leaf-spine or fat-tree
// fabric) drawn at random, run, and checked:
//   - the run completed: every message arrived with its exact byte count (the NICs count the
//     bytes they place) and every posted message completed;
//   - the books balance: bytes delivered = the flows' bytes = the hosts' delivered bytes.
// Scenarios draw: transport (MetaRoCE, RoCEv2 with and without PFC or DCQCN), workload (ring
// and halving-doubling all-reduce, all-to-all, permutation, incast), loss 0-5% at every link
// end (RoCEv2: 0-0.5%), plane, spine and link failures with and without repair, 1-4 planes,
// sizes from 1 byte to 1 MiB per rank, 1-4 channels, and the seed itself.
//
//   metaroce-fabric-campaign --seeds=500 [--first=1] [--admission] [--verbose]
// --admission runs the same experiments with receiver admission (spec 8.5: AdmissionRtt 16 us, one
// packet unscheduled).
#include "ns3/metaroce-experiment.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

using namespace ns3;

namespace
{

MetaRoceExperimentConfig
Draw(uint64_t seed)
{
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 99);
    auto pick = [&rng](std::initializer_list<const char*> items) {
        return std::string(*(items.begin() + rng() % items.size()));
    };
    MetaRoceExperimentConfig c;
    c.seed = static_cast<uint32_t>(seed);
    c.hosts = 4 << (rng() % 2);
    c.planes = static_cast<uint32_t>(1 + rng() % 4);
    c.hostsPerLeaf = 2 << (rng() % 2);
    c.spines = static_cast<uint32_t>(1 + rng() % 2);
    c.transport = pick({"metaroce", "metaroce", "metaroce", "rocev2", "rocev2-pfc", "rocev2-nocc"});
    c.workload = pick({"allreduce-ring", "allreduce-hd", "alltoall", "permutation", "incast"});
    const bool metaroce = c.transport == "metaroce";
    const double maxLoss = metaroce ? 0.05 : 0.005;
    c.loss = rng() % 3 == 0 ? 0 : maxLoss * (rng() % 1000) / 1000.0;
    c.messageBytes = 1 + rng() % (rng() % 2 ? 4096 : (1 << 20));
    c.channels = static_cast<uint32_t>(rng() % 4);
    if (c.messageBytes < std::max(c.channels, c.planes) * 1ULL)
    {
        c.messageBytes = std::max(c.channels, c.planes);
    }
    if (rng() % 3 == 0)
    {
        c.failure = pick({"plane", "spine", "fabric-link", "host-link"});
        c.failurePlane = static_cast<uint32_t>(rng() % c.planes);
        c.failureIndex = 0;
        c.failureAt = std::to_string(1 + rng() % 50) + "us";
        if (rng() % 2)
        {
            c.failureUntil = std::to_string(60 + rng() % 200) + "us";
        }
        // A failure that is never repaired strands a single plane's traffic, and a RoCEv2
        // queue pair is bound to its plane: both must see the repair (MetaRoCE moves its
        // traffic to the other planes, which is what the unrepaired cases check).
        if ((c.planes == 1 || !metaroce) && c.failureUntil.empty())
        {
            c.failureUntil = std::to_string(60 + rng() % 100) + "us";
        }
    }
    c.stopTime = "2s";
    return c;
}

std::string
Describe(const MetaRoceExperimentConfig& c)
{
    return c.transport + " " + c.workload + " hosts=" + std::to_string(c.hosts) +
           " planes=" + std::to_string(c.planes) + " perLeaf=" + std::to_string(c.hostsPerLeaf) +
           " spines=" + std::to_string(c.spines) + " loss=" + std::to_string(c.loss) +
           " bytes=" + std::to_string(c.messageBytes) + " channels=" + std::to_string(c.channels) +
           " failure=" + c.failure + "@" + c.failureAt + ".." + c.failureUntil + " plane " +
           std::to_string(c.failurePlane);
}

std::string
Check(const MetaRoceExperimentResults& r)
{
    if (!r.complete || r.messagesCompleted != r.messages)
    {
        return "incomplete: " + std::to_string(r.messagesCompleted) + " of " +
               std::to_string(r.messages) + " messages";
    }
    uint64_t flows = 0;
    for (const auto& f : r.flows)
    {
        flows += f.bytes;
    }
    uint64_t hosts = 0;
    for (const auto& h : r.hosts)
    {
        hosts += h.deliveredBytes;
    }
    if (flows != r.bytesDelivered || hosts != r.bytesDelivered)
    {
        return "bytes: delivered " + std::to_string(r.bytesDelivered) + ", flows " +
               std::to_string(flows) + ", hosts " + std::to_string(hosts);
    }
    return {};
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t seeds = 20;
    uint64_t first = 1;
    bool verbose = false;
    bool admission = false;
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], "--seeds=", 8) == 0)
        {
            seeds = std::stoull(argv[i] + 8);
        }
        else if (std::strncmp(argv[i], "--first=", 8) == 0)
        {
            first = std::stoull(argv[i] + 8);
        }
        else if (std::strcmp(argv[i], "--verbose") == 0)
        {
            verbose = true;
        }
        else if (std::strcmp(argv[i], "--admission") == 0)
        {
            admission = true;
        }
        else
        {
            std::fprintf(stderr,
                         "usage: %s [--seeds=N] [--first=S] [--admission] [--verbose]\n",
                         argv[0]);
            return 2;
        }
    }
    uint64_t failed = 0;
    uint64_t messages = 0;
    uint64_t bytes = 0;
    uint64_t retransmitted = 0;
    for (uint64_t seed = first; seed < first + seeds; ++seed)
    {
        MetaRoceExperimentConfig c = Draw(seed);
        if (admission)
        {
            c.nicAttributes = "AdmissionRtt=16us;UnscheduledBytes=4160";
        }
        std::string error;
        try
        {
            c.Validate();
            const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
            error = Check(r);
            messages += r.messages;
            bytes += r.bytesDelivered;
            retransmitted += r.retransmitted;
        }
        catch (const std::exception& e)
        {
            error = std::string("exception: ") + e.what();
        }
        if (!error.empty())
        {
            ++failed;
        }
        if (!error.empty() || verbose)
        {
            std::printf("%s seed %llu: %s%s%s\n",
                        error.empty() ? "ok  " : "FAIL",
                        static_cast<unsigned long long>(seed),
                        Describe(c).c_str(),
                        error.empty() ? "" : ": ",
                        error.c_str());
            std::fflush(stdout);
        }
    }
    std::printf("fabric campaign: %llu seeds from %llu, %llu failed; %llu messages, %llu bytes, "
                "%llu retransmitted\n",
                static_cast<unsigned long long>(seeds),
                static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(messages),
                static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(retransmitted));
    return failed ? 1 : 0;
}
