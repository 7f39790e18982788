/*
 * MetaRoceExperimentResults: what one experiment run measured, and its files.
 *
 * The files follow the schema documented in doc/results-schema.md ("metaroce-results/1"):
 * <prefix>.json holds the configuration, the summary, the collective, drops by reason and the
 * per-plane figures; <prefix>-flows.csv, -hosts.csv, -links.csv and -throughput.csv hold the
 * per-message, per-host, per-link and per-interval rows, -host-throughput.csv per host and
 * interval. Nothing that depends on the machine
 * (wall-clock time) goes into the files, so the same configuration and seed give byte-identical
 * files; the stdout summary shows the wall time.
 */
#ifndef METAROCE_RESULTS_H
#define METAROCE_RESULTS_H

#include "ns3/engine-counters.h"
#include "ns3/metaroce-collective-helper.h"
#include "ns3/metaroce-experiment-config.h"
#include "ns3/nstime.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/// One message: a collective's SEND or one flow of the flows workload.
struct MetaRoceFlowRecord
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    double startUs{0};
    double endUs{0};
    double fctUs{0};
    double idealUs{0};  ///< bytes at the NIC's full rate (all planes) plus the one-way latency
    double slowdown{0}; ///< fctUs / idealUs
};

/// One host's NIC.
struct MetaRoceHostRecord
{
    uint32_t host{0};
    uint64_t txBytes{0};        ///< data and control bytes the NIC's queue pairs sent
    uint64_t deliveredBytes{0}; ///< payload placed in this host's memory
    double goodputGbps{0};      ///< deliveredBytes over the workload's duration
    uint64_t retransmitted{0};
    uint64_t timeouts{0};
    uint64_t ecnMarked{0};
};

/// One direction of one link.
struct MetaRoceLinkRecord
{
    uint32_t plane{0};
    std::string tier; ///< "host-leaf", "leaf-host", "leaf-spine" or "spine-leaf"
    std::string from; ///< node label: host-H, leaf-P-L, spine-P-S
    std::string to;
    uint64_t txPackets{0};
    uint64_t txBytes{0};
    double utilisation{0};     ///< txBytes x 8 over (rate x the workload's duration)
    uint64_t lost{0};          ///< packets dropped at the receiving end (loss model or failure)
    uint64_t maxQueueBytes{0}; ///< deepest egress queue at the sending switch port (0: a NIC)
    uint64_t dropped{0};       ///< packets the sending switch port dropped, every reason
    uint64_t ecnMarked{0};     ///< packets the sending switch port marked CE
};

/// One plane's totals.
struct MetaRocePlaneRecord
{
    uint32_t plane{0};
    uint64_t txBytes{0};
    double meanUtilisation{0};
    double maxUtilisation{0};
    uint64_t switchDrops{0};
    uint64_t lost{0};
    uint64_t pfcPauses{0};
    uint64_t maxQueueBytes{0}; ///< deepest switch egress queue of the plane
};

/// Delivered bytes in one interval.
struct MetaRoceThroughputSample
{
    double startUs{0};
    uint64_t deliveredBytes{0};
    double gbps{0};
};

/// One host's traffic in one interval.
struct MetaRoceHostSample
{
    double startUs{0};
    uint32_t host{0};
    uint64_t txBytes{0};        ///< bytes its queue pairs transmitted (sending rate)
    uint64_t deliveredBytes{0}; ///< payload placed in its memory (receiving rate)
};

/// One job of several sharing the fabric (--jobs).
struct MetaRoceJobRecord
{
    uint32_t job{0};
    std::vector<uint32_t> hosts;         ///< the host of each rank
    MetaRoceCollectiveResult collective; ///< its collective, as on the shared fabric
    double aloneTimeUs{0};               ///< time_us of the job alone on its hosts (0: not run)
    double slowdown{0};                  ///< time_us over aloneTimeUs
};

/// One operation of a training schedule (--schedule), as it ran.
struct MetaRoceScheduleRecord
{
    std::string group; ///< the group's name
    uint32_t iteration{0};
    uint32_t op{0};    ///< its index in the group's ops
    std::string kind;  ///< "compute", "barrier" or the collective's name
    uint64_t bytes{0}; ///< a collective's buffer per rank
    double startUs{0};
    double endUs{-1};    ///< -1: not ended
    double busBwGBps{0}; ///< a collective's bus bandwidth (nccl-tests)
};

/**
 * \ingroup metaroce
 * \brief The measurements of one MetaRoceExperiment run.
 */
struct MetaRoceExperimentResults
{
    static constexpr const char* SCHEMA = "metaroce-results/1";

