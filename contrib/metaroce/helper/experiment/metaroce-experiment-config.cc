#include "metaroce-experiment-config.h"

#include "metaroce-command-line.h"
#include "metaroce-options.h"
#include "metaroce-transports.h"

#include "ns3/command-line.h"
#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-config-attributes.h"
#include "ns3/metaroce-config.h"
#include "ns3/metaroce-fabric-shape.h"
#include "ns3/string.h"

#include <iostream>
#include <stdexcept>

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

/// The fabric shape the experiment will build (MetaRoceExperiment::BuildFabric), checked
/// without the fabric helper's abort.
void
ValidateShape(const MetaRoceExperimentConfig& c)
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
    const std::string problem = shape.Problem();
    Require(problem.empty(), c.topology == "fat-tree" ? "topology=fat-tree" : "spines", problem);
}

/**
 * The attribute strings, checked name by name (ParseAttributeOption), then the NIC's engine
 * settings among them applied to a default MetaRoceConfig through the config-field table and
 * checked as a whole (MetaRoceConfig::Validate: rules across fields, such as RtoMax >= RtoMin),
 * which the NIC would otherwise meet as an abort at its first connection.
 */
void
ValidateAttributes(const MetaRoceExperimentConfig& c)
{
    const auto nic = ParseAttributeOption("nicAttributes", c.nicAttributes, "ns3::MetaRoceNic");
    ParseAttributeOption("switchAttributes", c.switchAttributes, "ns3::MetaRoceSwitch");
    metaroce::MetaRoceConfig engine;
    engine.ports = static_cast<uint16_t>(c.planes);
    const TypeId tid = TypeId::LookupByName("ns3::MetaRoceNic");
    for (const auto& [name, value] : nic)
    {
        for (const auto& field : metaroce::MetaRoceConfigFields())
        {
            TypeId::AttributeInformation info;
            double v = 0;
            if (name == field.attribute && tid.LookupAttributeByName(name, &info))
            {
                const Ptr<AttributeValue> parsed =
                    info.checker->CreateValidValue(StringValue(value));
                if (parsed && ReadConfigFieldValue(field.unit, *parsed, v))
                {
                    field.set(engine, v);
                }
            }
        }
    }
    try
    {
        engine.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        Require(false, "nicAttributes", "'" + c.nicAttributes + "': " + e.what());
    }
}

/// The fabric: topology, sizes within what the fabric helper builds, link rates and delays.
void
ValidateFabric(const MetaRoceExperimentConfig& c)
{
    Require(c.topology == "leaf-spine" || c.topology == "fat-tree",
            "topology",
            "'" + c.topology + "' is not leaf-spine or fat-tree");
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
    for (const auto& [field, text] : {std::make_pair("hostDelay", c.hostDelay),
                                      std::make_pair("fabricDelay", c.fabricDelay),
                                      std::make_pair("coreDelay", c.coreDelay)})
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
        Require(!c.cdfFile.empty(), "cdfFile", "the flows workload needs a size distribution file");
        Require(c.load > 0 && c.load <= 1, "load", std::to_string(c.load) + " is not in (0, 1]");
        Require(c.flowsPerHost >= 1, "flowsPerHost", "need at least 1 flow per host");
    }
    else
    {
        const MetaRoceCollective collective = ParseCollective(c.workload);
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
    }
    // A message's length travels in 32 bits (MetaRoCE, spec 3.3) or 31 (RoCEv2, spec 8.2).
    const uint64_t maxMessage = c.transport == "metaroce" ? kMaxMessageBytes : 2147483648ULL;
    Require(c.messageBytes <= maxMessage,
            "messageBytes",
            std::to_string(c.messageBytes) + " is past the largest message " + c.transport +
                " carries (" + std::to_string(maxMessage) + " bytes)");
}

