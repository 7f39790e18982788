/*
 * Loss sweep on the reference loopback: one MetaRoCE connection and one RoCEv2 queue pair each
 * move the same bulk workload across a lossy channel at 100 Gb/s per plane, and the example
 * prints goodput and its ratio to the lossless run - the announcement's "about 86% at 1% loss,
 * useful bandwidth at 10%" claim, at engine level (no switches: loss is random and uniform).
 *
 *   ./metaroce-loopback --loss=0,0.001,0.01,0.05,0.1 --planes=1 --output=sweep.csv
 */
#include "ns3/loopback-scenario.h"
#include "ns3/metaroce-atomic-file.h"
#include "ns3/metaroce-command-line.h"
#include "ns3/metaroce-connection.h"
#include "ns3/metaroce-memory-estimate.h"
#include "ns3/metaroce-options.h"
#include "ns3/rocev2-queue-pair.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace ns3;
using namespace metaroce;

namespace
{

/// The sweep the command line asks for.
struct Sweep
{
    std::string losses = "0,0.001,0.01,0.02,0.05,0.1";
    std::string transports = "metaroce,rocev2";
    uint32_t planes = 1;
    uint32_t flowsPerPlane = 8;
    uint32_t messages = 32;
    uint64_t messageBytes = 1 << 20;
    double rateGbps = 100;
    uint64_t delayNs = 2000;
    uint64_t seed = 1;
    std::string output;

