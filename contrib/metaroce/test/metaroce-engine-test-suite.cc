/*
 * The libsoftmetaroce reference properties as an ns-3 TestSuite, so that `test.py` in an ns-3
 * tree and the standalone test runner check them too (spec 12).
 *
 * QUICK: both transports on a clean channel and at 1% and 10% random loss; MetaRoCE also under
 * reordering and duplication, and with a plane failing mid-transfer.
 * EXTENSIVE: a few hundred randomised seeds and impairments per transport.
 */
#include "ns3/loopback-scenario.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/test.h"

#include <random>
#include <sstream>

using namespace ns3;
using metaroce::RunScenario;
using metaroce::ScenarioConfig;
using metaroce::ScenarioResult;
using metaroce::Transport;

namespace
{

/// Runs one scenario and checks the reference properties hold.
class ScenarioTestCase : public TestCase
{
  public:
    ScenarioTestCase(const std::string& name, const ScenarioConfig& config, uint64_t minRetx)
        : TestCase(name)
        , m_config(config)
        , m_minRetx(minRetx)
    {
    }

  private:
    void DoRun() override
    {
        const ScenarioResult r = RunScenario(m_config);
        NS_TEST_ASSERT_MSG_EQ(r.error, "", "reference property violated");
        NS_TEST_ASSERT_MSG_EQ(r.finished, true, "scenario did not finish");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.sender.retransmittedPackets,
                                    m_minRetx,
                                    "loss was not repaired by retransmission");
    }

    ScenarioConfig m_config;
    uint64_t m_minRetx;
};

ScenarioConfig
Base(Transport t, double loss, uint64_t seed)
{
    ScenarioConfig c;
    c.transport = t;
    c.seed = seed;
    c.channel.lossRate = loss;
    if (t == Transport::MetaRoce)
    {
        c.metaroce.ports = 2;
        c.metaroce.flowsPerPort = 4;
        c.channel.ports = 2;
    }
    else
    {
        c.metaroce.ports = 1;
        c.channel.ports = 1;
    }
    c.metaroce.streams = t == Transport::MetaRoce ? 4 : 1;
    return c;
}

std::string
Name(const char* what, Transport t, uint64_t seed)
{
    std::ostringstream os;
    os << metaroce::TransportName(t) << " " << what << " seed " << seed;
    return os.str();
}

/// Plane 1 fails 20 us into the transfer, for good.
class PlaneFailureTestCase : public TestCase
{
  public:
    PlaneFailureTestCase()
        : TestCase("metaroce survives a plane failure mid-transfer")
    {
    }

  private:
    void DoRun() override
    {
        ScenarioConfig c = Base(Transport::MetaRoce, 0, 5);
        c.messages = 80;
        c.planeFailurePort = 1;
        c.planeFailureAt = 20'000;
        const ScenarioResult r = RunScenario(c);
        NS_TEST_ASSERT_MSG_EQ(r.error, "", "reference property violated");
        NS_TEST_ASSERT_MSG_GT(r.channel.lostOnDownPlane, 0, "the failure hit no packet");
        NS_TEST_ASSERT_MSG_EQ(r.sender.flowsDown, 4, "all flows of plane 1 should be down");
    }
};

class MetaRoceEngineTestSuite : public TestSuite
{
  public:
    MetaRoceEngineTestSuite()
        : TestSuite("metaroce-engine", Type::UNIT)
    {
        for (Transport t : {Transport::MetaRoce, Transport::RoceV2})
        {
            AddTestCase(new ScenarioTestCase(Name("clean", t, 1), Base(t, 0, 1), 0),
                        MetaRoceTestDuration::QUICK);
            AddTestCase(new ScenarioTestCase(Name("1% loss", t, 2), Base(t, 0.01, 2), 1),
                        MetaRoceTestDuration::QUICK);
            AddTestCase(new ScenarioTestCase(Name("10% loss", t, 3), Base(t, 0.1, 3), 1),
                        MetaRoceTestDuration::QUICK);
        }
        ScenarioConfig reorder = Base(Transport::MetaRoce, 0, 4);
        reorder.channel.reorderRate = 0.2;
        reorder.channel.duplicateRate = 0.1;
        AddTestCase(new ScenarioTestCase("metaroce reorder and duplication", reorder, 0),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new PlaneFailureTestCase, MetaRoceTestDuration::QUICK);

        // Randomised: loss up to 30%, reordering and duplication up to 20%.
        std::mt19937_64 rng(2026);
        std::uniform_real_distribution<double> loss(0.0, 0.3);
        std::uniform_real_distribution<double> other(0.0, 0.2);
        for (Transport t : {Transport::MetaRoce, Transport::RoceV2})
        {
            const int seeds = t == Transport::MetaRoce ? 300 : 100;
            for (int s = 0; s < seeds; ++s)
            {
                ScenarioConfig c = Base(t, loss(rng), 100 + s);
                c.channel.reorderRate = other(rng);
                c.channel.duplicateRate = other(rng);
                c.messages = 20;
                AddTestCase(new ScenarioTestCase(Name("random", t, 100 + s), c, 0),
                            MetaRoceTestDuration::EXTENSIVE);
            }
        }
    }
};

MetaRoceEngineTestSuite g_metaRoceEngineTestSuite;

} // namespace
