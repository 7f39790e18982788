/*
 * MetaRoceExperimentConfig::Validate() and the checks across fields it makes before anything
 * is built: each field's range and syntax, the fabric's shape, the NIC's and switches'
 * attributes against the model's own rules (MetaRoceNic::GetConfigProblem,
 * MetaRoceSwitch::GetConfigProblem), a failure's index against the shape, the collective's
 * smallest block, and the memory the run needs (MetaRoceMemoryEstimate); and UnusedOptions(),
 * the options a run would not use.
 */
#include "metaroce-experiment-config.h"
#include "metaroce-experiment-workload.h"
#include "metaroce-job-placement.h"
#include "metaroce-memory-estimate.h"
#include "metaroce-options.h"
#include "metaroce-transports.h"
#include "metaroce-workload-inputs.h"

#include "ns3/double.h"
#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-fabric-shape.h"
#include "ns3/metaroce-flow-generator.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-switch.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

void
Require(bool ok, const std::string& field, const std::string& message)
{
    if (!ok)
    {
        throw std::invalid_argument("--" + field + ": " + message);
    }
}

/// The shape the experiment builds (as MetaRoceExperiment::BuildFabric sets it).
MetaRoceFabricShape
ShapeOf(const MetaRoceExperimentConfig& c)
{
    MetaRoceFabricShape shape;
    shape.hosts = c.hosts;
    shape.planes = c.planes;
    shape.hostsPerLeaf = c.hostsPerLeaf;
    shape.spines = c.spines;
    if (c.topology == "fat-tree")
    {
        shape.topology = MetaRoceTopology::FAT_TREE;
        shape.leavesPerPod = c.leavesPerPod;
        shape.cores = c.cores;
    }
    if (c.topology == "rail")
    {
        shape.topology = MetaRoceTopology::RAIL;
        shape.railGpus = c.railGpus;
    }
    return shape;
}

/// The fabric shape, checked without the fabric helper's abort.
void
ValidateShape(const MetaRoceExperimentConfig& c)
{
    const std::string problem = ShapeOf(c).Problem();
    Require(problem.empty(),
            c.topology == "leaf-spine" ? "spines" : "topology=" + c.topology,
            problem);
}

/// The fabric: topology, sizes within what the fabric helper builds, link rates and delays.
void
ValidateFabric(const MetaRoceExperimentConfig& c)
{
    Require(c.topology == "leaf-spine" || c.topology == "fat-tree" || c.topology == "rail",
            "topology",
            "'" + c.topology + "' is not leaf-spine, fat-tree or rail");
    Require(c.topology != "rail" || (c.railGpus >= 1 && c.hosts % c.railGpus == 0),
            "railGpus",
            std::to_string(c.hosts) + " hosts are not whole servers of " +
                std::to_string(c.railGpus) + " GPUs");
    Require(c.hosts >= 2, "hosts", "need at least 2 hosts, not " + std::to_string(c.hosts));
    Require(c.planes >= 1, "planes", "need at least 1 plane, not 0");
    Require(c.planes <= 64,
            "planes",
            std::to_string(c.planes) + " planes: a NIC has at most 64 ports, one per plane");
    Require(c.hostsPerLeaf >= 1, "hostsPerLeaf", "need at least 1 host per leaf, not 0");
    Require(c.hostsPerLeaf <= 254,
            "hostsPerLeaf",
            std::to_string(c.hostsPerLeaf) + " hosts per leaf: at most 254 (one address octet)");
    ValidateShape(c);
    ParseRateOption("hostRate", c.hostRate);
    ParseRateOption("fabricRate", c.fabricRate);
    ParseRateOption("coreRate", c.coreRate);
    ParseRateOption("serverRate", c.serverRate);
    for (const auto& [field, text] : {std::make_pair("hostDelay", c.hostDelay),
                                      std::make_pair("fabricDelay", c.fabricDelay),
                                      std::make_pair("coreDelay", c.coreDelay),
                                      std::make_pair("serverDelay", c.serverDelay)})
    {
        // The point-to-point links need a positive delay (the fabric helper aborts on 0).
        Require(ParseTimeOption(field, text) > Time(0),
                field,
                "'" + text + "' is not a positive delay (links take time)");
    }
}

