/*
 * Workloads and results (issue: fabrics and workloads).
 *
 *  - schedules: exact byte counts, send/receive symmetry, impossible parameters refused;
 *  - collectives on a small two-plane fabric over both transports: every rank finishes with
 *    the exact bytes of the schedule;
 *  - bus bandwidth of a large ring all-reduce and all-to-all on an idle fabric: within 10% of
 *    line rate x planes;
 *  - the flows workload (Poisson arrivals, CDF sizes) completes every flow; a bad CDF is refused
 *    with its line number;
 *  - loss restricted to one plane drops only there; a plane failure mid-collective loses nothing;
 *  - determinism: the same configuration and seed give byte-identical result files;
 *  - a bad configuration is refused with std::invalid_argument naming the field.
 */
#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/test.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// A small two-plane fabric: 4 hosts, 2 per leaf, 2 spines per plane, 100 Gb/s.
MetaRoceExperimentConfig
SmallFabric()
{
    MetaRoceExperimentConfig c;
    c.hosts = 4;
    c.planes = 2;
    c.hostsPerLeaf = 2;
    c.spines = 2;
    c.messageBytes = 256 << 10;
    return c;
}

std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The message of the std::invalid_argument `f` throws, or "" if it throws none.
template<typename F>
std::string
InvalidArgument(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

class ScheduleTestCase : public TestCase
{
  public:
    ScheduleTestCase()
        : TestCase("schedules: exact bytes, symmetric sends and receives, bad shapes refused")
    {
    }

  private:
    void DoRun() override
    {
        for (const uint64_t bytes : {uint64_t(1) << 20, uint64_t(1000003)})
        {
            for (const uint32_t n : {2u, 4u, 8u})
            {
                for (const auto c : {MetaRoceCollective::ALL_REDUCE_RING,
                                     MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING,
                                     MetaRoceCollective::ALL_TO_ALL})
                {
                    CheckSchedule(c, n, bytes);
                }
            }
            CheckSchedule(MetaRoceCollective::ALL_REDUCE_RING, 6, bytes);
            CheckSchedule(MetaRoceCollective::ALL_GATHER_RING, 6, bytes);
            CheckSchedule(MetaRoceCollective::REDUCE_SCATTER_RING, 5, bytes);
            CheckSchedule(MetaRoceCollective::PERMUTATION, 5, bytes);
            CheckSchedule(MetaRoceCollective::INCAST, 5, bytes);
        }
        const auto ring = BuildSchedule(MetaRoceCollective::ALL_REDUCE_RING, 4, 1 << 20);
        NS_TEST_ASSERT_MSG_EQ(ring[0].size(), 6, "ring: 2 (n - 1) steps");
        NS_TEST_ASSERT_MSG_EQ(ScheduleSentBytes(ring, 0), 3 * (1 << 20) / 2, "2 (n-1)/n x S");
        const auto hd = BuildSchedule(MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING, 8, 1 << 20);
        NS_TEST_ASSERT_MSG_EQ(hd[0].size(), 6, "halving-doubling: 2 log2(n) steps");
        NS_TEST_ASSERT_MSG_EQ(hd[5][0].sends[0].peer, 1, "first halving partner at distance 4");
        NS_TEST_ASSERT_MSG_EQ(hd[5][0].sends[0].bytes, 1 << 19, "first halving: half the buffer");
        NS_TEST_ASSERT_MSG_EQ(BusBandwidthFactor(MetaRoceCollective::ALL_REDUCE_RING, 8),
                              1.75,
                              "nccl-tests all-reduce factor");
        NS_TEST_ASSERT_MSG_EQ(BusBandwidthFactor(MetaRoceCollective::ALL_TO_ALL, 8),
                              0.875,
                              "nccl-tests all-to-all factor");

        NS_TEST_EXPECT_MSG_NE(
            InvalidArgument([] {
                BuildSchedule(MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING, 6, 1 << 20);
            }).find("power-of-two"),
            std::string::npos,
            "halving-doubling on 6 ranks");
        NS_TEST_EXPECT_MSG_NE(InvalidArgument([] {
                                  BuildSchedule(MetaRoceCollective::ALL_TO_ALL, 8, 7);
                              }).find("would not hold a byte"),
                              std::string::npos,
                              "7 bytes over 8 ranks");
        NS_TEST_EXPECT_MSG_NE(InvalidArgument([] {
                                  BuildSchedule(MetaRoceCollective::ALL_TO_ALL, 1, 64);
                              }).find("at least 2 ranks"),
                              std::string::npos,
                              "one rank");
        NS_TEST_EXPECT_MSG_NE(
            InvalidArgument([] { ParseCollective("allgather"); }).find("allgather"),
            std::string::npos,
            "unknown collective named");
    }

    void CheckSchedule(MetaRoceCollective c, uint32_t n, uint64_t bytes)
    {
        const std::string what =
            CollectiveName(c) + " n=" + std::to_string(n) + " bytes=" + std::to_string(bytes);
        const MetaRoceSchedule s = BuildSchedule(c, n, bytes);
        uint64_t sent = 0;
        uint64_t received = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            sent += ScheduleSentBytes(s, r);
            received += ScheduleReceivedBytes(s, r);
            for (uint32_t step = 0; step < s[r].size(); ++step)
            {
                // Every send has its receive at the peer, in the same step, with the same size.
                for (const auto& t : s[r][step].sends)
                {
                    bool found = false;
                    for (const auto& u : s[t.peer][step].recvs)
                    {
                        found = found || (u.peer == r && u.bytes == t.bytes);
                    }
                    NS_TEST_ASSERT_MSG_EQ(found, true, what << ": rank " << r << " step " << step);
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(sent, received, what << ": every byte sent is received");
        uint64_t expected = 0;
        switch (c)
        {
        case MetaRoceCollective::ALL_REDUCE_RING:
        case MetaRoceCollective::ALL_REDUCE_HALVING_DOUBLING:
            expected = 2 * uint64_t(n - 1) * bytes; // each block reduced and gathered: 2 (n-1) hops
            break;
        case MetaRoceCollective::ALL_TO_ALL:
        case MetaRoceCollective::ALL_GATHER_RING:
        case MetaRoceCollective::REDUCE_SCATTER_RING:
            expected = uint64_t(n - 1) * bytes; // each rank keeps (or ends with) its own block
            break;
        case MetaRoceCollective::PERMUTATION:
            expected = n * bytes;
            break;
        case MetaRoceCollective::INCAST:
            expected = (n - 1) * bytes;
            break;
        case MetaRoceCollective::ALL_REDUCE_TREE: // several lanes: metaroce-workloads suite
        case MetaRoceCollective::ALL_TO_ALLV:
            break;
        }
        NS_TEST_ASSERT_MSG_EQ(sent, expected, what << ": total bytes");
    }
};

class CollectiveBytesTestCase : public TestCase
{
  public:
    CollectiveBytesTestCase()
        : TestCase("collectives complete with the exact bytes over both transports")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string workload :
             {"allreduce-ring", "allreduce-hd", "alltoall", "permutation", "incast"})
        {
            for (const std::string transport : {"metaroce", "rocev2"})
            {
                MetaRoceExperimentConfig c = SmallFabric();
                c.workload = workload;
                c.transport = transport;
                c.messageBytes = 100003; // not a multiple of anything
                c.repetitions = 2;
                const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
                const std::string what = workload + " over " + transport;
                NS_TEST_ASSERT_MSG_EQ(r.complete, true, what);
                NS_TEST_ASSERT_MSG_EQ(r.collective.errors, 0, what);
                NS_TEST_ASSERT_MSG_EQ(r.collective.bytesSent, r.collective.bytesExpected, what);
                NS_TEST_ASSERT_MSG_EQ(r.collective.repetitionUs.size(), 2, what);
                NS_TEST_ASSERT_MSG_EQ(r.messages, r.messagesCompleted, what);
                NS_TEST_ASSERT_MSG_GT(r.collective.busBwGBps, 0, what);
            }
        }
    }
};

class FatTreeTestCase : public TestCase
{
  public:
    FatTreeTestCase()
        : TestCase("an all-to-all on a two-pod fat-tree: exact bytes, every tier carries it")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig c = SmallFabric();
        c.topology = "fat-tree";
        c.hosts = 8;
        c.hostsPerLeaf = 2;
        c.leavesPerPod = 2;
        c.spines = 2;
        c.cores = 4;
        c.workload = "alltoall";
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "fat-tree all-to-all");
        NS_TEST_ASSERT_MSG_EQ(r.collective.bytesSent, r.collective.bytesExpected, "exact bytes");
        std::map<std::string, uint64_t> byTier;
        std::map<std::string, uint64_t> deepest;
        uint64_t planeDeepest = 0;
        for (const auto& l : r.links)
        {
            byTier[l.tier] += l.txBytes;
            deepest[l.tier] = std::max(deepest[l.tier], l.maxQueueBytes);
            planeDeepest = std::max(planeDeepest, l.maxQueueBytes);
        }
        for (const std::string tier : {"host-leaf", "leaf-spine", "spine-core", "core-spine"})
        {
            NS_TEST_EXPECT_MSG_GT(byTier[tier], 0, tier << " links carry traffic");
        }
        // A link's queue is its sending switch port's: none where a NIC sends, and the deepest
        // port of all is the planes' deepest queue.
        NS_TEST_EXPECT_MSG_EQ(deepest["host-leaf"], 0, "a NIC's link has no switch queue");
        NS_TEST_EXPECT_MSG_GT(deepest["leaf-host"], 0, "the all-to-all queues at the host ports");
        NS_TEST_EXPECT_MSG_EQ(planeDeepest,
                              r.maxQueueBytes,
                              "the deepest link is the deepest port");
        // 2 planes x (8 host links + 2 pods x 2 leaves x 2 spines + 4 spines x 2 cores), both
        // directions.
        NS_TEST_EXPECT_MSG_EQ(r.links.size(), 2 * 2 * (8 + 8 + 8), "every link direction");
    }
};

