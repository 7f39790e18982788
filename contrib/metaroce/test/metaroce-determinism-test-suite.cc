/*
 * metaroce-determinism: results do not depend on the order in which the nodes' events of one
 * nanosecond run. ns3::MetaRoceTieShuffleScheduler interleaves the nodes of every timestamp in
 * a seeded pseudo-random order (as a distributed run may); each experiment must give the same
 * results, byte for byte, under the stock scheduler and under several shuffles
 * (model/link/metaroce-arrivals.h says how the model keeps it so). The same experiments under
 * ns3::MetaRoceRadixScheduler, which keeps ns-3's own order, must not change either.
 */
#include "ns3/config.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

/// The JSON document and the throughput series (the CSV files' rows) of one run.
std::string
Results(const MetaRoceExperimentConfig& c)
{
    const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
    std::ostringstream os;
    os << r.ToJson();
    for (const auto& t : r.throughput)
    {
        os << t.startUs << ',' << t.deliveredBytes << '\n';
    }
    for (const auto& h : r.hostThroughput)
    {
        os << h.startUs << ',' << h.host << ',' << h.txBytes << ',' << h.deliveredBytes << '\n';
    }
    return os.str();
}

/// Runs c under ns-3's default scheduler, under shuffles 1..3 and under the radix scheduler:
/// the results must match.
class ShuffledTiesTestCase : public TestCase
{
  public:
    ShuffledTiesTestCase(const std::string& name, const MetaRoceExperimentConfig& config)
        : TestCase("same results whatever the tie order: " + name)
        , m_config(config)
    {
    }

  private:
    void DoRun() override
    {
        if (m_config.workload == "flows")
        {
            m_config.cdfFile = CreateTempDirFilename("sizes.cdf");
            std::ofstream(m_config.cdfFile) << "1000 0.5\n100000 0.9\n1000000 1\n";
        }
        m_config.scheduler = "ns3::MapScheduler"; // ns-3's default
        const std::string reference = Results(m_config);
        MetaRoceExperimentConfig shuffled = m_config;
        shuffled.scheduler = "ns3::MetaRoceTieShuffleScheduler";
        for (uint64_t seed = 1; seed <= 3; ++seed)
        {
            Config::SetDefault("ns3::MetaRoceTieShuffleScheduler::Seed", UintegerValue(seed));
            NS_TEST_EXPECT_MSG_EQ((Results(shuffled) == reference), true, "shuffle seed " << seed);
        }
        Config::SetDefault("ns3::MetaRoceTieShuffleScheduler::Seed", UintegerValue(1));
        // The radix scheduler, the experiment runner's default, keeps ns-3's order.
        MetaRoceExperimentConfig radix = m_config;
        radix.scheduler = "ns3::MetaRoceRadixScheduler";
        NS_TEST_EXPECT_MSG_EQ((Results(radix) == reference), true, "radix scheduler");
    }

    MetaRoceExperimentConfig m_config;
};

/// 8 hosts on 2 planes (2 leaves, 2 spines per plane), 256 KiB per rank.
MetaRoceExperimentConfig
Small(const std::string& workload, const std::string& transport, double loss)
{
    MetaRoceExperimentConfig c;
    c.hosts = 8;
    c.planes = 2;
    c.hostsPerLeaf = 4;
    c.spines = 2;
    c.workload = workload;
    c.transport = transport;
    c.loss = loss;
    c.messageBytes = 256 << 10;
    return c;
}

/// A failure restore due exactly at the tick the run would end at: that instant is not quiet
/// (whether the restore ran before the stop would depend on the order of its events), so the
/// run goes on past it, the same way under any tie order.
class EndOnTimerTestCase : public TestCase
{
  public:
    EndOnTimerTestCase()
        : TestCase("the run does not end in an instant a failure restore is due in")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig c = Small("allreduce-ring", "metaroce", 0);
        c.failure = "plane";
        c.failurePlane = 1;
        c.failureAt = "10us";
        const MetaRoceExperimentResults first = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(first.complete, true, "the ring completes");
        const double end = first.simEndUs;
        c.failureUntil = std::to_string(static_cast<int64_t>(end)) + "us";
        const std::string reference = Results(c);
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_EXPECT_MSG_GT(r.simEndUs, end, "not at the restore's tick");
        NS_TEST_EXPECT_MSG_EQ(r.collective.endUs, first.collective.endUs, "same collective");
        c.scheduler = "ns3::MetaRoceTieShuffleScheduler";
        for (uint64_t seed = 1; seed <= 3; ++seed)
        {
            Config::SetDefault("ns3::MetaRoceTieShuffleScheduler::Seed", UintegerValue(seed));
            NS_TEST_EXPECT_MSG_EQ((Results(c) == reference), true, "shuffle seed " << seed);
        }
        Config::SetDefault("ns3::MetaRoceTieShuffleScheduler::Seed", UintegerValue(1));
    }
};

class DeterminismTestSuite : public TestSuite
{
  public:
    DeterminismTestSuite()
        : TestSuite("metaroce-determinism", Type::SYSTEM)
    {
        AddTestCase(new ShuffledTiesTestCase("MetaRoCE all-to-all, 1% loss",
                                             Small("alltoall", "metaroce", 0.01)),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new ShuffledTiesTestCase("RoCEv2 all-to-all, 0.1% loss",
                                             Small("alltoall", "rocev2", 0.001)),
                    MetaRoceTestDuration::QUICK);
        MetaRoceExperimentConfig pfc = Small("incast", "rocev2-pfc", 0);
        AddTestCase(new ShuffledTiesTestCase("RoCEv2 with PFC, incast", pfc),
                    MetaRoceTestDuration::QUICK);
        MetaRoceExperimentConfig failure = Small("allreduce-ring", "metaroce", 0);
        failure.failure = "plane";
        failure.failurePlane = 1;
        failure.failureAt = "10us";
        failure.throughputInterval = "3us";
        AddTestCase(new ShuffledTiesTestCase("MetaRoCE ring, plane failure", failure),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new EndOnTimerTestCase, MetaRoceTestDuration::QUICK);
        // Flows drawn and connected before the run, started by each host (issue 15).
        for (const char* transport : {"metaroce", "rocev2"})
        {
            MetaRoceExperimentConfig flows = Small("flows", transport, 0.01);
            flows.flowsPerHost = 12;
            flows.load = 0.6;
            flows.throughputInterval = "4us";
            AddTestCase(
                new ShuffledTiesTestCase(std::string("flows, 1% loss, ") + transport, flows),
                MetaRoceTestDuration::QUICK);
        }
    }
};

DeterminismTestSuite g_determinismTestSuite;

} // namespace
