// The engine's training workload for profile-guided optimisation (doc/performance.md,
// "The fast path"): scripts/engine-profile.sh runs it once on an instrumented engine, and the
// engine of every other build is then compiled with the profile it leaves.
//
// What it runs stands for what simulations ask of the engine: bulk transfers between two
// engines on the loopback harness, both transports, 1 to 8 ports (planes), no loss and 0.1% and
// 1% loss, messages of 256 KiB and 4 MiB, SENDs and WRITEs mixed, one and four streams. It
// leaves out the engine benchmark's own configuration (1 MiB WRITEs only), so that the
// benchmark measures what any workload of this kind gets rather than a profile of itself.
//
//   metaroce-engine-train [--quiet]
// Exit status 1 when a scenario fails its checks (a training run must also be a correct one).
#include "loopback-scenario.h"

#include <cstdio>
#include <cstring>
#include <vector>

using namespace metaroce;

namespace
{

/// The training scenarios, in the order they run.
std::vector<ScenarioConfig>
Scenarios()
{
    std::vector<ScenarioConfig> out;
    for (Transport transport : {Transport::MetaRoce, Transport::RoceV2})
    {
        for (uint16_t ports : {1, 2, 4, 8})
        {
            for (double loss : {0.0, 0.001, 0.01})
            {
                for (uint64_t bytes : {uint64_t{256} << 10, uint64_t{4} << 20})
                {
                    // An RC queue pair has one stream (RoCEv2).
                    for (uint16_t streams : {1, 4})
                    {
                        if (transport == Transport::RoceV2 && streams > 1)
                        {
                            continue;
                        }
                        ScenarioConfig c;
                        c.transport = transport;
                        c.messages = 8;
                        c.fixedMessageBytes = bytes;
                        c.sendFraction = 0.5;
                        c.realPayload = false;
                        c.metaroce.ports = ports;
                        c.metaroce.streams = streams;
                        c.channel.ports = ports;
                        c.channel.lossRate = loss;
                        c.seed = out.size() + 1;
                        c.channel.seed = c.seed;
                        out.push_back(c);
                    }
                }
            }
        }
    }
    return out;
}

} // namespace

int
main(int argc, char** argv)
{
    bool quiet = false;
    for (int i = 1; i < argc; ++i)
    {
        if (std::strcmp(argv[i], "--quiet") != 0)
        {
            std::fprintf(stderr,
                         "metaroce-engine-train: unknown argument '%s' (only --quiet)\n",
                         argv[i]);
            return 2;
        }
        quiet = true;
    }
    const std::vector<ScenarioConfig> scenarios = Scenarios();
    uint64_t packets = 0;
    for (const ScenarioConfig& c : scenarios)
    {
        const ScenarioResult r = RunScenario(c);
        if (!r.Ok())
        {
            std::fprintf(stderr,
                         "metaroce-engine-train: %s, %u ports, loss %g, %llu-byte messages, %u "
                         "streams: %s\n",
                         TransportName(c.transport),
                         c.channel.ports,
                         c.channel.lossRate,
                         static_cast<unsigned long long>(c.fixedMessageBytes),
                         c.metaroce.streams,
                         r.error.empty() ? "did not finish" : r.error.c_str());
            return 1;
        }
        packets += r.sender.txDataPackets;
    }
    if (!quiet)
    {
        std::printf("metaroce-engine-train: %zu scenarios, %llu data packets\n",
                    scenarios.size(),
                    static_cast<unsigned long long>(packets));
    }
    return 0;
}
