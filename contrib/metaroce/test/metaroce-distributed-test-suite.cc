/*
 * metaroce-distributed: the pieces of a distributed run that need no MPI - which rank each node
 * of a fabric is given (MetaRoceFabricPartition), the lookahead, and the refusal of a partition
 * that does not fit. (A link without delay is refused by the fabric helper whatever the ranks.)
 */
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <stdexcept>

using namespace ns3;

namespace
{

/// 8 hosts, 4 per leaf (2 leaves), 4 spines, 2 planes; host links 1 us, leaf-spine 2 us.
void
Configure(MetaRoceFabricHelper& f)
{
    f.SetHosts(8);
    f.SetPlanes(2);
    f.SetHostsPerLeaf(4);
    f.SetSpines(4);
    f.SetHostLink(DataRate("100Gbps"), MicroSeconds(1));
    f.SetFabricLink(DataRate("100Gbps"), MicroSeconds(2));
}

/// True if Build() throws std::invalid_argument whose message contains `what`.
bool
Refused(MetaRoceFabricHelper& f, const std::string& what)
{
    try
    {
        f.Build();
    }
    catch (const std::invalid_argument& e)
    {
        return std::string(e.what()).find(what) != std::string::npos;
    }
    return false;
}

class ByLeafTestCase : public TestCase
{
  public:
    ByLeafTestCase()
        : TestCase("by leaf: hosts with their leaves on every plane, spines round robin")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Configure(f);
        f.SetPartition(MetaRoceFabricPartition::ByLeaf(2));
        f.Build();
        for (uint32_t h = 0; h < 8; ++h)
        {
            const uint32_t rank = h < 4 ? 0 : 1;
            NS_TEST_EXPECT_MSG_EQ(f.GetHost(h)->GetSystemId(), rank, "host " << h);
            for (uint32_t p = 0; p < 2; ++p)
            {
                // The NIC's port on every plane, and its leaf, on the host's rank.
                NS_TEST_EXPECT_MSG_EQ(f.GetHostLink(h, p).first->GetNode()->GetSystemId(),
                                      rank,
                                      "host " << h << " port " << p);
                NS_TEST_EXPECT_MSG_EQ(f.GetHostLink(h, p).second->GetNode()->GetSystemId(),
                                      rank,
                                      "leaf of host " << h << " on plane " << p);
            }
        }
        for (uint32_t g = 0; g < 4; ++g)
        {
            NS_TEST_EXPECT_MSG_EQ(f.GetSpine(1, g)->GetObject<Node>()->GetSystemId(),
                                  g % 2,
                                  "spine " << g);
        }
        // Only leaf-spine links cross: the lookahead is their delay.
        NS_TEST_EXPECT_MSG_EQ(f.GetLookahead(), MicroSeconds(2), "lookahead");
        Simulator::Destroy();
    }
};

class ByHostTestCase : public TestCase
{
  public:
    ByHostTestCase()
        : TestCase("by host: an explicit map; a leaf follows its first host; one rank crosses "
                   "nothing")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Configure(f);
        f.SetPartition(MetaRoceFabricPartition::ByHost(3, {0, 0, 1, 1, 2, 2, 2, 2}));
        f.Build();
        NS_TEST_EXPECT_MSG_EQ(f.GetHost(2)->GetSystemId(), 1, "host 2");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 0)->GetObject<Node>()->GetSystemId(), 0, "leaf 0");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 1)->GetObject<Node>()->GetSystemId(), 2, "leaf 1");
        // Hosts 2 and 3 reach leaf 0 across ranks: the host links set the lookahead.
        NS_TEST_EXPECT_MSG_EQ(f.GetLookahead(), MicroSeconds(1), "lookahead");
        Simulator::Destroy();

        MetaRoceFabricHelper single;
        Configure(single);
        single.Build();
        NS_TEST_EXPECT_MSG_EQ(single.GetLookahead(), Time::Max(), "one rank: no lookahead");
        Simulator::Destroy();
    }
};

class RefusalsTestCase : public TestCase
{
  public:
    RefusalsTestCase()
        : TestCase("partitions that do not fit the fabric are refused by name")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::pair<MetaRoceFabricPartition, std::string>> cases = {
            {MetaRoceFabricPartition::ByLeaf(0), "at least one rank"},
            {MetaRoceFabricPartition::ByLeaf(3), "3 ranks by leaf, but the fabric's 2 leaves"},
            {MetaRoceFabricPartition::ByHost(2, {0, 1}), "2 host ranks given for 8 hosts"},
            {MetaRoceFabricPartition::ByHost(2, {0, 0, 0, 0, 1, 1, 1, 2}), "host 7 on rank 2"},
        };
        for (const auto& [partition, what] : cases)
        {
            MetaRoceFabricHelper f;
            Configure(f);
            f.SetPartition(partition);
            NS_TEST_EXPECT_MSG_EQ(Refused(f, what), true, what);
            Simulator::Destroy();
        }
    }
};

class DistributedTestSuite : public TestSuite
{
  public:
    DistributedTestSuite()
        : TestSuite("metaroce-distributed", Type::UNIT)
    {
        AddTestCase(new ByLeafTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new ByHostTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new RefusalsTestCase, MetaRoceTestDuration::QUICK);
    }
};

DistributedTestSuite g_distributedTestSuite;

} // namespace
