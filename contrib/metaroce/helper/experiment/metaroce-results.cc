#include "metaroce-results.h"

#include "metaroce-atomic-file.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Nearest-rank percentile of sorted values.
double
Percentile(const std::vector<double>& sorted, double p)
{
    if (sorted.empty())
    {
        return 0;
    }
    const auto rank = static_cast<std::size_t>(std::ceil(p * sorted.size()));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

double
Mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    return values.empty() ? 0 : sum / values.size();
}

nlohmann::ordered_json
ConfigJson(const MetaRoceExperimentConfig& c)
{
    return {{"topology", c.topology},
            {"hosts", c.hosts},
            {"planes", c.planes},
            {"hosts_per_leaf", c.hostsPerLeaf},
            {"spines", c.spines},
            {"leaves_per_pod", c.leavesPerPod},
            {"cores", c.cores},
            {"host_rate", c.hostRate},
            {"fabric_rate", c.fabricRate},
            {"core_rate", c.coreRate},
            {"host_delay", c.hostDelay},
            {"fabric_delay", c.fabricDelay},
            {"core_delay", c.coreDelay},
            {"nic_attributes", c.nicAttributes},
            {"switch_attributes", c.switchAttributes},
            {"transport", c.transport},
            {"loss", c.loss},
            {"loss_plane", c.lossPlane},
            {"failure", c.failure},
            {"failure_plane", c.failurePlane},
            {"failure_index", c.failureIndex},
            {"failure_spine", c.failureSpine},
            {"failure_at", c.failureAt},
            {"failure_until", c.failureUntil},
            {"workload", c.workload},
            {"message_bytes", c.messageBytes},
            {"channels", c.channels},
            {"repetitions", c.repetitions},
            {"cdf_file", c.cdfFile},
            {"load", c.load},
            {"flows_per_host", c.flowsPerHost},
            {"seed", c.seed},
            {"run", c.run},
            {"throughput_interval", c.throughputInterval},
            {"stop_time", c.stopTime}};
}

/// The workload fields that only some runs use, present when they do (older files unchanged).
void
AddWorkloadConfig(nlohmann::ordered_json& j, const MetaRoceExperimentConfig& c)
{
    if (c.workload == "alltoallv" && !c.trafficMatrix.empty())
    {
        j["traffic_matrix"] = c.trafficMatrix;
    }
    if (c.workload == "alltoallv" && !c.skew.empty())
    {
        j["skew"] = c.skew;
        j["experts"] = c.experts;
        j["top_k"] = c.topK;
        j["token_bytes"] = c.tokenBytes;
    }
    if (c.workload == "flows" && c.qpPerFlow)
    {
        j["qp_per_flow"] = true;
    }
    if (c.workload == "allreduce-tree")
    {
        j["tree_chunk_bytes"] = c.treeChunkBytes;
    }
    if (c.workload == "schedule")
    {
        j["schedule"] = c.schedule;
    }
    if (c.topology == "rail")
    {
        j["rail_gpus"] = c.railGpus;
        j["server_rate"] = c.serverRate;
        j["server_delay"] = c.serverDelay;
    }
    if (c.stragglers > 0)
    {
        j["stragglers"] = c.stragglers;
        j["straggler_delay"] = c.stragglerDelay;
    }
    if (c.jobs > 1)
    {
        j["jobs"] = c.jobs;
        j["placement"] = c.placement;
        j["solo_job"] = c.soloJob;
    }
    if (c.jobs > 1 && !c.jobWorkloads.empty())
    {
        j["job_workloads"] = c.jobWorkloads;
    }
    if (c.jobs > 1 && !c.jobBytes.empty())
    {
        j["job_bytes"] = c.jobBytes;
    }
}

/// Each job of a run with several (--jobs).
nlohmann::ordered_json
JobsJson(const std::vector<MetaRoceJobRecord>& jobs)
{
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& job : jobs)
    {
        const MetaRoceCollectiveResult& c = job.collective;
        array.push_back({{"job", job.job},
                         {"hosts", job.hosts},
                         {"workload", c.name},
                         {"bytes", c.bytes},
                         {"complete", c.complete},
                         {"time_us", c.timeUs},
                         {"algbw_GBps", c.algBwGBps},
                         {"busbw_GBps", c.busBwGBps},
                         {"end_us", c.endUs - c.startUs},
                         {"alone_time_us", job.aloneTimeUs},
                         {"slowdown", job.slowdown},
                         {"bytes_sent", c.bytesSent},
                         {"bytes_expected", c.bytesExpected},
                         {"errors", c.errors}});
    }
    return array;
}

/// Every operation of a schedule run, in the order they began.
nlohmann::ordered_json
ScheduleJson(const std::vector<MetaRoceScheduleRecord>& ops)
{
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& op : ops)
    {
        array.push_back({{"group", op.group},
                         {"iteration", op.iteration},
                         {"op", op.op},
                         {"kind", op.kind},
                         {"bytes", op.bytes},
                         {"start_us", op.startUs},
                         {"end_us", op.endUs},
                         {"busbw_GBps", op.busBwGBps}});
    }
    return array;
}

