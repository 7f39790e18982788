/*
 * MetaRoceExperimentConfig: everything one experiment run needs - the fabric, the transport,
 * loss and failures, the workload and where the results go - as a plain struct, so a C++
 * example, a test or a Python script describes a run the same way and a sweep is a loop over
 * copies of it.
 *
 * Transports: metaroce and the RoCEv2 baselines rocev2 (NIC-style DCQCN), rocev2-paper (the
 * DCQCN paper's), rocev2-nocc (no congestion control), rocev2-pfc (NIC-style DCQCN and PFC) and
 * rocev2-meta400 (PFC, no DCQCN, QP scaling), described in metaroce-transports.h.
 */
#ifndef METAROCE_EXPERIMENT_CONFIG_H
#define METAROCE_EXPERIMENT_CONFIG_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class CommandLine;

/// Largest --messageBytes: a MetaRoCE message (its length field is 32 bits, spec 5.2); RoCEv2
/// carries at most 2^31 bytes (spec 10.2), which Validate() checks for its transports.
constexpr uint64_t kMaxMessageBytes = 4294967295ULL;
/// Most --channels: each is a stream (MetaRoCE) or a queue pair (RoCEv2) per peer on every
/// host, so thousands only cost memory and set-up time (NCCL uses at most a few dozen).
constexpr uint32_t kMaxChannels = 1024;

/**
 * \ingroup metaroce
 * \brief The description of one experiment run (see MetaRoceExperiment).
 */
struct MetaRoceExperimentConfig
{
    // Fabric.
    /// "leaf-spine" (two tiers), "fat-tree" (three) or "rail" (rail-optimized, servers of
    /// railGpus hosts; hostsPerLeaf is then servers per rail leaf)
    std::string topology{"leaf-spine"};
    uint32_t hosts{16};
    uint32_t planes{8};
    uint32_t hostsPerLeaf{8};
    uint32_t spines{4};                ///< spines per plane (leaf-spine) or per pod (fat-tree)
    uint32_t leavesPerPod{2};          ///< fat-tree only
    uint32_t cores{4};                 ///< fat-tree only: core switches per plane
    std::string hostRate{"100Gbps"};   ///< host-leaf links
    std::string fabricRate{"100Gbps"}; ///< leaf-spine links
    std::string coreRate{"100Gbps"};   ///< spine-core links (fat-tree)
    std::string hostDelay{"1us"};
    std::string fabricDelay{"1us"};
    std::string coreDelay{"1us"};
    uint32_t railGpus{8};              ///< rail only: hosts (GPUs) per server = rails
    std::string serverRate{"900Gbps"}; ///< rail only: intra-server (NVLink-like) links
    std::string serverDelay{"100ns"};  ///< rail only
    /// Extra attributes, "Name=Value;Name=Value", for every NIC and every switch.
    std::string nicAttributes;
    std::string switchAttributes;

    // Transport, loss, failures.
    std::string transport{"metaroce"};
    double loss{0};              ///< packet loss probability at every link end
    int32_t lossPlane{-1};       ///< -1: loss on every plane; p: only on plane p's links
    std::string failure{"none"}; ///< none, plane, spine, fabric-link, host-link
    uint32_t failurePlane{0};
    uint32_t failureIndex{0}; ///< the spine (spine), leaf (fabric-link) or host (host-link)
    uint32_t failureSpine{0}; ///< the spine end of a failed fabric-link
    std::string failureAt{"20us"};
    std::string failureUntil; ///< empty: never restored

    // Workload.
    /// see ParseCollective(), "flows", or "schedule" (the groups of `schedule`)
    std::string workload{"allreduce-ring"};
    /// workload "schedule": the JSON schedule file (metaroce-training-schedule.h)
    std::string schedule;
    uint64_t messageBytes{1 << 20}; ///< buffer per rank (collectives), message (patterns)
    uint32_t channels{0};           ///< 0: one per plane (rocev2-meta400: kMeta400QpsPerConnection)
    uint32_t repetitions{1};
    std::string cdfFile;       ///< flows: size distribution, lines "bytes cumulative-probability"
    double load{0.5};          ///< flows: offered load, fraction of each host's line rate x planes
    uint32_t flowsPerHost{20}; ///< flows: flows each host starts
    /// flows: each flow on its own queue pair (connection), released when it completes; false:
    /// one per host pair (and plane), which a flow shares with the earlier ones to that host.
    bool qpPerFlow{false};
    /// alltoallv: the traffic matrix file (metaroce-traffic-matrix.h), or empty with skew.
    std::string trafficMatrix;
    /// alltoallv: "zipf:S", a mixture-of-experts router's matrix (metaroce-traffic-matrix.h).
    std::string skew;
    uint32_t experts{0};       ///< skew: experts, placed on the ranks in blocks; 0: one per rank
    uint32_t topK{2};          ///< skew: experts each token goes to
    uint64_t tokenBytes{8192}; ///< skew: bytes per token sent to each of its experts
    uint64_t treeChunkBytes{262144}; ///< allreduce-tree: the pipeline's chunk
    /// Collectives: ranks that start late, chosen at random (seeded) among all the ranks.
    uint32_t stragglers{0};
    std::string stragglerDelay{"10us"}; ///< how late the stragglers start
    /// Collectives: jobs sharing the fabric, each the workload on hosts / jobs hosts.
    uint32_t jobs{1};
    std::string placement{"packed"}; ///< jobs' hosts: packed, spread or random (seeded)
    /// With jobs: -1 all of them; j: job j alone on its hosts (what its slowdown is against).
    int32_t soloJob{-1};
    /// With jobs: each job's collective, one per job ("allreduce-ring,alltoall"); empty: every
    /// job runs `workload`.
    std::string jobWorkloads;
    /// With jobs: each job's buffer per rank in bytes, one per job; empty: messageBytes.
    std::string jobBytes;