/// Seeds, outputs, time limits and the attribute strings.
void
ValidateRun(const MetaRoceExperimentConfig& c)
{
    Require(c.repetitions >= 1, "repetitions", "need at least 1 repetition, not 0");
    Require(c.seed >= 1, "seed", "0 is not a seed: ns-3's generator takes 1..4294967295");
    ParseTimeOption("throughputInterval", c.throughputInterval);
    ValidatePcapPrefix("pcap", c.pcap);
    Require(!c.pcapSwitches || !c.pcap.empty(), "pcapSwitches", "captures nothing without --pcap");
    Require(ParseTimeOption("stopTime", c.stopTime) > Time(0), "stopTime", "must be positive");
    ParseSchedulerOption("scheduler", c.scheduler);
    ParseHostRanks("partition", c.partition, c.hosts);
    ValidateAttributes(c);
    if (c.failure != "none")
    {
        Require(ParseTimeOption("failureAt", c.failureAt) < ParseTimeOption("stopTime", c.stopTime),
                "failureAt",
                "'" + c.failureAt + "' is not before --stopTime=" + c.stopTime);
    }
}

/// The fabric's options. Every option checks its syntax and its field type's range only; the
/// model's bounds are Validate()'s, so that a C++ program and Python (which sets the fields
/// directly) report a bad value with the same message.
void
AddFabricOptions(CommandLine& cmd, MetaRoceExperimentConfig& c)
{
    AddStringOption(cmd, "topology", "fabric topology: leaf-spine or fat-tree", c.topology);
    AddIntegerOption(cmd, "hosts", "hosts (one NIC each)", c.hosts);
    AddIntegerOption(cmd, "planes", "planes (NIC ports per host, disjoint networks)", c.planes);
    AddIntegerOption(cmd, "hostsPerLeaf", "hosts per leaf switch", c.hostsPerLeaf);
    AddIntegerOption(cmd,
                     "spines",
                     "spine switches per plane (leaf-spine) or per pod (fat-tree)",
                     c.spines);
    AddIntegerOption(cmd, "leavesPerPod", "fat-tree: leaves per pod", c.leavesPerPod);
    AddIntegerOption(cmd, "cores", "fat-tree: core switches per plane", c.cores);
    AddStringOption(cmd, "hostRate", "host-leaf link rate", c.hostRate);
    AddStringOption(cmd, "fabricRate", "leaf-spine link rate", c.fabricRate);
    AddStringOption(cmd, "coreRate", "spine-core link rate (fat-tree)", c.coreRate);
    AddStringOption(cmd, "hostDelay", "host-leaf link delay", c.hostDelay);
    AddStringOption(cmd, "fabricDelay", "leaf-spine link delay", c.fabricDelay);
    AddStringOption(cmd, "coreDelay", "spine-core link delay (fat-tree)", c.coreDelay);
    AddStringOption(cmd,
                    "nicAttributes",
                    "extra NIC attributes: Name=Value;Name=Value",
                    c.nicAttributes);
    AddStringOption(cmd,
                    "switchAttributes",
                    "extra switch attributes: Name=Value;...",
                    c.switchAttributes);
}

/// Loss, failures and the workload.
void
AddWorkloadOptions(CommandLine& cmd, MetaRoceExperimentConfig& c)
{
    AddIntegerOption(cmd, "lossPlane", "-1: loss on every plane; p: on plane p only", c.lossPlane);
    AddStringOption(cmd, "failure", "none, plane, spine, fabric-link or host-link", c.failure);
    AddIntegerOption(cmd, "failurePlane", "plane of the failure", c.failurePlane);
    AddIntegerOption(cmd,
                     "failureIndex",
                     "spine, leaf (fabric-link) or host (host-link)",
                     c.failureIndex);
    AddIntegerOption(cmd, "failureSpine", "spine end of a failed fabric-link", c.failureSpine);
    AddStringOption(cmd, "failureAt", "when the failure happens", c.failureAt);
    AddStringOption(cmd, "failureUntil", "when it is repaired (empty: never)", c.failureUntil);
    AddIntegerOption(cmd,
                     "messageBytes",
                     "bytes per rank (collectives) or per message",
                     c.messageBytes);
    AddIntegerOption(cmd,
                     "channels",
                     "channels: queue pairs (RoCEv2) or streams (MetaRoCE) per host pair (0: one "
                     "per plane; rocev2-meta400: 4 per plane)",
                     c.channels);
    AddIntegerOption(cmd, "repetitions", "times the collective runs back to back", c.repetitions);
    AddStringOption(cmd,
                    "cdfFile",
                    "flows: size distribution file (bytes cumulative-probability)",
                    c.cdfFile);
    AddRealOption(cmd,
                  "load",
                  "flows: offered load per host, fraction of its line rate",
                  c.load,
                  -1e300,
                  1e300);
    AddIntegerOption(cmd, "flowsPerHost", "flows: flows each host starts", c.flowsPerHost);
}