    void AddOptions(CommandLine& cmd)
    {
        AddStringOption(cmd, "loss", "comma-separated random loss probabilities", losses);
        AddStringOption(cmd,
                        "transports",
                        "comma-separated transports (metaroce, rocev2)",
                        transports);
        // The bounds are the engine's (spec 6.1: ports in [1, 64], flows per port in
        // [1, 1024]) and the wire's (a RoCEv2 message carries at most 2^31 bytes, spec 10.2).
        AddIntegerOption(cmd,
                         "planes",
                         "planes (NIC ports) for MetaRoCE; RoCEv2 always uses one",
                         planes,
                         1,
                         64);
        AddIntegerOption(cmd,
                         "flowsPerPlane",
                         "MetaRoCE logical flows per plane",
                         flowsPerPlane,
                         1,
                         1024);
        AddIntegerOption(cmd, "messages", "messages to move", messages, 1, 1'000'000);
        AddIntegerOption(cmd,
                         "messageBytes",
                         "bytes per message",
                         messageBytes,
                         1,
                         uint64_t{1} << 31);
        AddRealOption(cmd, "rateGbps", "line rate per plane, Gb/s", rateGbps, 0.001, 10'000);
        // Data-centre delays: at 2 ms one way and beyond the MetaRoCE engine's retransmission
        // timers (RtoMax 10 ms) fire before the first ACK can come and the runs never finish.
        AddIntegerOption(cmd,
                         "delayNs",
                         "one-way propagation delay, ns (at most 1 ms)",
                         delayNs,
                         0,
                         1'000'000);
        AddIntegerOption(cmd, "seed", "random seed", seed, 0);
        AddStringOption(cmd, "output", "CSV file to write (optional)", output);
    }

    /// The loopback scenario of one point of the sweep.
    ScenarioConfig Scenario(Transport t, double loss) const
    {
        ScenarioConfig c;
        c.transport = t;
        c.seed = seed;
        c.messages = messages;
        c.fixedMessageBytes = messageBytes;
        c.sendFraction = 0;
        c.realPayload = false;
        c.metaroce.ports = t == Transport::MetaRoce ? planes : 1;
        c.metaroce.flowsPerPort = flowsPerPlane;
        c.metaroce.streams = 1;
        c.metaroce.portRateBps = static_cast<uint64_t>(rateGbps * 1e9);
        c.channel.ports = c.metaroce.ports;
        c.channel.rateBps = c.metaroce.portRateBps;
        c.channel.delayNs = delayNs;
        c.channel.lossRate = loss;
        c.limit = 60'000'000'000;
        return c;
    }
};

void
PrintHeading(const Sweep& s)
{
    std::cout << "Loss sweep on the loopback: " << s.messages << " x " << s.messageBytes << " B, "
              << s.rateGbps << " Gb/s per plane, " << s.delayNs << " ns one-way, seed " << s.seed
              << "\n\n"
              << std::left << std::setw(10) << "transport" << std::right << std::setw(8) << "planes"
              << std::setw(8) << "loss" << std::setw(12) << "Gb/s" << std::setw(11) << "vs 0 loss"
              << std::setw(10) << "retx" << std::setw(10) << "RTOs"
              << "  check\n";
}

void
PrintRow(Transport t, uint16_t planes, double loss, const ScenarioResult& r, double relative)
{
    std::cout << std::left << std::setw(10) << TransportName(t) << std::right << std::setw(8)
              << planes << std::setw(7) << std::setprecision(3) << loss * 100 << "%"
              << std::setw(12) << std::fixed << std::setprecision(2) << r.GoodputGbps()
              << std::setw(10) << std::setprecision(1) << relative * 100 << "%" << std::setw(10)
              << r.sender.retransmittedPackets << std::setw(10) << r.sender.timeouts << "  "
              << (r.Ok() ? "ok" : r.error) << "\n"
              << std::defaultfloat;
}

void
WriteCsvRow(std::ostream& csv,
            Transport t,
            uint16_t planes,
            double loss,
            const ScenarioResult& r,
            double relative)
{
    csv << TransportName(t) << "," << planes << "," << loss << "," << r.GoodputGbps() << ","
        << relative << "," << r.duration << "," << r.sender.retransmittedPackets << ","
        << r.sender.timeouts << "," << r.sender.txDataPackets << "," << (r.Ok() ? 1 : 0) << "\n";
}

/**
 * Throws std::invalid_argument unless every run of the sweep can be made and finish: the
 * engines' configurations (what RunScenario() would throw after the first rows), the time the
 * messages take at the line rate against the scenario's limit, and the memory the engines'
 * per-packet state needs.
 */
void
Validate(const Sweep& s, const std::vector<Transport>& transports)
{
    const std::string shape = "--planes=" + std::to_string(s.planes) +
                              " --flowsPerPlane=" + std::to_string(s.flowsPerPlane) + ": ";
    for (Transport t : transports)
    {
        const ScenarioConfig c = s.Scenario(t, 0);
        try
        {
            if (t == Transport::MetaRoce)
            {
                MetaRoceConnection probe(c.metaroce);
            }
            else
            {
                RoceV2Config rc;
                rc.mtu = c.metaroce.mtu;
                rc.lineRateBps = c.metaroce.portRateBps;
                MemoryRegistry memory;
                RoceV2QueuePair probe(rc, memory);
            }
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(shape + e.what());
        }
        const double bytes = static_cast<double>(s.messages) * s.messageBytes;
        const std::string what = "--messages=" + std::to_string(s.messages) +
                                 " --messageBytes=" + std::to_string(s.messageBytes);
        const double seconds = bytes * 8 / (s.rateGbps * 1e9 * c.metaroce.ports) + s.delayNs * 1e-9;
        if (seconds * 1e9 > c.limit)
        {
            std::ostringstream os;
            os << what << ": " << TransportName(t) << " needs at least " << seconds
               << " s of simulated time at " << s.rateGbps << " Gb/s x " << c.metaroce.ports
               << " planes; the loopback gives up at " << c.limit / 1e9 << " s";
            throw std::invalid_argument(os.str());
        }
        MetaRoceMemoryEstimate m;
        m.messages = s.messages;
        m.packets =
            t == Transport::MetaRoce
                ? s.messages * std::ceil(static_cast<double>(s.messageBytes) / c.metaroce.mtu)
                : 0;
        m.Check(what + " over " + TransportName(t));
    }
}

/// Runs the sweep; false (after saying why on stderr) when a run did not deliver everything.
bool
RunSweep(const Sweep& s)
{
    const std::vector<double> lossList = ParseProbabilityList("loss", s.losses);
    std::vector<Transport> transportList;
    for (const std::string& t : SplitOptionList("transports", s.transports))
    {
        transportList.push_back(ParseTransportOption("transports", t));
    }
    Validate(s, transportList);
    // The CSV file appears, complete, when the sweep ends (MetaRoceAtomicFile); a sweep
    // stopped by a failed run still writes the rows of the runs that ran, the last not ok.
    ValidateOutputFile("output", s.output);
    std::unique_ptr<MetaRoceAtomicFile> csv;
    if (!s.output.empty())
    {
        csv = std::make_unique<MetaRoceAtomicFile>(s.output);
        csv->Stream() << "transport,planes,loss,goodput_gbps,relative,duration_ns,retransmitted,"
                         "timeouts,sent_packets,ok\n";
    }
    PrintHeading(s);
    for (Transport t : transportList)
    {
        double lossless = 0;
        for (double loss : lossList)
        {
            const ScenarioConfig c = s.Scenario(t, loss);
            const ScenarioResult r = RunScenario(c);
            lossless = loss == 0 ? r.GoodputGbps() : lossless;
            const double relative = lossless > 0 ? r.GoodputGbps() / lossless : 0;
            PrintRow(t, c.metaroce.ports, loss, r, relative);
            if (csv)
            {
                WriteCsvRow(csv->Stream(), t, c.metaroce.ports, loss, r, relative);
            }
            if (!r.Ok())
            {
                if (csv)
                {
                    csv->Commit();
                }
                std::cerr << "error: " << TransportName(t) << " at loss " << loss << ": " << r.error
                          << "\n";
                return false;
            }
        }
    }
    if (csv)
    {
        csv->Commit();
    }
    return true;
}

} // namespace

int
main(int argc, char* argv[])
{
    Sweep sweep;
    CommandLine cmd(__FILE__);
    sweep.AddOptions(cmd);
    // The loopback runs the engines alone: ns-3's attribute defaults and globals do nothing.
    if (!ParseCommandLine(cmd, argc, argv, "metaroce-loopback", false))
    {
        return 2;
    }
    try
    {
        const bool ok = RunSweep(sweep);
        MetaRoceFlushStandardOutput();
        return ok ? 0 : 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-loopback: " << e.what() << "\n";
        return 2;
    }
}
