/*
 * MetaRoCE against RoCEv2 on a multi-plane leaf-spine or fat-tree fabric, with random loss.
 *
 * Every host runs the same traffic pattern (all-to-all by default: each host sends one message
 * to every other host) over one of three transports:
 *   metaroce    one MetaRoCE connection per host pair, sprayed over every plane;
 *   rocev2      one RoCEv2 QP per host pair and plane (the message split evenly), no PFC;
 *   rocev2-pfc  the same with PFC on every switch (loss from the error model still drops).
 * and prints, per transport and loss rate: the time until the last message completes, the
 * aggregate goodput, flow completion times (mean, p99), retransmissions, switch drops and PFC
 * pauses. Loss is a RateErrorModel on every link end.
 *
 *   ./metaroce-fabric --hosts=32 --planes=8 --loss=0,0.01 --pattern=alltoall --output=out.csv
 *   ./metaroce-fabric --topology=fat-tree --hosts=32 --hostsPerLeaf=4 --leavesPerPod=2 \
 *       --spines=2 --cores=4 --pattern=permutation
 *
 * Loss applies at every link end, so a path through four links loses about 4x the rate.
 * --pcap=PREFIX captures every host port of every run (MetaRoceFabricHelper::EnablePcap):
 *
 *   ./metaroce-fabric --hosts=2 --planes=2 --hostsPerLeaf=2 --pattern=permutation \
 *       --transports=metaroce --loss=0 --pcap=/tmp/mr
 *   tshark -X lua_script:contrib/metaroce/tools/wireshark/metaroce.lua \
 *       -r /tmp/mr-metaroce-loss0-host0-plane0.pcap
 */
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-atomic-file.h"
#include "ns3/metaroce-command-line.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-fabric-shape.h"
#include "ns3/metaroce-memory-estimate.h"
#include "ns3/metaroce-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

struct Options
{
    uint32_t hosts{16};
    uint32_t planes{8};
    uint32_t hostsPerLeaf{8};
    uint32_t spines{4};
    std::string topology{"leaf-spine"};
    uint32_t leavesPerPod{0};
    uint32_t cores{0};
    std::string rate{"100Gbps"};
    uint64_t messageBytes{512 << 10};
    std::string pattern{"alltoall"};
    uint32_t seed{1};
    std::string pcap; ///< capture prefix, empty: none
    bool pcapSwitches{false};
    std::string stopTime{"1s"}; ///< simulated-time limit of each run
};

struct Result
{
    double lastCompletionUs{0};
    double goodputGbps{0};
    double fctMeanUs{0};
    double fctP99Us{0};
    uint64_t retransmitted{0};
    uint64_t timeouts{0};
    uint64_t switchDrops{0};
    uint64_t pauses{0};
    uint64_t messages{0};
    uint64_t completed{0};
    double wallSeconds{0};
};

/// Collects completion times of the requester side.
class Recorder
{
  public:
    void OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
    {
        if (c.op != metaroce::Opcode::Recv && c.status == metaroce::CompletionStatus::Success)
        {
            m_fct.push_back(static_cast<double>(c.time) / 1000.0);
        }
    }

    std::vector<double> m_fct;
};

std::vector<std::pair<uint32_t, uint32_t>>
Flows(const Options& o)
{
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    if (o.pattern == "alltoall")
    {
        for (uint32_t a = 0; a < o.hosts; ++a)
        {
            for (uint32_t b = 0; b < o.hosts; ++b)
            {
                if (a != b)
                {
                    flows.emplace_back(a, b);
                }
            }
        }
    }
    else if (o.pattern == "permutation")
    {
        for (uint32_t a = 0; a < o.hosts; ++a)
        {
            flows.emplace_back(a, (a + o.hosts / 2) % o.hosts);
        }
    }
    else if (o.pattern == "incast")
    {
        for (uint32_t a = 1; a < o.hosts; ++a)
        {
            flows.emplace_back(a, 0);
        }
    }
    else
    {
        NS_FATAL_ERROR("--pattern: '" << o.pattern << "' is not alltoall, permutation or incast");
    }
    return flows;
}

