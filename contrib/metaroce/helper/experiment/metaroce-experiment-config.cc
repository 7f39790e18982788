#include "metaroce-experiment-config.h"

#include "metaroce-options.h"

#include "ns3/command-line.h"
#include "ns3/metaroce-collective-schedule.h"

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

} // namespace

void
MetaRoceExperimentConfig::Validate() const
{
    Require(topology == "leaf-spine" || topology == "fat-tree",
            "topology",
            "'" + topology + "' is not leaf-spine or fat-tree");
    Require(hosts >= 2, "hosts", "need at least 2 hosts, not " + std::to_string(hosts));
    Require(planes >= 1, "planes", "need at least 1 plane");
    Require(hostsPerLeaf >= 1, "hostsPerLeaf", "need at least 1 host per leaf");
    ParseRateOption("hostRate", hostRate);
    ParseRateOption("fabricRate", fabricRate);
    ParseRateOption("coreRate", coreRate);
    ParseTimeOption("hostDelay", hostDelay);
    ParseTimeOption("fabricDelay", fabricDelay);
    ParseTimeOption("coreDelay", coreDelay);
    Require(transport == "metaroce" || transport == "rocev2" || transport == "rocev2-pfc" ||
                transport == "rocev2-nocc",
            "transport",
            "'" + transport + "' is not metaroce, rocev2, rocev2-pfc or rocev2-nocc");
    Require(loss >= 0 && loss < 1,
            "loss",
            std::to_string(loss) + " is not a probability in [0, 1)");
    Require(lossPlane >= -1 && lossPlane < static_cast<int32_t>(planes),
            "lossPlane",
            std::to_string(lossPlane) + " is not -1 (all planes) or a plane below " +
                std::to_string(planes));
    Require(failure == "none" || failure == "plane" || failure == "spine" ||
                failure == "fabric-link" || failure == "host-link",
            "failure",
            "'" + failure + "' is not none, plane, spine, fabric-link or host-link");
    if (failure != "none")
    {
        Require(failurePlane < planes,
                "failurePlane",
                std::to_string(failurePlane) + " is not a plane below " + std::to_string(planes));
        ParseTimeOption("failureAt", failureAt);
        if (!failureUntil.empty())
        {
            Require(ParseTimeOption("failureUntil", failureUntil) >
                        ParseTimeOption("failureAt", failureAt),
                    "failureUntil",
                    "must be later than --failureAt");
        }
    }
    if (workload == "flows")
    {
        Require(!cdfFile.empty(), "cdfFile", "the flows workload needs a size distribution file");
        Require(load > 0 && load <= 1, "load", std::to_string(load) + " is not in (0, 1]");
        Require(flowsPerHost >= 1, "flowsPerHost", "need at least 1 flow per host");
    }
    else
    {
        const MetaRoceCollective collective = ParseCollective(workload);
        Require(collective != MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING ||
                    (hosts & (hosts - 1)) == 0,
                "hosts",
                "allreduce-hd needs a power-of-two number of hosts, not " + std::to_string(hosts));
        Require(messageBytes >= 1, "messageBytes", "need at least 1 byte");
    }
    Require(repetitions >= 1, "repetitions", "need at least 1 repetition");
    Require(channels <= 65535, "channels", std::to_string(channels) + " is above 65535");
    ParseTimeOption("throughputInterval", throughputInterval);
    ValidatePcapPrefix("pcap", pcap);
    Require(!pcapSwitches || !pcap.empty(), "pcapSwitches", "captures nothing without --pcap");
    Require(ParseTimeOption("stopTime", stopTime) > Time(0), "stopTime", "must be positive");
    ParseSchedulerOption("scheduler", scheduler);
}