class BusBandwidthTestCase : public TestCase
{
  public:
    BusBandwidthTestCase()
        : TestCase("busbw of large collectives on an idle fabric is near line rate x planes")
    {
    }

  private:
    void DoRun() override
    {
        // 2 planes x 100 Gb/s = 25 GB/s per host.
        const double line = 2 * 100e9 / 8 / 1e9;
        for (const std::string workload : {"allreduce-ring", "alltoall"})
        {
            MetaRoceExperimentConfig c = SmallFabric();
            c.workload = workload;
            c.messageBytes = 8 << 20;
            const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, workload);
            NS_TEST_EXPECT_MSG_GT(r.collective.busBwGBps, 0.9 * line, workload << " busbw");
            NS_TEST_EXPECT_MSG_LT(r.collective.busBwGBps, line, workload << " above line rate");
        }
    }
};

class FlowsTestCase : public TestCase
{
  public:
    FlowsTestCase()
        : TestCase("flows from a CDF with Poisson arrivals complete; a bad CDF is refused")
    {
    }

  private:
    void DoRun() override
    {
        const std::string cdf = CreateTempDirFilename("sizes.cdf");
        std::ofstream(cdf) << "# bytes probability\n1000 0.5\n100000 0.9\n1000000 1\n";
        for (const std::string transport : {"metaroce", "rocev2"})
        {
            MetaRoceExperimentConfig c = SmallFabric();
            c.workload = "flows";
            c.transport = transport;
            c.cdfFile = cdf;
            c.flowsPerHost = 15;
            c.load = 0.3;
            const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, transport);
            NS_TEST_ASSERT_MSG_EQ(r.flows.size(), 4 * 15, transport << ": every flow recorded");
            for (const auto& f : r.flows)
            {
                NS_TEST_ASSERT_MSG_NE(f.src, f.dst, "a flow goes to another host");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(f.slowdown, 1.0, "no flow beats the idle fabric");
            }
        }
        const std::string bad = CreateTempDirFilename("bad.cdf");
        std::ofstream(bad) << "1000 0.5\n500 0.9\n";
        MetaRoceExperimentConfig c = SmallFabric();
        c.workload = "flows";
        c.cdfFile = bad;
        NS_TEST_EXPECT_MSG_NE(InvalidArgument([&] { MetaRoceExperiment(c).Run(); }).find("line 2"),
                              std::string::npos,
                              "decreasing sizes refused at line 2");
    }
};