/// Transport, loss and failure.
void
ValidateFaults(const MetaRoceExperimentConfig& c)
{
    Require(FindMetaRoceTransport(c.transport) != nullptr,
            "transport",
            "'" + c.transport + "' is not " + MetaRoceTransportNames());
    Require(c.loss >= 0 && c.loss < 1,
            "loss",
            std::to_string(c.loss) + " is not a probability in [0, 1)");
    Require(c.lossPlane >= -1 && c.lossPlane < static_cast<int32_t>(c.planes),
            "lossPlane",
            std::to_string(c.lossPlane) + " is not -1 (all planes) or a plane below " +
                std::to_string(c.planes));
    Require(c.failure == "none" || c.failure == "plane" || c.failure == "spine" ||
                c.failure == "fabric-link" || c.failure == "host-link",
            "failure",
            "'" + c.failure + "' is not none, plane, spine, fabric-link or host-link");
    if (c.failure != "none")
    {
        Require(c.failurePlane < c.planes,
                "failurePlane",
                std::to_string(c.failurePlane) + " is not a plane below " +
                    std::to_string(c.planes));
        ParseTimeOption("failureAt", c.failureAt);
        if (!c.failureUntil.empty())
        {
            Require(ParseTimeOption("failureUntil", c.failureUntil) >
                        ParseTimeOption("failureAt", c.failureAt),
                    "failureUntil",
                    "must be later than --failureAt");
        }
    }
}

/// The flows workload: the size distribution (read now, so that a grid does not stop at its
/// first flows run) and the generator's parameters, in the generator's own ranges.
void
ValidateFlows(const MetaRoceExperimentConfig& c)
{
    Require(!c.cdfFile.empty(), "cdfFile", "the flows workload needs a size distribution file");
    try
    {
        ReadFlowSizeCdf(c.cdfFile);
    }
    catch (const std::invalid_argument& e)
    {
        Require(false, "cdfFile", e.what());
    }
    TypeId::AttributeInformation load;
    TypeId::LookupByName("ns3::MetaRoceFlowGenerator").LookupAttributeByName("Load", &load);
    std::ostringstream text;
    text << c.load;
    Require(load.checker->Check(DoubleValue(c.load)),
            "load",
            text.str() + " is not a load in [1e-06, 1] (a fraction of the line rate)");
    Require(c.flowsPerHost >= 1, "flowsPerHost", "need at least 1 flow per host");
}

/// The workload and its message sizes (the wire's limits).
void
ValidateWorkload(const MetaRoceExperimentConfig& c)
{
    Require(c.channels <= kMaxChannels,
            "channels",
            std::to_string(c.channels) + " is above " + std::to_string(kMaxChannels) +
                " (each channel is a stream or queue pair per peer on every host)");
    if (c.workload == "flows")
    {
        ValidateFlows(c);
    }
    else if (c.workload != "schedule") // a schedule is checked with the workload's inputs
    {
        MetaRoceCollective collective{};
        try
        {
            collective = ParseCollective(c.workload);
        }
        catch (const std::invalid_argument& e)
        {
            Require(false, "workload", e.what());
        }
        Require(collective != MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING ||
                    (c.hosts & (c.hosts - 1)) == 0,
                "hosts",
                "allreduce-hd needs a power-of-two number of hosts, not " +
                    std::to_string(c.hosts));
        Require(c.messageBytes >= 1, "messageBytes", "need at least 1 byte, not 0");
        const uint32_t used = MetaRoceChannels(c.transport, c.channels, c.planes);
        Require(c.messageBytes >= used,
                "messageBytes",
                std::to_string(c.messageBytes) + " bytes cannot be split over " +
                    std::to_string(used) + " channels");
        // Each channel's share is split into a block per rank (MetaRoceCollectiveHelper).
        Require(!IsBlocked(collective) || c.messageBytes / used >= c.hosts,
                "messageBytes",
                std::to_string(c.messageBytes) + " bytes over " + std::to_string(used) +
                    " channels leave " + std::to_string(c.messageBytes / used) +
                    " per channel, less than one byte for each of the " + std::to_string(c.hosts) +
                    " ranks of " + c.workload);
    }
    // A message's length travels in 32 bits (MetaRoCE, spec 5.2) or 31 (RoCEv2, spec 10.2).
    const uint64_t maxMessage = c.transport == "metaroce" ? kMaxMessageBytes : 2147483648ULL;
    Require(c.messageBytes <= maxMessage,
            "messageBytes",
            std::to_string(c.messageBytes) + " is past the largest message " + c.transport +
                " carries (" + std::to_string(maxMessage) + " bytes)");
    ValidateWorkloadInputs(c);
    ValidateJobs(c);
}

