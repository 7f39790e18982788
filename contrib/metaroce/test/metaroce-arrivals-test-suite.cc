/*
 * metaroce-arrivals: a node's staged packets are delivered in (arrival time, receiving
 * interface) order, each link's in the order it sent them, whatever order they were staged in;
 * an observer sees the node's state at the start of an instant (model/link/metaroce-arrivals.h).
 * The fast link's prefetcher for deliveries is installed only in fabrics of more than 128 nodes
 * with fast ports, removed when they are disposed, and asks nothing of a node it does not watch.
 */
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-link-prefetcher.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-radix-scheduler.h"
#include "ns3/node-container.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

class DeliveryOrderTestCase : public TestCase
{
  public:
    DeliveryOrderTestCase()
        : TestCase("arrivals: (time, interface) order, FIFO per link, a late-staged earlier "
                   "packet in its place; observers see the start of the instant")
    {
    }

  private:
    /// A packet of `size` bytes, as a channel hands it to the device.
    static Ptr<Packet> Frame(uint32_t size)
    {
        return Create<Packet>(size);
    }

    bool OnReceive(Ptr<NetDevice> device, Ptr<const Packet> p, uint16_t, const Address&)
    {
        m_received.push_back(p->GetSize());
        m_times.push_back(Simulator::Now().GetNanoSeconds());
        return true;
    }

    void StageAll()
    {
        m_arrivals->Stage(NanoSeconds(10), m_dev[0], m_dev[0]->GetIfIndex(), Frame(101));
        m_arrivals->Stage(NanoSeconds(10), m_dev[1], m_dev[1]->GetIfIndex(), Frame(102));
        m_arrivals->Stage(NanoSeconds(5),
                          m_dev[1],
                          m_dev[1]->GetIfIndex(),
                          Frame(103)); // before 102, staged after it
        m_arrivals->Stage(NanoSeconds(10), m_dev[0], m_dev[0]->GetIfIndex(), Frame(104));
        NS_TEST_EXPECT_MSG_EQ(m_arrivals->GetNStaged(), 4, "four staged");
    }

    void DoRun() override
    {
        const Ptr<Node> a = CreateObject<Node>();
        const Ptr<Node> b = CreateObject<Node>();
        const Ptr<Node> c = CreateObject<Node>();
        MetaRoceLinkHelper links;
        m_dev[0] = DynamicCast<MetaRoceNetDevice>(links.Install(a, b).Get(0));
        m_dev[1] = DynamicCast<MetaRoceNetDevice>(links.Install(a, c).Get(0));
        NS_TEST_ASSERT_MSG_EQ(m_dev[1]->GetIfIndex(), 1, "a's second interface");
        for (const auto& dev : m_dev)
        {
            dev->SetReceiveCallback(MakeCallback(&DeliveryOrderTestCase::OnReceive, this));
        }
        m_arrivals = MetaRoceArrivals::Of(a);
        std::size_t seenAt7 = 99;
        int64_t observedAt = -1;
        m_arrivals->AddObserver(NanoSeconds(7), [&]() {
            observedAt = Simulator::Now().GetNanoSeconds();
            seenAt7 = m_received.size();
            return Time::Max();
        });
        Simulator::ScheduleWithContext(a->GetId(),
                                       NanoSeconds(1),
                                       &DeliveryOrderTestCase::StageAll,
                                       this);
        Simulator::Run();
        const std::vector<uint32_t> order{103, 101, 104, 102};
        NS_TEST_ASSERT_MSG_EQ(m_received.size(), order.size(), "every packet delivered");
        for (std::size_t i = 0; i < order.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_received[i], order[i], "delivery " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(m_times.front(), 5, "the early one at 5 ns");
        NS_TEST_EXPECT_MSG_EQ(m_times.back(), 10, "the others at 10 ns");
        NS_TEST_EXPECT_MSG_EQ(observedAt, 10, "observed at the first event at or after 7 ns");
        NS_TEST_EXPECT_MSG_EQ(seenAt7, 1, "before the deliveries of that instant");
        NS_TEST_EXPECT_MSG_EQ(m_arrivals->GetNStaged(), 0, "nothing left");
        Simulator::Destroy();
    }

    Ptr<MetaRoceNetDevice> m_dev[2];
    Ptr<MetaRoceArrivals> m_arrivals;
    std::vector<uint32_t> m_received;
    std::vector<int64_t> m_times;
};

/// A port that takes what arrives and does nothing with it.
class NullSink : public MetaRoceFrameSink
{
  public:
    void ReceiveFrame(uint32_t /* port */, Ptr<Packet> /* packet */) override
    {
    }
};

class PrefetcherTestCase : public TestCase
{
  public:
    PrefetcherTestCase()
        : TestCase("the fast link's prefetcher: above 128 nodes with fast ports only, gone "
                   "with them")
    {
    }

