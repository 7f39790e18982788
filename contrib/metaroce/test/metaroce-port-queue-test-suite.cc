/*
 * metaroce-port-queue: a pull queue's frames leave when they would if every frame's end pulled
 * (model/nic/metaroce-port-queue.h). A frame pulled while its owner has nothing more queued ends
 * without an event; a packet that comes during it still starts the instant the frame is over, one
 * that comes later starts at once, one that comes at the frame's very end too; a PhyTxEnd sink
 * gets every frame's end at its time; the deferred frames do spare events; and with
 * DeferIdleCompletions=false every frame's end is an event again.
 */
#include "ns3/boolean.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-port-queue.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <deque>
#include <vector>

using namespace ns3;

namespace
{

/// An owner with a FIFO of packets for its one port; MayHaveWork answers truly, or always yes.
class FifoOwner : public MetaRocePortOwner
{
  public:
    explicit FifoOwner(bool exact)
        : m_exact(exact)
    {
    }

    Ptr<Packet> PullPort(uint32_t) override
    {
        if (m_packets.empty())
        {
            return nullptr;
        }
        Ptr<Packet> p = m_packets.front();
        m_packets.pop_front();
        return p;
    }

    bool MayHaveWork(uint32_t) const override
    {
        return !m_exact || !m_packets.empty();
    }

    /// Queues a packet of `size` and kicks the port, as a NIC or switch does with new work.
    void Add(uint32_t size)
    {
        m_packets.push_back(Create<Packet>(size));
        queue->Kick();
    }

    Ptr<MetaRocePortQueue> queue;

  private:
    bool m_exact;
    std::deque<Ptr<Packet>> m_packets;
};

/// What one run saw: arrival times at the far end, PhyTxEnd times, and events executed.
struct Seen
{
    std::vector<int64_t> arrivals;
    std::vector<int64_t> ends;
    uint64_t events{0};

    bool OnReceive(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
    {
        arrivals.push_back(Simulator::Now().GetTimeStep());
        return true;
    }

    void OnTxEnd(Ptr<const Packet>)
    {
        ends.push_back(Simulator::Now().GetTimeStep());
    }
};

class DeferredCompletionTestCase : public TestCase
{
  public:
    DeferredCompletionTestCase()
        : TestCase("port queue: frames that end without an event leave packets at the times of "
                   "frames that pull at their end; a PhyTxEnd sink sees every end")
    {
    }

  private:
    /// 1 Gb/s: a 998-byte packet (1,000 with the frame header) takes 8 us.
    static constexpr uint32_t kSize = 998;

    /// Packets come at 1 us (alone), 5 us (during the first frame), 30 us (the wire idle),
    /// 38 us (the very end of the third frame) and 39 and 40 us (both during the fourth).
    Seen Run(bool exact, bool endSink, bool deferIdle = true)
    {
        MetaRoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer ends = link.Install(CreateObject<Node>(), CreateObject<Node>());
        Ptr<MetaRoceNetDevice> tx = DynamicCast<MetaRoceNetDevice>(ends.Get(0));
        FifoOwner owner(exact);
        owner.queue = CreateObject<MetaRocePortQueue>();
        owner.queue->SetAttribute("DeferIdleCompletions", BooleanValue(deferIdle));
        owner.queue->Attach(tx);
        owner.queue->SetOwner(&owner, 0);
        Seen seen;
        ends.Get(1)->SetReceiveCallback(MakeCallback(&Seen::OnReceive, &seen));
        if (endSink)
        {
            tx->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Seen::OnTxEnd, &seen));
        }
        for (const double at : {1.0, 5.0, 30.0, 38.0, 39.0, 40.0})
        {
            Simulator::Schedule(MicroSeconds(at), &FifoOwner::Add, &owner, kSize);
        }
        Simulator::Run();
        seen.events = Simulator::GetEventCount();
        owner.queue->ReleaseOwner(&owner);
        Simulator::Destroy();
        return seen;
    }

    void DoRun() override
    {
        const Seen pulling = Run(false, false);
        const Seen deferring = Run(true, false);
        // Frames of 8 us, 1 us of delay: starts at 1, 9, 30, 38, 46 and 54 us.
        std::vector<int64_t> expected;
        std::vector<int64_t> endTimes;
        for (const int start : {1, 9, 30, 38, 46, 54})
        {
            expected.push_back(MicroSeconds(start + 9).GetTimeStep());
            endTimes.push_back(MicroSeconds(start + 8).GetTimeStep());
        }
        NS_TEST_ASSERT_MSG_EQ(pulling.arrivals.size(), expected.size(), "every frame arrived");
        NS_TEST_ASSERT_MSG_EQ(deferring.arrivals.size(), expected.size(), "every frame arrived");
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(pulling.arrivals[i], expected[i], "frame " << i << ", pulling");
            NS_TEST_EXPECT_MSG_EQ(deferring.arrivals[i],
                                  expected[i],
                                  "frame " << i << ", deferred");
        }
        // The first and third frames end with nothing queued; the last one too.
        NS_TEST_EXPECT_MSG_LT(deferring.events, pulling.events, "deferred frames spare events");
        const Seen off = Run(true, false, false);
        NS_TEST_EXPECT_MSG_EQ((off.arrivals == expected), true, "DeferIdleCompletions=false");
        NS_TEST_EXPECT_MSG_EQ(off.events,
                              pulling.events,
                              "DeferIdleCompletions=false: an event "
                              "at every frame's end");

        const Seen watched = Run(true, true);
        NS_TEST_EXPECT_MSG_EQ((watched.arrivals == deferring.arrivals),
                              true,
                              "a sink changes no arrival");
        NS_TEST_ASSERT_MSG_EQ(watched.ends.size(), endTimes.size(), "a PhyTxEnd per frame");
        for (std::size_t i = 0; i < endTimes.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(watched.ends[i], endTimes[i], "PhyTxEnd of frame " << i);
        }
    }
};

class PortQueueTestSuite : public TestSuite
{
  public:
    PortQueueTestSuite()
        : TestSuite("metaroce-port-queue", Type::UNIT)
    {
        AddTestCase(new DeferredCompletionTestCase, MetaRoceTestDuration::QUICK);
    }
};

PortQueueTestSuite g_portQueueTestSuite;

} // namespace