class LossAndFailureTestCase : public TestCase
{
  public:
    LossAndFailureTestCase()
        : TestCase("loss on one plane stays there; a plane failure mid-collective loses nothing")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig c = SmallFabric();
        c.loss = 0.02;
        c.lossPlane = 1;
        MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "lossy plane 1");
        NS_TEST_ASSERT_MSG_EQ(r.planes[0].lost, 0, "plane 0 is clean");
        NS_TEST_ASSERT_MSG_GT(r.planes[1].lost, 0, "plane 1 loses");
        NS_TEST_ASSERT_MSG_EQ(r.drops.at("link-loss"), r.planes[1].lost, "drops by reason");

        c = SmallFabric();
        c.messageBytes = 2 << 20;
        c.failure = "plane";
        c.failurePlane = 0;
        c.failureAt = "20us";
        c.throughputInterval = "10us";
        r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "all-reduce survives the plane failure");
        NS_TEST_ASSERT_MSG_EQ(r.collective.bytesSent, r.collective.bytesExpected, "no bytes lost");
        NS_TEST_ASSERT_MSG_GT(r.throughput.size(), 2, "throughput sampled");
        NS_TEST_ASSERT_MSG_GT(r.planes[1].txBytes, r.planes[0].txBytes, "plane 1 carried it");
    }
};