void
MetaRoceExperimentConfig::AddOptions(CommandLine& cmd, bool withGridFields)
{
    cmd.AddValue("topology", "fabric topology: leaf-spine or fat-tree", topology);
    cmd.AddValue("hosts", "hosts (one NIC each)", hosts);
    cmd.AddValue("planes", "planes (NIC ports per host, disjoint networks)", planes);
    cmd.AddValue("hostsPerLeaf", "hosts per leaf switch", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches per plane (leaf-spine) or per pod (fat-tree)", spines);
    cmd.AddValue("leavesPerPod", "fat-tree: leaves per pod", leavesPerPod);
    cmd.AddValue("cores", "fat-tree: core switches per plane", cores);
    cmd.AddValue("hostRate", "host-leaf link rate", hostRate);
    cmd.AddValue("fabricRate", "leaf-spine link rate", fabricRate);
    cmd.AddValue("coreRate", "spine-core link rate (fat-tree)", coreRate);
    cmd.AddValue("hostDelay", "host-leaf link delay", hostDelay);
    cmd.AddValue("fabricDelay", "leaf-spine link delay", fabricDelay);
    cmd.AddValue("coreDelay", "spine-core link delay (fat-tree)", coreDelay);
    cmd.AddValue("nicAttributes", "extra NIC attributes: Name=Value;Name=Value", nicAttributes);
    cmd.AddValue("switchAttributes", "extra switch attributes: Name=Value;...", switchAttributes);
    if (withGridFields)
    {
        cmd.AddValue("transport", "metaroce, rocev2, rocev2-pfc or rocev2-nocc", transport);
        cmd.AddValue("loss", "packet loss probability at every link end", loss);
        cmd.AddValue("workload",
                     "allreduce-ring, allreduce-hd, alltoall, permutation, incast or flows",
                     workload);
    }
    cmd.AddValue("lossPlane", "-1: loss on every plane; p: on plane p only", lossPlane);
    cmd.AddValue("failure", "none, plane, spine, fabric-link or host-link", failure);
    cmd.AddValue("failurePlane", "plane of the failure", failurePlane);
    cmd.AddValue("failureIndex", "spine, leaf (fabric-link) or host (host-link)", failureIndex);
    cmd.AddValue("failureSpine", "spine end of a failed fabric-link", failureSpine);
    cmd.AddValue("failureAt", "when the failure happens", failureAt);
    cmd.AddValue("failureUntil", "when it is repaired (empty: never)", failureUntil);
    cmd.AddValue("messageBytes", "bytes per rank (collectives) or per message", messageBytes);
    cmd.AddValue("channels", "channels (0: one per plane)", channels);
    cmd.AddValue("repetitions", "times the collective runs back to back", repetitions);
    cmd.AddValue("cdfFile",
                 "flows: size distribution file (bytes cumulative-probability)",
                 cdfFile);
    cmd.AddValue("load", "flows: offered load per host, fraction of its line rate", load);
    cmd.AddValue("flowsPerHost", "flows: flows each host starts", flowsPerHost);
    cmd.AddValue("seed", "random seed", seed);
    cmd.AddValue("run", "run number (independent replications)", run);
    cmd.AddValue("throughputInterval", "> 0: delivered bytes per interval", throughputInterval);
    cmd.AddValue("output", "file prefix for <output>.json and <output>-*.csv", output);
    cmd.AddValue("pcap",
                 "capture prefix (empty: no capture): a pcap file per host port, "
                 "PREFIX-host<h>-plane<p>.pcap (PPP/IPv4/UDP, ns timestamps; a grid run adds "
                 "-<workload>-<transport>-loss<percent> to PREFIX); the directory must exist",
                 pcap);
    cmd.AddValue("pcapSwitches",
                 "with --pcap: every switch port too, PREFIX-<leaf|spine|core><i>-plane<p>-"
                 "port<k>.pcap",
                 pcapSwitches);
    cmd.AddValue("progress",
                 "print a progress line on stderr every few seconds: simulated time, bytes "
                 "delivered, share of the workload done, wall time and an estimate of the rest",
                 progress);
    cmd.AddValue("scheduler",
                 "ns-3 event scheduler (results do not depend on it, speed does)",
                 scheduler);
    cmd.AddValue("stopTime", "simulated-time limit", stopTime);
}

} // namespace ns3