void
BuildFabric(MetaRoceFabricHelper& fabric, const Options& o, const std::string& transport)
{
    fabric.SetTopology(o.topology == "fat-tree" ? MetaRoceTopology::FAT_TREE
                                                : MetaRoceTopology::LEAF_SPINE);
    fabric.SetLeavesPerPod(o.leavesPerPod);
    fabric.SetCores(o.cores);
    fabric.SetHosts(o.hosts);
    fabric.SetPlanes(o.planes);
    fabric.SetHostsPerLeaf(o.hostsPerLeaf);
    fabric.SetSpines(o.spines);
    fabric.SetHostLink(DataRate(o.rate), MicroSeconds(1));
    fabric.SetFabricLink(DataRate(o.rate), MicroSeconds(1));
    fabric.SetCoreLink(DataRate(o.rate), MicroSeconds(1));
    fabric.SetEcmpSeed(o.seed);
    fabric.SetSwitchAttribute("PfcEnabled", BooleanValue(transport == "rocev2-pfc"));
    fabric.Build();
}

/// A RateErrorModel with `loss` on every link end, from stream `stream` on.
void
AddLoss(MetaRoceFabricHelper& fabric, double loss, int64_t stream)
{
    NetDeviceContainer devices = fabric.GetDevices();
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(loss);
        stream += em->AssignStreams(100 + stream);
        DynamicCast<MetaRoceNetDevice>(devices.Get(i))->SetReceiveErrorModel(em);
    }
}

/// Connects every flow of the pattern and posts its WRITE; returns the senders' queue pairs.
std::vector<Ptr<MetaRoceQueuePair>>
StartFlows(MetaRoceFabricHelper& fabric,
           const Options& o,
           const std::string& transport,
           Recorder& recorder)
{
    std::vector<Ptr<MetaRoceQueuePair>> senders;
    for (const auto& [a, b] : Flows(o))
    {
        if (transport == "metaroce")
        {
            auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(a),
                                                 fabric.GetNic(b),
                                                 metaroce::Transport::MetaRoce);
            qa->SetCompletionCallback(MakeCallback(&Recorder::OnCompletion, &recorder));
            qa->PostWrite(0, o.messageBytes);
            senders.push_back(qa);
            continue;
        }
        for (uint32_t p = 0; p < o.planes; ++p)
        {
            auto [qa, qb] = MetaRoceNic::Connect(fabric.GetNic(a),
                                                 fabric.GetNic(b),
                                                 metaroce::Transport::RoceV2,
                                                 p);
            qa->SetCompletionCallback(MakeCallback(&Recorder::OnCompletion, &recorder));
            qa->PostWrite(0, std::max<uint64_t>(1, o.messageBytes / o.planes));
            senders.push_back(qa);
        }
    }
    return senders;
}

/// Completion times, goodput, recovery work and switch counters of a finished run.
Result
Collect(const Options& o,
        MetaRoceFabricHelper& fabric,
        const Recorder& recorder,
        const std::vector<Ptr<MetaRoceQueuePair>>& senders)
{
    Result r;
    r.messages = senders.size();
    r.completed = recorder.m_fct.size();
    std::vector<double> fct = recorder.m_fct;
    std::sort(fct.begin(), fct.end());
    if (!fct.empty())
    {
        r.lastCompletionUs = fct.back();
        double sum = 0;
        for (double f : fct)
        {
            sum += f;
        }
        r.fctMeanUs = sum / fct.size();
        r.fctP99Us = fct[std::min(fct.size() - 1, static_cast<std::size_t>(fct.size() * 0.99))];
    }
    const double bytes = static_cast<double>(Flows(o).size()) * o.messageBytes;
    r.goodputGbps = r.lastCompletionUs > 0 ? bytes * 8 / (r.lastCompletionUs * 1000) : 0;
    for (const auto& qp : senders)
    {
        r.retransmitted += qp->GetCounters().retransmittedPackets;
        r.timeouts += qp->GetCounters().timeouts;
    }
    for (const auto& sw : fabric.GetSwitches())
    {
        r.switchDrops += sw->GetDropped();
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            r.pauses += sw->GetPortCounters(port).pauseSent;
        }
    }
    return r;
}