    // Run.
    uint32_t seed{1};
    uint32_t run{1};
    std::string throughputInterval{"0us"}; ///< > 0: record delivered bytes per interval
    std::string output;                    ///< file prefix: <output>.json and <output>-*.csv
    /// Capture prefix, empty: none. Else one pcap file per host port and plane,
    /// <pcap>-host<h>-plane<p>.pcap (MetaRoceFabricHelper::EnablePcap).
    std::string pcap;
    bool pcapSwitches{false}; ///< with pcap: every switch port too
    bool progress{false};     ///< a progress line on stderr every few seconds
    /// The event scheduler. Every ns-3 scheduler runs events in the same order (time, then
    /// scheduling order), so results do not depend on it; speed does (doc/performance.md).
    std::string scheduler{"ns3::MetaRoceRadixScheduler"};
    /// The device of every link, by TypeId name: the module's fast "ns3::MetaRoceNetDevice" or
    /// ns-3's own "ns3::PointToPointNetDevice" (MetaRoceFabricHelper::SetDeviceType). Results
    /// do not depend on it; speed does (doc/performance.md).
    std::string device{"ns3::MetaRoceNetDevice"};
    std::string stopTime{"1s"}; ///< simulated-time limit (a run that hits it is incomplete)
    /// Distributed runs only: "leaf" (blocks of leaves with their hosts, spines round robin) or
    /// one rank per host, "0,0,1,1,..." (MetaRoceFabricPartition). Results do not depend on it.
    std::string partition{"leaf"};

    /**
     * Checks every field; throws std::invalid_argument naming the field and the problem. Also
     * what only fails once the model runs, checked without building anything: the NIC's and
     * switches' attributes against the model's rules across fields (MetaRoceNic and
     * MetaRoceSwitch::GetConfigProblem), a failure's index against the fabric's shape, the
     * collective's smallest block, and the memory the run needs against the machine's
     * (MetaRoceMemoryEstimate).
     */
    void Validate() const;

    /**
     * The options that differ from `defaults` yet this run would not use (--failurePlane
     * without --failure, --cdfFile without the flows workload, ...), each as the message that
     * refuses it ("--failurePlane: 3 has no effect without --failure").
     */
    std::vector<std::string> UnusedOptions(const MetaRoceExperimentConfig& defaults) const;

    /// Validate(), then throws the first of UnusedOptions(defaults), if any.
    void ValidateAsGiven(const MetaRoceExperimentConfig& defaults) const;

    /**
     * The attributes every NIC gets, "Name", "Value" pairs in the order they are set: the
     * transport's (RoceRateControl, Streams for many channels), then nicAttributes.
     */
    std::vector<std::pair<std::string, std::string>> NicSettings() const;

    /// The attributes every switch gets: the transport's (PfcEnabled), then switchAttributes.
    std::vector<std::pair<std::string, std::string>> SwitchSettings() const;

    /**
     * Adds every field as a --option (same names) to `cmd`. Without `withGridFields`, leaves
     * out workload, transport and loss, which a MetaRoceComparison takes as lists instead.
     */
    void AddOptions(CommandLine& cmd, bool withGridFields = true);

    /**
     * Parses every field from the command line (AddOptions with the grid fields), then
     * ValidateAsGiven()s against the values before parsing. Returns false after printing
     * "<program>: <problem>" on stderr for a bad option: the caller exits with status 2.
     */
    bool ParseOptions(int argc, char* argv[], const std::string& program);
};

} // namespace ns3

#endif // METAROCE_EXPERIMENT_CONFIG_H