/// Seeds, outputs, time limits and the attribute strings.
void
ValidateRun(const MetaRoceExperimentConfig& c)
{
    Require(c.repetitions >= 1, "repetitions", "need at least 1 repetition, not 0");
    Require(c.seed >= 1, "seed", "0 is not a seed: ns-3's generator takes 1..4294967295");
    ParseTimeOption("throughputInterval", c.throughputInterval);
    ValidateOutputPrefix("pcap", c.pcap);
    ValidateOutputPrefix("output", c.output);
    Require(!c.pcapSwitches || !c.pcap.empty(), "pcapSwitches", "captures nothing without --pcap");
    Require(ParseTimeOption("stopTime", c.stopTime) > Time(0), "stopTime", "must be positive");
    ParseSchedulerOption("scheduler", c.scheduler);
    Require(MetaRoceLinkHelper::GetDeviceTypeProblem(c.device).empty(),
            "device",
            MetaRoceLinkHelper::GetDeviceTypeProblem(c.device));
    ParseHostRanks("partition", c.partition, c.hosts);
    if (c.failure != "none")
    {
        Require(ParseTimeOption("failureAt", c.failureAt) < ParseTimeOption("stopTime", c.stopTime),
                "failureAt",
                "'" + c.failureAt + "' is not before --stopTime=" + c.stopTime);
    }
}

/// Capture files are all open at once (ns-3's PcapHelper aborts when one cannot be opened).
void
ValidateCaptures(const MetaRoceExperimentConfig& c, const MetaRoceFabricShape& shape)
{
    if (c.pcap.empty())
    {
        return;
    }
    // One per host port; with --pcapSwitches one per switch port too (a host link's leaf end
    // and both ends of every other link).
    const double switchPorts = 2.0 * shape.Links() - c.hosts;
    ValidateOpenFiles("pcap", c.planes * (c.hosts + (c.pcapSwitches ? switchPorts : 0.0)));
}

/// A failure's spine, leaf or host must exist (as ScheduleFailure() checks once built).
void
ValidateFailureIndex(const MetaRoceExperimentConfig& c)
{
    const MetaRoceFabricShape shape = ShapeOf(c);
    const auto within = [](const std::string& field, const char* kind, uint32_t i, uint32_t n) {
        Require(i < n,
                field,
                std::string(kind) + " " + std::to_string(i) + " of " + std::to_string(n));
    };
    if (c.failure == "spine")
    {
        within("failureIndex", "spine", c.failureIndex, shape.Spines());
    }
    else if (c.failure == "fabric-link")
    {
        within("failureIndex", "leaf", c.failureIndex, shape.Leaves());
        within("failureSpine", "spine", c.failureSpine, shape.Spines());
    }
    else if (c.failure == "host-link")
    {
        within("failureIndex", "host", c.failureIndex, c.hosts);
    }
}

/// The transport's own NIC attributes (what MetaRoceExperiment sets before the user's).
MetaRoceAttributeList
TransportNicSettings(const MetaRoceExperimentConfig& c)
{
    MetaRoceAttributeList settings;
    const MetaRoceTransportInfo* transport = FindMetaRoceTransport(c.transport);
    if (transport != nullptr && transport->rateControl != nullptr)
    {
        settings.emplace_back("RoceRateControl", transport->rateControl);
    }
    const uint32_t channels = MetaRoceExperimentWorkload::StreamsOf(c);
    if (MetaRoceExperimentWorkload::TransportOf(c) == metaroce::Transport::MetaRoce &&
        channels > 16)
    {
        settings.emplace_back("Streams", std::to_string(channels));
    }
    return settings;
}

