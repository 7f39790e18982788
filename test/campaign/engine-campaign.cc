// The engine fault campaign (doc/reliability.md, "Fault campaign"): for each seed, a scenario
// drawn at random and run on the loopback harness (engine/driver/loopback-scenario.h) with
// real bytes, then checked:
//   - every message completed exactly once, successfully, in posting order per stream, and
//     every byte placed exactly once at the right address (RunScenario's own checks: the
//     receiver's buffer equals the sender's, byte for byte);
//   - no engine left with outstanding work (both Idle() at the end);
//   - the channel's books balance: packets sent by the engines = packets the channel took;
//     taken + duplicated = delivered + lost + lost on a down plane + corrupted + in flight;
//     and each engine received exactly what was delivered to it (rxPackets);
//   - a corrupted frame was never handed to an engine (it is counted as corrupted instead).
// Scenarios draw: transport (MetaRoCE mostly, RoCEv2), loss 0-30% (RoCEv2, go-back-N: 0-3%),
// loss bursts (a plane down for a while), reordering, duplication, corruption, plane flaps,
// message sizes from 1 byte to 4 MiB, SEND/WRITE mixes, 1-4 planes, 1-8 paths per plane.
//
//   metaroce-engine-campaign --seeds=10000 [--first=1] [--admission] [--copies=K] [--verbose]
// --admission runs the same scenarios with receiver admission (spec 8.5): one packet unscheduled,
// then a credit of 1 to 16 packets drawn per seed; --copies=K sends every retransmission K times
// (spec 7.3). Exit status 1 when any seed fails; each failing seed is printed with its scenario, so
// it can be rerun alone (--first=S --seeds=1) and made a regression test.
#include "loopback-scenario.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

using namespace metaroce;