class DeterminismTestCase : public TestCase
{
  public:
    DeterminismTestCase()
        : TestCase("the same configuration and seed give byte-identical result files, whichever "
                   "ns-3 scheduler runs the events")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig c = SmallFabric();
        c.workload = "alltoall";
        c.loss = 0.01;
        c.throughputInterval = "5us";
        std::vector<std::string> prefixes;
        // Every scheduler orders events by time, then scheduling order: the runs are the same.
        for (const std::string& scheduler : {c.scheduler,
                                             std::string("ns3::PriorityQueueScheduler"),
                                             std::string("ns3::MapScheduler"),
                                             std::string("ns3::CalendarScheduler"),
                                             std::string("ns3::HeapScheduler")})
        {
            c.scheduler = scheduler;
            c.output = CreateTempDirFilename("run-" + std::to_string(prefixes.size()));
            MetaRoceExperiment(c).Run();
            prefixes.push_back(c.output);
        }
        for (const std::string suffix : {".json",
                                         "-flows.csv",
                                         "-hosts.csv",
                                         "-links.csv",
                                         "-throughput.csv",
                                         "-host-throughput.csv"})
        {
            const std::string a = ReadFile(prefixes[0] + suffix);
            NS_TEST_ASSERT_MSG_GT(a.size(), 10, suffix << " written");
            for (std::size_t i = 1; i < prefixes.size(); ++i)
            {
                // The output prefix and the scheduler are not in the files: byte for byte.
                NS_TEST_ASSERT_MSG_EQ((a == ReadFile(prefixes[i] + suffix)),
                                      true,
                                      suffix << " identical to run " << i);
            }
        }
        NS_TEST_ASSERT_MSG_NE(
            ReadFile(prefixes[0] + ".json").find("\"schema\": \"metaroce-results/1\""),
            std::string::npos,
            "schema named");
    }
};

class ConfigTestCase : public TestCase
{
  public:
    ConfigTestCase()
        : TestCase("bad configurations are refused with the field named")
    {
    }

