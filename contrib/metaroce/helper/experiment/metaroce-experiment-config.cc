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

/// The fabric's options. Every option checks its syntax and its field type's range only; the
/// model's bounds are Validate()'s, so that a C++ program and Python (which sets the fields
/// directly) report a bad value with the same message.
void
AddFabricOptions(CommandLine& cmd, MetaRoceExperimentConfig& c)
{
    AddStringOption(cmd, "topology", "fabric topology: leaf-spine, fat-tree or rail", c.topology);
    AddIntegerOption(cmd, "hosts", "hosts (one NIC each)", c.hosts);
    AddIntegerOption(cmd, "planes", "planes (NIC ports per host, disjoint networks)", c.planes);
    AddIntegerOption(cmd,
                     "hostsPerLeaf",
                     "hosts per leaf switch (rail: servers per rail leaf)",
                     c.hostsPerLeaf);
    AddIntegerOption(cmd, "railGpus", "rail: hosts (GPUs) per server, = rails", c.railGpus);
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
    AddStringOption(cmd, "serverRate", "rail: intra-server (NVLink-like) link rate", c.serverRate);
    AddStringOption(cmd, "serverDelay", "rail: intra-server link delay", c.serverDelay);
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
    AddBoolOption(cmd,
                  "qpPerFlow",
                  "flows: each flow on its own queue pair or connection, released when it "
                  "completes (default: one per host pair, shared by its flows in turn)",
                  c.qpPerFlow);
    AddStringOption(cmd,
                    "schedule",
                    "workload schedule: a JSON file of groups, collectives and compute gaps "
                    "(doc/schedules.md)",
                    c.schedule);
    AddStringOption(cmd,
                    "trafficMatrix",
                    "alltoallv: file of N rows of N byte counts (row r: what rank r sends)",
                    c.trafficMatrix);
    AddStringOption(cmd,
                    "skew",
                    "alltoallv: zipf:S, a mixture-of-experts router with Zipf(S) expert "
                    "popularity (0: uniform)",
                    c.skew);
    AddIntegerOption(cmd, "experts", "skew: experts (0: one per host)", c.experts);
    AddIntegerOption(cmd, "topK", "skew: experts per token", c.topK);
    AddIntegerOption(cmd, "tokenBytes", "skew: bytes per token and expert", c.tokenBytes);
    AddIntegerOption(cmd,
                     "treeChunkBytes",
                     "allreduce-tree: bytes per pipeline chunk",
                     c.treeChunkBytes);
    AddIntegerOption(cmd,
                     "stragglers",
                     "collectives: ranks that start late (a seeded choice)",
                     c.stragglers);
    AddStringOption(cmd, "stragglerDelay", "how late the stragglers start", c.stragglerDelay);
    AddIntegerOption(cmd,
                     "jobs",
                     "collectives: jobs sharing the fabric, each on hosts/jobs hosts",
                     c.jobs);
    AddStringOption(cmd,
                    "placement",
                    "jobs' hosts: packed (consecutive), spread (round robin) or random (seeded)",
                    c.placement);
    AddIntegerOption(cmd, "soloJob", "with --jobs: -1 all; j: job j alone on its hosts", c.soloJob);
    AddStringOption(cmd,
                    "jobWorkloads",
                    "with --jobs: each job's collective, a,b,... (default: --workload)",
                    c.jobWorkloads);
    AddStringOption(cmd,
                    "jobBytes",
                    "with --jobs: each job's bytes per rank, n,n,... (default: --messageBytes)",
                    c.jobBytes);
}

/// Seeds, outputs and limits.
void
AddRunOptions(CommandLine& cmd, MetaRoceExperimentConfig& c)
{
    AddIntegerOption(cmd, "seed", "random seed (ns-3 needs >= 1)", c.seed);
    // MetaRoceExperiment sets these from its own fields: ns-3's --RngSeed and the others would
    // be overridden.
    RegisterOwnGlobal(cmd, "RngSeed", "seed");
    RegisterOwnGlobal(cmd, "RngRun", "run");
    RegisterOwnGlobal(cmd, "SchedulerType", "scheduler");
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
    AddStringOption(cmd,
                    "device",
                    "device of every link: ns3::MetaRoceNetDevice (the module's, fast) or "
                    "ns3::PointToPointNetDevice (ns-3's own); results do not depend on it",
                    c.device);
    AddStringOption(cmd, "stopTime", "simulated-time limit", c.stopTime);
    AddStringOption(cmd,
                    "partition",
                    "distributed runs (mpirun): 'leaf' (blocks of leaves with their hosts, spines "
                    "round robin) or a rank per host, '0,0,1,1,...'",
                    c.partition);
}

} // namespace

bool
MetaRoceExperimentConfig::ParseOptions(int argc, char* argv[], const std::string& program)
{
    const MetaRoceExperimentConfig defaults = *this;
    CommandLine cmd(program);
    AddOptions(cmd, true);
    if (!ParseCommandLine(cmd, argc, argv, program))
    {
        return false;
    }
    try
    {
        ValidateAsGiven(defaults);
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
                        "allreduce-ring, allreduce-hd, allreduce-tree, allgather-ring, "
                        "reducescatter-ring, alltoall, alltoallv, permutation, incast, flows or "
                        "schedule",
                        workload);
    }
    AddWorkloadOptions(cmd, *this);
    AddRunOptions(cmd, *this);
}

} // namespace ns3