namespace
{

/// The scenario of one seed.
ScenarioConfig
Draw(uint64_t seed)
{
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 17);
    auto uniform = [&rng](double lo, double hi) {
        return lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(rng);
    };
    ScenarioConfig c;
    c.seed = seed;
    c.transport = rng() % 5 == 0 ? Transport::RoceV2 : Transport::MetaRoce;
    const bool metaroce = c.transport == Transport::MetaRoce;
    c.metaroce.ports = metaroce ? static_cast<uint16_t>(1 + rng() % 4) : 1;
    c.metaroce.flowsPerPort = static_cast<uint16_t>(1 + rng() % 8);
    c.metaroce.streams = metaroce ? static_cast<uint16_t>(1 + rng() % 4) : 1; // RC: one
    c.metaroce.mtu = metaroce ? 1024u << (rng() % 3) : 256u << (rng() % 5);
    c.channel.ports = c.metaroce.ports;
    c.channel.rateBps = 25'000'000'000ULL << (rng() % 3);
    c.channel.delayNs = 500 + rng() % 5000;
    // Loss: mostly light, sometimes heavy (MetaRoCE only: go-back-N at 30% never finishes).
    const double heavy = metaroce ? 0.30 : 0.03;
    c.channel.lossRate = rng() % 4 == 0 ? uniform(0, heavy) : uniform(0, heavy / 10);
    c.channel.duplicateRate = rng() % 3 == 0 ? uniform(0, 0.05) : 0;
    c.channel.reorderRate = rng() % 3 == 0 ? uniform(0, 0.1) : 0;
    c.channel.reorderDelayNs = 1000 + rng() % 20'000;
    c.channel.corruptRate = rng() % 3 == 0 ? uniform(0, 0.05) : 0;
    // Sizes from 1 byte; one in eight scenarios has a few messages of up to 4 MiB.
    const bool big = rng() % 8 == 0;
    c.messages = static_cast<uint32_t>(big ? 1 + rng() % 4 : 1 + rng() % 40);
    c.maxMessageBytes = big ? 1 + rng() % (4u << 20) : 1 + rng() % (rng() % 2 ? 100 : 64'000);
    c.sendFraction = uniform(0, 1);
    // A plane flap (a burst of losses on one plane; both ends see the port go down), on
    // multi-plane MetaRoCE, or a short one on RoCEv2's single port.
    if (rng() % 4 == 0)
    {
        c.planeFailurePort = static_cast<int>(rng() % c.metaroce.ports);
        c.planeFailureAt = rng() % 200'000;
        c.planeRecoveryAt = c.planeFailureAt + 1'000 + rng() % 500'000;
    }
    c.limit = 600'000'000'000; // 10 virtual minutes: a live run finishes far sooner
    return c;
}

std::string
Describe(const ScenarioConfig& c)
{
    char text[400];
    std::snprintf(text,
                  sizeof text,
                  "%s ports=%u paths=%u streams=%u mtu=%u rate=%llu delay=%llu loss=%.4f "
                  "dup=%.3f reorder=%.3f corrupt=%.3f messages=%u max=%llu send=%.2f flap=%d "
                  "credit=%llu",
                  TransportName(c.transport),
                  c.metaroce.ports,
                  c.metaroce.flowsPerPort,
                  c.metaroce.streams,
                  c.metaroce.mtu,
                  static_cast<unsigned long long>(c.channel.rateBps),
                  static_cast<unsigned long long>(c.channel.delayNs),
                  c.channel.lossRate,
                  c.channel.duplicateRate,
                  c.channel.reorderRate,
                  c.channel.corruptRate,
                  c.messages,
                  static_cast<unsigned long long>(c.maxMessageBytes),
                  c.sendFraction,
                  c.planeFailurePort,
                  static_cast<unsigned long long>(c.admissionTargetBytes));
    return text;
}

/// The books of one finished run; empty when they balance.
std::string
CheckBooks(const ScenarioResult& r)
{
    const ChannelStats& ch = r.channel;
    if (r.sender.txPackets + r.receiver.txPackets != ch.sent)
    {
        return "engines sent " + std::to_string(r.sender.txPackets + r.receiver.txPackets) +
               " packets, the channel took " + std::to_string(ch.sent);
    }
    if (r.sender.rxPackets + r.receiver.rxPackets != ch.delivered)
    {
        return "engines received " + std::to_string(r.sender.rxPackets + r.receiver.rxPackets) +
               " packets, the channel delivered " + std::to_string(ch.delivered);
    }
    const uint64_t out =
        ch.delivered + ch.dropped + ch.lostOnDownPlane + ch.corrupted + r.framesInFlight;
    if (out != ch.sent + ch.duplicated)
    {
        return "channel books: " + std::to_string(ch.sent) + " taken + " +
               std::to_string(ch.duplicated) + " duplicated != " + std::to_string(out) +
               " delivered, lost, corrupted or in flight";
    }
    return {};
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t seeds = 100;
    uint64_t first = 1;
    bool verbose = false;
    bool admission = false;
    uint32_t copies = 1;
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
        else if (std::strncmp(argv[i], "--copies=", 9) == 0)
        {
            copies = static_cast<uint32_t>(std::stoul(argv[i] + 9));
        }
        else
        {
            std::fprintf(stderr,
                         "usage: %s [--seeds=N] [--first=S] [--admission] [--copies=K] "
                         "[--verbose]\n",
                         argv[0]);
            return 2;
        }
    }
    if (copies < 1 || copies > 4)
    {
        std::fprintf(stderr, "--copies: %u is outside 1-4 (RetransmitCopies)\n", copies);
        return 2;
    }
    uint64_t failed = 0;
    uint64_t messages = 0;
    uint64_t bytes = 0;
    ChannelStats total;
    for (uint64_t seed = first; seed < first + seeds; ++seed)
    {
        ScenarioConfig c = Draw(seed);
        c.metaroce.retransmitCopies = copies;
        if (admission)
        {
            // Drawn apart from the scenario, which stays the same with and without.
            const uint64_t packet = c.metaroce.mtu + 64;
            c.metaroce.unscheduledBytes = packet;
            c.admissionTargetBytes = packet * (1 + (seed * 0x2545F4914F6CDD1DULL >> 60));
        }
        ScenarioResult r;
        std::string error;
        try
        {
            r = RunScenario(c);
            error = r.Ok() ? CheckBooks(r) : r.error;
        }
        catch (const std::exception& e)
        {
            error = std::string("exception: ") + e.what();
        }
        messages += c.messages;
        bytes += r.payloadBytes;
        total.sent += r.channel.sent;
        total.dropped += r.channel.dropped;
        total.corrupted += r.channel.corrupted;
        total.duplicated += r.channel.duplicated;
        total.lostOnDownPlane += r.channel.lostOnDownPlane;
        if (!error.empty())
        {
            ++failed;
            std::printf("FAIL seed %llu: %s\n  %s\n",
                        static_cast<unsigned long long>(seed),
                        error.c_str(),
                        Describe(c).c_str());
        }
        else if (verbose)
        {
            std::printf("ok   seed %llu: %s\n",
                        static_cast<unsigned long long>(seed),
                        Describe(c).c_str());
        }
    }
    std::printf("engine campaign: %llu seeds from %llu, %llu failed; %llu messages, %llu bytes; "
                "frames %llu, lost %llu, corrupted %llu (all detected, none placed), "
                "duplicated %llu, lost on a down plane %llu\n",
                static_cast<unsigned long long>(seeds),
                static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(messages),
                static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(total.sent),
                static_cast<unsigned long long>(total.dropped),
                static_cast<unsigned long long>(total.corrupted),
                static_cast<unsigned long long>(total.duplicated),
                static_cast<unsigned long long>(total.lostOnDownPlane));
    return failed ? 1 : 0;
}