/// The capture prefix of one run: every (transport, loss) run writes its own files.
std::string
RunPcapPrefix(const Options& o, const std::string& transport, double loss)
{
    std::ostringstream os;
    os << o.pcap << "-" << transport << "-loss" << loss * 100;
    return os.str();
}

Result
Run(const Options& o, const std::string& transport, double loss)
{
    const auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(o.seed);
    RngSeedManager::SetRun(1);
    MetaRoceFabricHelper fabric;
    BuildFabric(fabric, o, transport);
    const int64_t stream = fabric.AssignStreams(100);
    if (loss > 0)
    {
        AddLoss(fabric, loss, stream);
    }
    if (!o.pcap.empty())
    {
        fabric.EnablePcap(RunPcapPrefix(o, transport, loss), o.pcapSwitches);
    }
    Recorder recorder;
    const std::vector<Ptr<MetaRoceQueuePair>> senders = StartFlows(fabric, o, transport, recorder);
    // A transport that keeps retrying (MetaRoCE under very heavy loss) ends here, incomplete.
    Simulator::Stop(ParseTimeOption("stopTime", o.stopTime));
    Simulator::Run();
    Result r = Collect(o, fabric, recorder, senders);
    Simulator::Destroy();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return r;
}

void
PrintHeading(const Options& o)
{
    std::cout << o.pattern << " of " << o.messageBytes << " B messages, " << o.hosts << " hosts, "
              << o.planes << " planes x " << o.topology << " ("
              << (o.hosts + o.hostsPerLeaf - 1) / o.hostsPerLeaf << " leaves, " << o.spines
              << " spines" << (o.topology == "fat-tree" ? " per pod, " : "")
              << (o.topology == "fat-tree" ? std::to_string(o.cores) + " cores" : "") << "), "
              << o.rate << " links\n\n"
              << std::left << std::setw(12) << "transport" << std::right << std::setw(7) << "loss"
              << std::setw(11) << "done (us)" << std::setw(10) << "Gb/s" << std::setw(11)
              << "FCT mean" << std::setw(10) << "FCT p99" << std::setw(9) << "retx" << std::setw(7)
              << "RTOs" << std::setw(8) << "drops" << std::setw(8) << "pauses" << std::setw(8)
              << "wall s"
              << "\n";
}

void
PrintRow(const std::string& t, double loss, const Result& r)
{
    std::cout << std::left << std::setw(12) << t << std::right << std::fixed << std::setprecision(1)
              << std::setw(6) << loss * 100 << "%" << std::setw(11) << r.lastCompletionUs
              << std::setw(10) << r.goodputGbps << std::setw(11) << r.fctMeanUs << std::setw(10)
              << r.fctP99Us << std::setw(9) << r.retransmitted << std::setw(7) << r.timeouts
              << std::setw(8) << r.switchDrops << std::setw(8) << r.pauses << std::setw(8)
              << std::setprecision(2) << r.wallSeconds;
    if (r.completed != r.messages)
    {
        std::cout << "  INCOMPLETE: " << r.completed << " of " << r.messages;
    }
    std::cout << "\n" << std::defaultfloat;
}

void
WriteCsvRow(std::ostream& csv, const Options& o, const std::string& t, double loss, const Result& r)
{
    csv << t << "," << loss << "," << o.hosts << "," << o.planes << "," << o.pattern << ","
        << o.messageBytes << "," << r.lastCompletionUs << "," << r.goodputGbps << "," << r.fctMeanUs
        << "," << r.fctP99Us << "," << r.retransmitted << "," << r.timeouts << "," << r.switchDrops
        << "," << r.pauses << "," << r.messages << "," << r.completed << "\n";
}

/// The command line: every Options field, the loss and transport lists, the CSV file.
struct CommandLineOptions
{
    Options o;
    std::string losses{"0,0.01"};
    std::string transports{"metaroce,rocev2,rocev2-pfc"};
    std::string output;
};