/// Seeds, outputs and limits.
void
AddRunOptions(CommandLine& cmd, MetaRoceExperimentConfig& c)
{
    AddIntegerOption(cmd, "seed", "random seed (ns-3 needs >= 1)", c.seed);
    AddIntegerOption(cmd, "run", "run number (independent replications)", c.run);
    AddStringOption(cmd,
                    "throughputInterval",
                    "> 0: delivered bytes per interval",
                    c.throughputInterval);
    AddStringOption(cmd, "output", "file prefix for <output>.json and <output>-*.csv", c.output);
    AddStringOption(cmd,
                    "pcap",
                    "capture prefix (empty: no capture): a pcap file per host port, "
                    "PREFIX-host<h>-plane<p>.pcap (PPP/IPv4/UDP, ns timestamps; a grid run adds "
                    "-<workload>-<transport>-loss<percent> to PREFIX); the directory must exist",
                    c.pcap);
    AddBoolOption(cmd,
                  "pcapSwitches",
                  "with --pcap: every switch port too, PREFIX-<leaf|spine|core><i>-plane<p>-"
                  "port<k>.pcap",
                  c.pcapSwitches);
    AddBoolOption(cmd,
                  "progress",
                  "print a progress line on stderr every few seconds: simulated time, bytes "
                  "delivered, share of the workload done, wall time and an estimate of the rest",
                  c.progress);
    AddStringOption(cmd,
                    "scheduler",
                    "ns-3 event scheduler (results do not depend on it, speed does)",
                    c.scheduler);
    AddStringOption(cmd, "stopTime", "simulated-time limit", c.stopTime);
    AddStringOption(cmd,
                    "partition",
                    "distributed runs (mpirun): 'leaf' (blocks of leaves with their hosts, spines "
                    "round robin) or a rank per host, '0,0,1,1,...'",
                    c.partition);
}

} // namespace

void
MetaRoceExperimentConfig::Validate() const
{
    ValidateFabric(*this);
    ValidateFaults(*this);
    ValidateWorkload(*this);
    ValidateRun(*this);
}

bool
MetaRoceExperimentConfig::ParseOptions(int argc, char* argv[], const std::string& program)
{
    CommandLine cmd(program);
    AddOptions(cmd, true);
    if (!ParseCommandLine(cmd, argc, argv, program))
    {
        return false;
    }
    try
    {
        Validate();
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << program << ": " << e.what() << "\n";
        return false;
    }
    return true;
}

void
MetaRoceExperimentConfig::AddOptions(CommandLine& cmd, bool withGridFields)
{
    AddFabricOptions(cmd, *this);
    if (withGridFields)
    {
        AddStringOption(cmd, "transport", MetaRoceTransportNames(), transport);
        AddRealOption(cmd,
                      "loss",
                      "packet loss probability at every link end",
                      loss,
                      -1e300,
                      1e300);
        AddStringOption(cmd,
                        "workload",
                        "allreduce-ring, allreduce-hd, alltoall, permutation, incast or flows",
                        workload);
    }
    AddWorkloadOptions(cmd, *this);
    AddRunOptions(cmd, *this);
}

} // namespace ns3