/// An attribute string as a message names it (the defaults, when empty: --ns3::Type::Name=).
std::string
Given(const std::string& attributes)
{
    return attributes.empty() ? "none given, the attribute defaults" : "'" + attributes + "'";
}

/**
 * The NIC and switch attributes against the model's rules across fields, which the NIC
 * would meet as a fatal error at its first connection and the switch when it starts; and a
 * switch buffer that holds at least one packet. A problem the transport's settings alone have
 * is the host links' (the engine's port rate range).
 */
void
ValidateModel(const MetaRoceExperimentConfig& c)
{
    const uint64_t rate = ParseRateOption("hostRate", c.hostRate).GetBitRate();
    const metaroce::Transport transport = MetaRoceExperimentWorkload::TransportOf(c);
    const std::string own =
        MetaRoceNic::GetConfigProblem(TransportNicSettings(c), c.planes, rate, transport);
    Require(own.empty(), "hostRate", "'" + c.hostRate + "': " + own);
    const MetaRoceAttributeList nic = c.NicSettings();
    const std::string nicProblem = MetaRoceNic::GetConfigProblem(nic, c.planes, rate, transport);
    Require(nicProblem.empty(), "nicAttributes", Given(c.nicAttributes) + ": " + nicProblem);
    const uint64_t streams = DynamicCast<const UintegerValue>(
                                 GetSettledAttribute(MetaRoceNic::GetTypeId(), "Streams", nic))
                                 ->Get();
    const uint32_t channels = MetaRoceExperimentWorkload::StreamsOf(c);
    Require(transport != metaroce::Transport::MetaRoce || c.workload == "flows" ||
                channels <= streams,
            "nicAttributes",
            Given(c.nicAttributes) + ": " + std::to_string(channels) +
                " channels (--channels, or one per plane; two per channel for allreduce-tree) "
                "need as many MetaRoCE streams; the NICs' Streams attribute is " +
                std::to_string(streams));
    const MetaRoceAttributeList sw = c.SwitchSettings();
    const std::string switchProblem = MetaRoceSwitch::GetConfigProblem(sw);
    Require(switchProblem.empty(),
            "switchAttributes",
            Given(c.switchAttributes) + ": " + switchProblem);
    // IPv4, UDP and the largest transport header over the MTU's payload (switch sizes are IPv4).
    constexpr uint64_t kHeaderBytes = 20 + 8 + 64;
    const uint64_t mtu =
        DynamicCast<const UintegerValue>(GetSettledAttribute(MetaRoceNic::GetTypeId(), "Mtu", nic))
            ->Get();
    const uint64_t buffer = DynamicCast<const UintegerValue>(
                                GetSettledAttribute(MetaRoceSwitch::GetTypeId(), "BufferSize", sw))
                                ->Get();
    Require(buffer >= mtu + kHeaderBytes,
            "switchAttributes",
            "BufferSize (" + std::to_string(buffer) +
                ") cannot hold one packet: the NICs' Mtu of " + std::to_string(mtu) +
                " bytes and its headers need " + std::to_string(mtu + kHeaderBytes));
}

/// RECVs every rank posts up front per channel and repetition, and the host pairs that talk.
std::pair<double, double>
CollectiveCounts(MetaRoceCollective collective, double n, double treeChunks)
{
    switch (collective)
    {
    case MetaRoceCollective::ALL_REDUCE_RING:
        return {2 * (n - 1), n == 2 ? 1 : n};
    case MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING:
        return {2 * std::log2(n), n / 2 * std::log2(n)};
    case MetaRoceCollective::ALL_TO_ALL:
        return {n - 1, n * (n - 1) / 2};
    case MetaRoceCollective::PERMUTATION:
        return {1, n};
    case MetaRoceCollective::INCAST:
        return {(n - 1) / n, n - 1};
    case MetaRoceCollective::ALL_GATHER_RING:
    case MetaRoceCollective::REDUCE_SCATTER_RING:
        return {n - 1, n == 2 ? 1 : n};
    case MetaRoceCollective::ALL_TO_ALLV:
        return {n - 1, n * (n - 1) / 2};
    case MetaRoceCollective::ALL_REDUCE_TREE:
        // Per chunk: up to two children and a parent in each tree; twice as many pairs.
        return {6 * std::ceil(treeChunks), 2 * n};
    }
    return {0, 0};
}