/// The per-rank figures of an all-to-allv or a run with stragglers.
void
AddRankFigures(nlohmann::ordered_json& j, const MetaRoceCollectiveResult& r)
{
    if (r.name == "alltoallv")
    {
        j["busiest_rank_bytes"] = r.busiestRankBytes;
        j["bound_us"] = r.boundUs;
    }
    if (r.name != "alltoallv" && r.delayedRanks.empty())
    {
        return;
    }
    std::size_t slowest = 0;
    for (std::size_t i = 0; i < r.rankFinishUs.size(); ++i)
    {
        // Unfinished ranks (-1) first: they are the slowest.
        const double a = r.rankFinishUs[i];
        const double b = r.rankFinishUs[slowest];
        if ((a < 0 && b >= 0) || (b >= 0 && a > b))
        {
            slowest = i;
        }
    }
    j["slowest_rank"] = slowest;
    j["slowest_rank_us"] = r.rankFinishUs.empty() ? 0.0 : r.rankFinishUs[slowest] - r.startUs;
    j["rank_finish_us"] = nlohmann::ordered_json::array();
    for (double us : r.rankFinishUs)
    {
        j["rank_finish_us"].push_back(us < 0 ? us : us - r.startUs);
    }
    if (!r.delayedRanks.empty())
    {
        j["straggler_ranks"] = r.delayedRanks;
        j["straggler_delay_us"] = r.rankDelayUs;
        j["time_after_last_start_us"] = r.complete ? r.endUs - r.startUs - r.rankDelayUs : 0.0;
    }
}

} // namespace

void
MetaRoceExperimentResults::SummariseFlows()
{
    std::vector<double> fct;
    std::vector<double> slowdown;
    for (const auto& f : flows)
    {
        fct.push_back(f.fctUs);
        slowdown.push_back(f.slowdown);
    }
    std::sort(fct.begin(), fct.end());
    std::sort(slowdown.begin(), slowdown.end());
    fctMeanUs = Mean(fct);
    fctP50Us = Percentile(fct, 0.5);
    fctP99Us = Percentile(fct, 0.99);
    slowdownMean = Mean(slowdown);
    slowdownP99 = Percentile(slowdown, 0.99);
}

std::string
MetaRoceExperimentResults::ToJson() const
{
    nlohmann::ordered_json j;
    j["schema"] = SCHEMA;
    j["config"] = ConfigJson(config);
    AddWorkloadConfig(j["config"], config);
    j["summary"] = {{"complete", complete},
                    {"duration_us", durationUs},
                    {"sim_end_us", simEndUs},
                    {"packet_hops", packetHops},
                    {"messages", messages},
                    {"messages_completed", messagesCompleted},
                    {"bytes_delivered", bytesDelivered},
                    {"host_wire_bytes", HostWireBytes()},
                    {"goodput_gbps", goodputGbps},
                    {"fct_mean_us", fctMeanUs},
                    {"fct_p50_us", fctP50Us},
                    {"fct_p99_us", fctP99Us},
                    {"slowdown_mean", slowdownMean},
                    {"slowdown_p99", slowdownP99},
                    {"retransmitted", retransmitted},
                    {"timeouts", timeouts},
                    {"rto_deferrals", rtoDeferrals},
                    {"data_packets", dataPackets},
                    {"ack_packets", ackPackets},
                    {"fast_retransmits", fastRetransmits},
                    {"tail_probes", tailProbes},
                    {"spurious_losses", spuriousLosses},
                    {"spurious_retransmissions", SpuriousRetransmissions()},
                    {"ack_repeat_hits", ackRepeatHits},
                    {"tail_markers", tailMarkers},
                    {"pfc_pauses", pfcPauses},
                    {"ecn_marked", ecnMarked},
                    {"max_queue_bytes", maxQueueBytes}};
    if (!collective.name.empty())
    {
        j["collective"] = {{"name", collective.name},
                           {"ranks", collective.ranks},
                           {"channels", collective.channels},
                           {"repetitions", collective.repetitions},
                           {"bytes", collective.bytes},
                           {"complete", collective.complete},
                           {"time_us", collective.timeUs},
                           {"algbw_GBps", collective.algBwGBps},
                           {"busbw_GBps", collective.busBwGBps},
                           {"repetition_us", nlohmann::ordered_json::array()},
                           {"bytes_sent", collective.bytesSent},
                           {"bytes_expected", collective.bytesExpected},
                           {"errors", collective.errors}};
        for (double us : collective.repetitionUs)
        {
            j["collective"]["repetition_us"].push_back(us);
        }
        AddRankFigures(j["collective"], collective);
    }
    if (!jobs.empty())
    {
        j["jobs"] = JobsJson(jobs);
    }
    if (!schedule.empty())
    {
        j["schedule"] = ScheduleJson(schedule);
    }
    j["drops"] = nlohmann::ordered_json::object();
    for (const auto& [reason, count] : drops)
    {
        j["drops"][reason] = count;
    }
    j["planes"] = nlohmann::ordered_json::array();
    for (const auto& p : planes)
    {
        j["planes"].push_back({{"plane", p.plane},
                               {"tx_bytes", p.txBytes},
                               {"mean_utilisation", p.meanUtilisation},
                               {"max_utilisation", p.maxUtilisation},
                               {"switch_drops", p.switchDrops},
                               {"lost", p.lost},
                               {"pfc_pauses", p.pfcPauses},
                               {"max_queue_bytes", p.maxQueueBytes}});
    }
    return j.dump(2) + "\n";
}