  private:
    void DoRun() override
    {
        using Prefetcher = MetaRoceRadixScheduler::ContextPrefetcher;
        const Prefetcher installed = &MetaRoceLinkPrefetcher::Prefetch;
        NS_TEST_ASSERT_MSG_EQ((MetaRoceRadixScheduler::GetContextPrefetcher() == nullptr),
                              true,
                              "none before any fabric");
        NodeContainer nodes;
        nodes.Create(130);
        MetaRoceLinkHelper links;
        NullSink sink;
        // A node whose arrivals exist but that has no fast port does not count.
        MetaRoceArrivals::Of(nodes.Get(129));
        std::vector<Ptr<NetDevice>> ports;
        for (uint32_t i = 0; i + 1 < 130; i += 2)
        {
            const NetDeviceContainer pair = links.Install(nodes.Get(i), nodes.Get(i + 1));
            ports.push_back(pair.Get(0));
            ports.push_back(pair.Get(1));
        }
        for (uint32_t i = 0; i < 128; ++i)
        {
            MetaRoceArrivals::Of(nodes.Get(i))->BindPort(ports[i], &sink, 0);
        }
        NS_TEST_EXPECT_MSG_EQ(MetaRoceLinkPrefetcher::GetNWatched(), 128, "128 nodes watched");
        NS_TEST_EXPECT_MSG_EQ((MetaRoceRadixScheduler::GetContextPrefetcher() == nullptr),
                              true,
                              "128 nodes stay in the caches: none");
        MetaRoceArrivals::Of(nodes.Get(128))->BindPort(ports[128], &sink, 0);
        MetaRoceArrivals::Of(nodes.Get(128))->BindPort(ports[128], &sink, 0);
        NS_TEST_EXPECT_MSG_EQ(MetaRoceLinkPrefetcher::GetNWatched(), 129, "a node counts once");
        NS_TEST_EXPECT_MSG_EQ((MetaRoceRadixScheduler::GetContextPrefetcher() == installed),
                              true,
                              "installed with the 129th");
        // Nodes with nothing staged, nodes not watched, beyond the last node and without a
        // context: nothing to fetch, and nothing read that is not there.
        for (int ahead = 1; ahead <= MetaRoceRadixScheduler::kPrefetchDepth; ++ahead)
        {
            for (uint32_t context :
                 {0u, 128u, 129u, 130u, 100'000u, uint32_t{Simulator::NO_CONTEXT}})
            {
                MetaRoceLinkPrefetcher::Prefetch(context, ahead);
            }
        }
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(MetaRoceLinkPrefetcher::GetNWatched(), 0, "none watched");
        NS_TEST_EXPECT_MSG_EQ((MetaRoceRadixScheduler::GetContextPrefetcher() == nullptr),
                              true,
                              "gone when the nodes are disposed");
    }
};

class ArrivalsTestSuite : public TestSuite
{
  public:
    ArrivalsTestSuite()
        : TestSuite("metaroce-arrivals", Type::UNIT)
    {
        AddTestCase(new DeliveryOrderTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PrefetcherTestCase, MetaRoceTestDuration::QUICK);
    }
};

ArrivalsTestSuite g_arrivalsTestSuite;

} // namespace