/// The memory the run needs, from the objects its size makes numerous.
void
ValidateMemory(const MetaRoceExperimentConfig& c)
{
    if (c.workload == "schedule")
    {
        return; // its collectives come and go; not estimated
    }
    MetaRoceMemoryEstimate m;
    const double n = c.hosts;
    const double channels = MetaRoceExperimentWorkload::ChannelsOf(c);
    const bool metaroce =
        MetaRoceExperimentWorkload::TransportOf(c) == metaroce::Transport::MetaRoce;
    m.hostPorts = n * c.planes;
    // The sizes that make the counts, the one furthest above its default named first.
    std::vector<std::tuple<double, std::string, uint64_t>> sizes{{n / 16, "hosts", c.hosts}};
    if (c.workload == "flows")
    {
        m.messages = n * c.flowsPerHost;
        m.queuePairs = 2 * std::min(m.messages, n * (n - 1) / 2);
        sizes.emplace_back(c.flowsPerHost / 20.0, "flowsPerHost", c.flowsPerHost);
    }
    else
    {
        const double treeChunks = c.messageBytes / channels / 2 / double(c.treeChunkBytes);
        const auto [receives, pairs] =
            CollectiveCounts(ParseCollective(c.workload), n, std::max(1.0, treeChunks));
        m.receives = receives * n * channels * c.repetitions;
        m.messages = m.receives;
        m.queuePairs = 2 * pairs * (metaroce ? 1 : channels);
        m.streams = metaroce ? 2 * pairs * (channels - 1) : 0;
        sizes.emplace_back(channels / c.planes, c.channels ? "channels" : "planes", channels);
        sizes.emplace_back(c.repetitions, "repetitions", c.repetitions);
    }
    std::stable_sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) > std::get<0>(b);
    });
    std::string what;
    for (const auto& [ratio, option, value] : sizes)
    {
        what += (what.empty()                          ? "--"
                 : what.find('(') == std::string::npos ? " (with --"
                                                       : ", --") +
                option + "=" + std::to_string(value);
    }
    m.Check(what + "): " + c.workload + " over " + c.transport);
}

/// The rail fabric's options given without --topology=rail.
std::vector<std::string>
UnusedRailOptions(const MetaRoceExperimentConfig& c, const MetaRoceExperimentConfig& d)
{
    std::vector<std::string> unused;
    const std::string notRail = " has no effect without --topology=rail";
    if (c.topology != "rail")
    {
        for (const auto& [given, text] :
             {std::make_pair(c.railGpus != d.railGpus, "--railGpus=" + std::to_string(c.railGpus)),
              std::make_pair(c.serverRate != d.serverRate, "--serverRate=" + c.serverRate),
              std::make_pair(c.serverDelay != d.serverDelay, "--serverDelay=" + c.serverDelay)})
        {
            if (given)
            {
                unused.push_back(text + notRail);
            }
        }
    }
    return unused;
}

} // namespace

void
MetaRoceExperimentConfig::Validate() const
{
    ValidateFabric(*this);
    ValidateFaults(*this);
    ValidateWorkload(*this);
    ValidateRun(*this);
    ValidateFailureIndex(*this);
    ValidateCaptures(*this, ShapeOf(*this));
    ValidateModel(*this);
    ValidateMemory(*this);
}