void
AddOptions(CommandLine& cmd, CommandLineOptions& c)
{
    Options& o = c.o;
    AddIntegerOption(cmd, "hosts", "hosts (one NIC each)", o.hosts, 2);
    AddIntegerOption(cmd, "planes", "planes (NIC ports per host)", o.planes, 1, 64);
    AddIntegerOption(cmd, "hostsPerLeaf", "hosts per leaf switch", o.hostsPerLeaf, 1, 254);
    AddIntegerOption(cmd, "spines", "spines per plane (leaf-spine) or per pod", o.spines, 0, 255);
    AddStringOption(cmd, "topology", "leaf-spine or fat-tree", o.topology);
    AddIntegerOption(cmd, "leavesPerPod", "fat-tree: leaves per pod", o.leavesPerPod, 0, 255);
    AddIntegerOption(cmd, "cores", "fat-tree: core switches per plane", o.cores, 0);
    AddStringOption(cmd, "rate", "rate of every link", o.rate);
    // One WRITE per host pair (RoCEv2: per pair and plane): at most RoCEv2's 2^31 bytes.
    AddIntegerOption(cmd,
                     "messageBytes",
                     "bytes per message (per host pair)",
                     o.messageBytes,
                     1,
                     uint64_t{1} << 31);
    AddStringOption(cmd, "pattern", "alltoall, permutation or incast", o.pattern);
    AddStringOption(cmd, "loss", "comma-separated packet loss probabilities per link", c.losses);
    AddStringOption(cmd,
                    "transports",
                    "comma-separated: metaroce, rocev2, rocev2-pfc",
                    c.transports);
    AddIntegerOption(cmd, "seed", "random seed (ns-3 needs >= 1)", o.seed, 1);
    RegisterOwnGlobal(cmd, "RngSeed", "seed"); // Run() sets the seed, and run 1
    RegisterOwnGlobal(cmd, "RngRun", "seed");
    AddStringOption(cmd, "output", "CSV file to write (optional)", c.output);
    AddStringOption(cmd,
                    "pcap",
                    "capture prefix (empty: no capture): a pcap file per host port and run, "
                    "PREFIX-<transport>-loss<percent>-host<h>-plane<p>.pcap (PPP/IPv4/UDP, ns "
                    "timestamps); the directory must exist",
                    o.pcap);
    AddStringOption(cmd,
                    "stopTime",
                    "simulated-time limit of each run (one that reaches it is INCOMPLETE)",
                    o.stopTime);
    AddBoolOption(cmd,
                  "pcapSwitches",
                  "with --pcap: every switch port too, "
                  "...-<leaf|spine|core><i>-plane<p>-port<k>.pcap",
                  o.pcapSwitches);
}