  private:
    void DoRun() override
    {
        const auto refused = [](auto mutate) {
            MetaRoceExperimentConfig c = SmallFabric();
            mutate(c);
            return InvalidArgument([&] { MetaRoceExperiment(c).Run(); });
        };
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) { c.transport = "tcp"; }).find("--transport"),
                              std::string::npos,
                              "transport");
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) { c.loss = 1.5; }).find("--loss"),
                              std::string::npos,
                              "loss");
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) { c.hostRate = "fast"; }).find("--hostRate"),
                              std::string::npos,
                              "rate");
        NS_TEST_EXPECT_MSG_NE(
            refused([](auto& c) { c.hostDelay = "1 parsec"; }).find("--hostDelay"),
            std::string::npos,
            "delay");
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) { c.workload = "allgather"; }).find("allgather"),
                              std::string::npos,
                              "workload");
        NS_TEST_EXPECT_MSG_NE(
            refused([](auto& c) { c.nicAttributes = "Mtu=4096;Colour=red"; }).find("Colour"),
            std::string::npos,
            "unknown NIC attribute");
        NS_TEST_EXPECT_MSG_NE(
            refused([](auto& c) { c.switchAttributes = "EcnKmin=lots"; }).find("EcnKmin"),
            std::string::npos,
            "bad switch attribute value");
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) {
                                  c.failure = "spine";
                                  c.failureIndex = 7;
                              }).find("--failureIndex"),
                              std::string::npos,
                              "failure of a spine that does not exist");
        NS_TEST_EXPECT_MSG_NE(refused([](auto& c) {
                                  c.workload = "allreduce-hd";
                                  c.hosts = 6;
                              }).find("power-of-two"),
                              std::string::npos,
                              "halving-doubling on 6 hosts");
        NS_TEST_EXPECT_MSG_NE(
            refused([](auto& c) { c.scheduler = "ns3::MetaRoceNic"; }).find("--scheduler"),
            std::string::npos,
            "a type that is not a scheduler");
    }
};

class IdealTimeMtuTestCase : public TestCase
{
  public:
    IdealTimeMtuTestCase()
        : TestCase("a message's ideal time stores and forwards one packet of the NIC's Mtu")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig c = SmallFabric();
        c.workload = "permutation";
        c.nicAttributes = "Mtu=1024";
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "complete");
        NS_TEST_ASSERT_MSG_EQ(r.flows.empty(), false, "messages logged");
        for (const auto& f : r.flows)
        {
            // doc/results-schema.md, ideal_us. Hosts 0-1 hang off leaf 0, hosts 2-3 off leaf 1:
            // within a leaf 2 host links and 1 switch, across leaves 2 more fabric links (1 us
            // each) and 3 switches. Each switch stores one packet of the NIC's Mtu (1024 bytes
            // here, not the 4096 default) at 100 Gb/s; the message goes at 2 x 100 Gb/s.
            const bool sameLeaf = f.src / 2 == f.dst / 2;
            const double propagationUs = sameLeaf ? 2 : 4;
            const double switches = sameLeaf ? 1 : 3;
            const double packetUs = std::min<uint64_t>(f.bytes, 1024) * 8 / 100e9 * 1e6;
            const double messageUs = f.bytes * 8 / (2 * 100e9) * 1e6;
            NS_TEST_EXPECT_MSG_EQ_TOL(f.idealUs,
                                      propagationUs + switches * packetUs + messageUs,
                                      1e-9,
                                      "ideal time of " << f.src << " -> " << f.dst);
        }
    }
};

class CollectiveTestSuite : public TestSuite
{
  public:
    CollectiveTestSuite()
        : TestSuite("metaroce-collective", Type::UNIT)
    {
        AddTestCase(new ScheduleTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new CollectiveBytesTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FatTreeTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new BusBandwidthTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FlowsTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new LossAndFailureTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new DeterminismTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new ConfigTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new IdealTimeMtuTestCase, MetaRoceTestDuration::QUICK);
    }
};

CollectiveTestSuite g_collectiveTestSuite;

} // namespace