void
MetaRoceExperimentResults::Write(const std::string& prefix) const
{
    // Every file under a temporary name first (MetaRoceAtomicFile), renamed once all are on
    // disk: the CSV files, then the JSON, which says the set is complete. An older run's JSON
    // goes before the first rename, so no JSON is ever read beside another run's CSV files.
    MetaRoceAtomicFile json(prefix + ".json");
    MetaRoceAtomicFile f(prefix + "-flows.csv");
    MetaRoceAtomicFile h(prefix + "-hosts.csv");
    MetaRoceAtomicFile l(prefix + "-links.csv");
    MetaRoceAtomicFile t(prefix + "-throughput.csv");
    MetaRoceAtomicFile ht(prefix + "-host-throughput.csv");
    MetaRoceAtomicFile* const csv[] = {&f, &h, &l, &t, &ht};
    for (MetaRoceAtomicFile* file : {&json, &f, &h, &l, &t, &ht})
    {
        // Enough digits to round-trip, the same on every run.
        file->Stream() << std::setprecision(12);
    }
    json.Stream() << ToJson();
    WriteCsvRows(f.Stream(), h.Stream(), l.Stream());
    t.Stream() << "start_us,delivered_bytes,gbps\n";
    for (const auto& r : throughput)
    {
        t.Stream() << r.startUs << ',' << r.deliveredBytes << ',' << r.gbps << '\n';
    }
    ht.Stream() << "start_us,host,tx_bytes,delivered_bytes\n";
    for (const auto& r : hostThroughput)
    {
        ht.Stream() << r.startUs << ',' << r.host << ',' << r.txBytes << ',' << r.deliveredBytes
                    << '\n';
    }
    for (MetaRoceAtomicFile* file : csv)
    {
        file->Close();
    }
    json.Close();
    MetaRoceAtomicFile::Remove(json.GetPath());
    for (MetaRoceAtomicFile* file : csv)
    {
        file->Publish();
    }
    json.Publish();
}

void
MetaRoceExperimentResults::WriteCsvRows(std::ostream& f, std::ostream& h, std::ostream& l) const
{
    f << "src,dst,bytes,start_us,end_us,fct_us,ideal_us,slowdown\n";
    for (const auto& r : flows)
    {
        f << r.src << ',' << r.dst << ',' << r.bytes << ',' << r.startUs << ',' << r.endUs << ','
          << r.fctUs << ',' << r.idealUs << ',' << r.slowdown << '\n';
    }
    h << "host,tx_bytes,delivered_bytes,goodput_gbps,retransmitted,timeouts,ecn_marked\n";
    for (const auto& r : hosts)
    {
        h << r.host << ',' << r.txBytes << ',' << r.deliveredBytes << ',' << r.goodputGbps << ','
          << r.retransmitted << ',' << r.timeouts << ',' << r.ecnMarked << '\n';
    }
    l << "plane,tier,from,to,tx_packets,tx_bytes,utilisation,lost,max_queue_bytes,dropped,"
         "ecn_marked\n";
    for (const auto& r : links)
    {
        l << r.plane << ',' << r.tier << ',' << r.from << ',' << r.to << ',' << r.txPackets << ','
          << r.txBytes << ',' << r.utilisation << ',' << r.lost << ',' << r.maxQueueBytes << ','
          << r.dropped << ',' << r.ecnMarked << '\n';
    }
}

void
MetaRoceExperimentResults::Print(std::ostream& os) const
{
    const auto flags = os.flags();
    os << std::fixed << std::setprecision(1);
    os << config.workload << " of " << config.messageBytes << " B over " << config.transport << ", "
       << config.hosts << " hosts x " << config.planes << " planes, loss " << config.loss * 100
       << "%: " << (complete ? "complete" : "INCOMPLETE") << " in " << durationUs << " us (wall "
       << std::setprecision(2) << wallSeconds << " s)\n"
       << std::setprecision(1);
    if (!collective.name.empty())
    {
        os << "  collective " << collective.name << ": time " << collective.timeUs << " us, algbw "
           << collective.algBwGBps << " GB/s, busbw " << collective.busBwGBps << " GB/s\n";
    }
    os << "  goodput " << goodputGbps << " Gb/s, FCT mean " << fctMeanUs << " us, p99 " << fctP99Us
       << " us, slowdown p99 " << slowdownP99 << "\n"
       << "  retransmitted " << retransmitted << ", timeouts " << timeouts << ", PFC pauses "
       << pfcPauses << ", ECN marked " << ecnMarked << ", deepest queue " << maxQueueBytes
       << " B\n  drops:";
    for (const auto& [reason, count] : drops)
    {
        os << " " << reason << "=" << count;
    }
    os << "\n";
    os.flags(flags);
}

} // namespace ns3