    MetaRoceExperimentConfig config;
    bool complete{false};       ///< every message arrived with the exact byte count
    double durationUs{0};       ///< from the workload's start to its last completion
    double simEndUs{0};         ///< simulated time when the run stopped
    double wallSeconds{0};      ///< not written to files
    uint64_t rankEvents{0};     ///< events this process ran (not written to files)
    uint64_t rankPacketHops{0}; ///< packets this process's links sent (not written to files)
    uint64_t packetHops{0};     ///< packets transmitted over all links
    uint64_t messages{0};       ///< messages posted
    uint64_t messagesCompleted{0};
    uint64_t bytesDelivered{0};
    double goodputGbps{0}; ///< bytesDelivered over durationUs, all hosts
    double fctMeanUs{0};
    double fctP50Us{0};
    double fctP99Us{0};
    double slowdownMean{0};
    double slowdownP99{0};
    uint64_t retransmitted{0};
    uint64_t timeouts{0};
    uint64_t rtoDeferrals{0};    ///< MetaRoCE: timeouts deferred while evidence was coming
    uint64_t dataPackets{0};     ///< data packets the queue pairs sent, retransmissions included
    uint64_t ackPackets{0};      ///< ACKs the receivers sent (spec 4.2)
    uint64_t fastRetransmits{0}; ///< MetaRoCE: packets declared lost by loss detection
    uint64_t tailProbes{0};      ///< MetaRoCE: tail-loss probes
    uint64_t spuriousLosses{0};  ///< MetaRoCE: declared lost, yet the original arrived
    uint64_t ackRepeatHits{0};   ///< MetaRoCE: ACK repeats that stood in for a lost ACK
    uint64_t tailMarkers{0};     ///< MetaRoCE: PROBEs sent behind a connection's last packet
    uint64_t pfcPauses{0};
    uint64_t ecnMarked{0};
    uint64_t maxQueueBytes{0}; ///< deepest switch egress queue (both classes) seen anywhere
    std::map<std::string, uint64_t> drops;        ///< by reason: switch reasons, "link-loss", nic-*
    MetaRoceCollectiveResult collective;          ///< empty name for the flows workload
    std::vector<MetaRoceJobRecord> jobs;          ///< with --jobs above 1: each job
    std::vector<MetaRoceScheduleRecord> schedule; ///< with --schedule: each operation

    /// Data packets that reached a receiver which already had them (the receivers' Duplicate
    /// drops): retransmissions and tail probes that were not needed (issue 16: zero on a
    /// lossless fabric).
    uint64_t SpuriousRetransmissions() const;

    /// Bytes the hosts put on their links (`links` from a host): payload, every header from
    /// the link's 2-byte PPP framing up, retransmissions and control packets. Over `bytesDelivered`
    /// it is what a transport's framing and feedback cost on the wire (doc/results.md section 13).
    uint64_t HostWireBytes() const;

    std::vector<MetaRoceFlowRecord> flows;
    std::vector<MetaRoceHostRecord> hosts;
    std::vector<MetaRoceLinkRecord> links;
    std::vector<MetaRocePlaneRecord> planes;
    std::vector<MetaRoceThroughputSample> throughput;
    std::vector<MetaRoceHostSample> hostThroughput;

    /// Fills the FCT and slowdown statistics from `flows`.
    void SummariseFlows();
    /// Adds the row of `hosts` of one host from the sum of its queue pairs' counters.
    void AddHost(uint32_t host, const metaroce::Counters& counters, Time duration);
    /**
     * Sets the run's totals from the sum of every queue pair's counters: bytes delivered,
     * goodput over `duration`, retransmissions and the other summary counters, and the engine
     * refusals as drops "nic-<reason>" (names from metaroce::kDropReasons).
     */
    void SetEngineTotals(const metaroce::Counters& all, Time duration);
    /// Adds the switches' drops as "switch-<reason>": `byReason` in kSwitchDropReasons' order.
    void AddSwitchDrops(const std::vector<uint64_t>& byReason);
    /// Sets `planes`, and from them the PFC pauses, the deepest queue and "link-loss" drops.
    void AddPlanes(std::vector<MetaRocePlaneRecord> planeRecords);
    /**
     * Writes <prefix>.json and the CSV files, each under a temporary name renamed when all are
     * on disk, the JSON last (MetaRoceAtomicFile); throws std::runtime_error naming the file
     * when one cannot be written (nothing is then renamed, the temporary files are removed).
     */
    void Write(const std::string& prefix) const;
    /// The rows of -flows.csv, -hosts.csv and -links.csv, with their headings.
    void WriteCsvRows(std::ostream& flows, std::ostream& hosts, std::ostream& links) const;
    /// The JSON document (what <prefix>.json holds).
    std::string ToJson() const;
    /// A readable summary.
    void Print(std::ostream& os) const;
};

} // namespace ns3

#endif // METAROCE_RESULTS_H