/// Throws std::invalid_argument naming the first bad option; the fabric helper would abort.
void
Validate(const CommandLineOptions& c)
{
    const Options& o = c.o;
    auto fail = [](const std::string& message) { throw std::invalid_argument(message); };
    if (o.topology != "leaf-spine" && o.topology != "fat-tree")
    {
        fail("--topology: '" + o.topology + "' is not leaf-spine or fat-tree");
    }
    if (o.pattern != "alltoall" && o.pattern != "permutation" && o.pattern != "incast")
    {
        fail("--pattern: '" + o.pattern + "' is not alltoall, permutation or incast");
    }
    MetaRoceFabricShape shape;
    shape.topology =
        o.topology == "fat-tree" ? MetaRoceTopology::FAT_TREE : MetaRoceTopology::LEAF_SPINE;
    shape.hosts = o.hosts;
    shape.planes = o.planes;
    shape.hostsPerLeaf = o.hostsPerLeaf;
    shape.spines = o.spines;
    shape.leavesPerPod = o.leavesPerPod;
    shape.cores = o.cores;
    if (const std::string problem = shape.Problem(); !problem.empty())
    {
        fail("--topology=" + o.topology + ": " + problem);
    }
    ParseRateOption("rate", o.rate);
    if (ParseTimeOption("stopTime", o.stopTime) <= Time(0))
    {
        fail("--stopTime: '" + o.stopTime + "' is not a positive time");
    }
    ValidateOutputPrefix("pcap", o.pcap);
    if (!o.pcap.empty())
    {
        // One file per host port, with --pcapSwitches per switch port too, open during a run.
        const double switchPorts = 2.0 * shape.Links() - o.hosts;
        ValidateOpenFiles("pcap", o.planes * (o.hosts + (o.pcapSwitches ? switchPorts : 0.0)));
    }
    ValidateOutputFile("output", c.output);
    if (o.pcapSwitches && o.pcap.empty())
    {
        fail("--pcapSwitches: captures nothing without --pcap");
    }
    ParseProbabilityList("loss", c.losses);
    const uint64_t rate = ParseRateOption("rate", o.rate).GetBitRate();
    for (const std::string& item : SplitOptionList("transports", c.transports))
    {
        if (item != "metaroce" && item != "rocev2" && item != "rocev2-pfc")
        {
            fail("--transports: '" + item + "' is not metaroce, rocev2 or rocev2-pfc");
        }
        const auto transport =
            item == "metaroce" ? metaroce::Transport::MetaRoce : metaroce::Transport::RoceV2;
        // What the NICs would meet as a fatal error at their first connection.
        const std::string problem = MetaRoceNic::GetConfigProblem({}, o.planes, rate, transport);
        if (!problem.empty())
        {
            fail("--rate=" + o.rate + " with the NICs' attributes: " + problem);
        }
        // The switches' own rules (their attributes may come from --ns3::MetaRoceSwitch::...).
        const std::string switchProblem = MetaRoceSwitch::GetConfigProblem(
            {{"PfcEnabled", item == "rocev2-pfc" ? "true" : "false"}});
        if (!switchProblem.empty())
        {
            fail("--transports=" + item + " with the switches' attributes: " + switchProblem);
        }
        // Every flow is a connection (RoCEv2: one per plane), both ends, made up front.
        MetaRoceMemoryEstimate m;
        const double hosts = o.hosts;
        m.hostPorts = hosts * o.planes;
        m.messages = o.pattern == "alltoall" ? hosts * (hosts - 1) : hosts;
        m.queuePairs = 2 * m.messages * (item == "metaroce" ? 1 : o.planes);
        m.Check("--hosts=" + std::to_string(o.hosts) + " --pattern=" + o.pattern + " over " + item);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    CommandLineOptions c;
    CommandLine cmd(__FILE__);
    AddOptions(cmd, c);
    if (!ParseCommandLine(cmd, argc, argv, "metaroce-fabric"))
    {
        return 2;
    }
    // The CSV file appears, complete, once every run is done (MetaRoceAtomicFile).
    std::unique_ptr<MetaRoceAtomicFile> csv;
    try
    {
        Validate(c);
        if (!c.output.empty())
        {
            csv = std::make_unique<MetaRoceAtomicFile>(c.output);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-fabric: " << e.what() << "\n";
        return 2;
    }
    const Options& o = c.o;
    if (csv)
    {
        csv->Stream()
            << "transport,loss,hosts,planes,pattern,message_bytes,last_completion_us,"
               "goodput_gbps,fct_mean_us,fct_p99_us,retransmitted,timeouts,switch_drops,pfc_pauses,"
               "messages,completed\n";
    }
    PrintHeading(o);
    int status = 0;
    for (const auto& t : SplitOptionList("transports", c.transports))
    {
        for (double loss : ParseProbabilityList("loss", c.losses))
        {
            const Result r = Run(o, t, loss);
            PrintRow(t, loss, r);
            status = r.completed != r.messages ? 1 : status;
            if (csv)
            {
                WriteCsvRow(csv->Stream(), o, t, loss, r);
            }
        }
    }
    try
    {
        if (csv)
        {
            csv->Commit();
        }
        MetaRoceFlushStandardOutput();
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-fabric: " << e.what() << "\n";
        return 2;
    }
    return status;
}