std::vector<std::string>
MetaRoceExperimentConfig::UnusedOptions(const MetaRoceExperimentConfig& d) const
{
    std::vector<std::string> unused;
    // A field given (other than `d`'s) where `used` is false, with what it needs.
    const auto check = [&unused](bool given,
                                 bool used,
                                 const std::string& option,
                                 const std::string& value,
                                 const std::string& needs) {
        if (given && !used)
        {
            unused.push_back("--" + option + "=" + value + " has no effect " + needs);
        }
    };
    const std::string noFailure = "without --failure";
    check(failurePlane != d.failurePlane,
          failure != "none",
          "failurePlane",
          std::to_string(failurePlane),
          noFailure);
    check(failureIndex != d.failureIndex,
          failure != "none" && failure != "plane",
          "failureIndex",
          std::to_string(failureIndex),
          "without --failure=spine, fabric-link or host-link (the failure it names)");
    check(failureSpine != d.failureSpine,
          failure == "fabric-link",
          "failureSpine",
          std::to_string(failureSpine),
          "without --failure=fabric-link (its spine end)");
    check(failureAt != d.failureAt, failure != "none", "failureAt", failureAt, noFailure);
    check(failureUntil != d.failureUntil,
          failure != "none",
          "failureUntil",
          failureUntil,
          noFailure);
    const bool flows = workload == "flows";
    const std::string noFlows = "without the flows workload (--workload or --workloads=flows)";
    check(cdfFile != d.cdfFile, flows, "cdfFile", cdfFile, noFlows);
    std::ostringstream loadText;
    loadText << load;
    check(load != d.load, flows, "load", loadText.str(), noFlows);
    check(flowsPerHost != d.flowsPerHost,
          flows,
          "flowsPerHost",
          std::to_string(flowsPerHost),
          noFlows);
    const std::string onFlows = "on the flows workload (its sizes and count come from --cdfFile "
                                "and --flowsPerHost)";
    check(messageBytes != d.messageBytes,
          !flows,
          "messageBytes",
          std::to_string(messageBytes),
          onFlows);
    check(channels != d.channels, !flows, "channels", std::to_string(channels), onFlows);
    check(repetitions != d.repetitions,
          !flows,
          "repetitions",
          std::to_string(repetitions),
          onFlows);
    check(lossPlane != d.lossPlane,
          loss > 0,
          "lossPlane",
          std::to_string(lossPlane),
          "without loss (--loss or --losses above 0)");
    const bool fatTree = topology == "fat-tree";
    const std::string leafSpine = "on a leaf-spine (--topology=fat-tree has cores and pods)";
    check(leavesPerPod != d.leavesPerPod,
          fatTree,
          "leavesPerPod",
          std::to_string(leavesPerPod),
          leafSpine);
    check(cores != d.cores, fatTree, "cores", std::to_string(cores), leafSpine);
    check(coreRate != d.coreRate, fatTree, "coreRate", coreRate, leafSpine);
    check(coreDelay != d.coreDelay, fatTree, "coreDelay", coreDelay, leafSpine);
    for (const auto& more :
         {UnusedRailOptions(*this, d), UnusedWorkloadInputs(*this, d), UnusedJobOptions(*this, d)})
    {
        unused.insert(unused.end(), more.begin(), more.end());
    }
    return unused;
}

void
MetaRoceExperimentConfig::ValidateAsGiven(const MetaRoceExperimentConfig& defaults) const
{
    Validate();
    const std::vector<std::string> unused = UnusedOptions(defaults);
    if (!unused.empty())
    {
        throw std::invalid_argument(unused.front());
    }
}

MetaRoceAttributeList
MetaRoceExperimentConfig::NicSettings() const
{
    MetaRoceAttributeList settings = TransportNicSettings(*this);
    for (auto& setting : ParseAttributeOption("nicAttributes", nicAttributes, "ns3::MetaRoceNic"))
    {
        settings.push_back(std::move(setting));
    }
    return settings;
}

MetaRoceAttributeList
MetaRoceExperimentConfig::SwitchSettings() const
{
    const MetaRoceTransportInfo* info = FindMetaRoceTransport(transport);
    MetaRoceAttributeList settings{{"PfcEnabled", info != nullptr && info->pfc ? "true" : "false"}};
    for (auto& setting :
         ParseAttributeOption("switchAttributes", switchAttributes, "ns3::MetaRoceSwitch"))
    {
        settings.push_back(std::move(setting));
    }
    return settings;
}

} // namespace ns3
