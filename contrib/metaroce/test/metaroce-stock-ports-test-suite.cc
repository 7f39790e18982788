/*
 * metaroce-stock-ports: what ns-3 gives a PointToPointNetDevice reaches a fabric whose NIC and
 * switch ports are such devices (MetaRoceFabricHelper::SetDeviceType with
 * "ns3::PointToPointNetDevice"): PointToPointHelper's ASCII trace writes the hosts' and the
 * switches' receptions, enqueues and dequeues (a port's transmit queue fires Queue's traces on
 * that device); the channel's TxRxPointToPoint trace (NetAnim's) sees every hop, switch to
 * switch included; a ReceiveErrorModel set on a switch's port loses the frames it names, which
 * the fabric monitor counts against that link and the transport sends again; and a host link
 * that goes down and comes back (MetaRoceFabricHelper::FailHostLink) takes the NIC's port down
 * and up, loses what crosses it meanwhile, and the message still completes.
 */
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-fabric-monitor.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/trace-helper.h"

#include <set>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/// Bytes of the one message, host 0 to host 3.
constexpr uint64_t kMessageBytes = 64 << 10;

/// 4 hosts, 2 per leaf, 1 spine, 1 plane, on ns-3's PointToPointNetDevice; host 0 and host 3
/// are on different leaves, so their packets cross host, leaf and spine ports.
void
Build(MetaRoceFabricHelper& f)
{
    f.SetDeviceType("ns3::PointToPointNetDevice");
    f.SetHosts(4);
    f.SetPlanes(1);
    f.SetHostsPerLeaf(2);
    f.SetSpines(1);
    f.SetHostLink(DataRate("100Gbps"), MicroSeconds(1));
    f.SetFabricLink(DataRate("100Gbps"), MicroSeconds(1));
    f.Build();
}

/// The MetaRoCE connection from host 0 to host 3, with the message posted.
std::pair<Ptr<MetaRoceQueuePair>, Ptr<MetaRoceQueuePair>>
Send(const MetaRoceFabricHelper& f)
{
    auto qps = MetaRoceNic::Connect(f.GetNic(0), f.GetNic(3), metaroce::Transport::MetaRoce);
    qps.first->PostWrite(0, kMessageBytes);
    return qps;
}

class TracesTestCase : public TestCase
{
  public:
    TracesTestCase()
        : TestCase("PointToPointHelper's ASCII trace and TxRxPointToPoint reach the switches")
    {
    }

  private:
    void OnHop(Ptr<const Packet>, Ptr<NetDevice> tx, Ptr<NetDevice> rx, Time, Time)
    {
        ++m_hops;
        if (m_switches.count(tx->GetNode()->GetId()) != 0 &&
            m_switches.count(rx->GetNode()->GetId()) != 0)
        {
            ++m_switchToSwitch;
        }
    }

    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Build(f);
        for (uint32_t i = 0; i < f.GetSwitchNodes(0).GetN(); ++i)
        {
            m_switches.insert(f.GetSwitchNodes(0).Get(i)->GetId());
        }
        std::ostringstream ascii;
        PointToPointHelper p2p;
        p2p.EnableAsciiAll(Create<OutputStreamWrapper>(&ascii));
        Config::ConnectWithoutContext("/ChannelList/*/$ns3::PointToPointChannel/TxRxPointToPoint",
                                      MakeCallback(&TracesTestCase::OnHop, this));
        auto [qa, qb] = Send(f);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(qb->GetCounters().placedBytes, kMessageBytes, "every byte placed");
        NS_TEST_EXPECT_MSG_GT(m_hops, 4 * (kMessageBytes / 4096), "every hop seen");
        NS_TEST_EXPECT_MSG_GT(m_switchToSwitch, 0, "leaf-spine hops seen");
        const std::string text = ascii.str();
        // True if the ASCII trace has a line of kind `kind` ("r ", "+ ", "- ") about `node`.
        const auto traced = [&text](uint32_t node, const std::string& kind) {
            const std::string path = "/NodeList/" + std::to_string(node) + "/DeviceList/";
            for (std::size_t at = text.find(path); at != std::string::npos;
                 at = text.find(path, at + 1))
            {
                const std::size_t line = text.rfind('\n', at);
                if (text.compare(line == std::string::npos ? 0 : line + 1, 2, kind) == 0)
                {
                    return true;
                }
            }
            return false;
        };
        std::vector<uint32_t> nodes(m_switches.begin(), m_switches.end());
        nodes.push_back(f.GetHost(0)->GetId());
        nodes.push_back(f.GetHost(3)->GetId());
        for (const uint32_t node : nodes)
        {
            NS_TEST_EXPECT_MSG_EQ(traced(node, "r "), true, "receptions of node " << node);
            NS_TEST_EXPECT_MSG_EQ(traced(node, "+ "), true, "enqueues of node " << node);
            NS_TEST_EXPECT_MSG_EQ(traced(node, "- "), true, "dequeues of node " << node);
        }
        Simulator::Destroy();
    }

    std::set<uint32_t> m_switches;
    uint64_t m_hops{0};
    uint64_t m_switchToSwitch{0};
};

class ErrorModelTestCase : public TestCase
{
  public:
    ErrorModelTestCase()
        : TestCase("a ReceiveErrorModel on a switch's PointToPointNetDevice: counted, repaired")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Build(f);
        // The spine's port towards leaf 0 loses the 3rd and the 9th frames it gets.
        const Ptr<NetDevice> spinePort = f.GetFabricLink(0, 0, 0).second;
        NS_TEST_ASSERT_MSG_EQ((DynamicCast<PointToPointNetDevice>(spinePort) != nullptr),
                              true,
                              "the port is ns-3's device");
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({3, 9});
        spinePort->SetAttribute("ReceiveErrorModel", PointerValue(em));
        MetaRoceFabricMonitor monitor(f);
        auto [qa, qb] = Send(f);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(qb->GetCounters().placedBytes, kMessageBytes, "every byte placed");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(qa->GetCounters().retransmittedPackets,
                                    2,
                                    "the lost frames sent again");
        uint64_t lost = 0;
        uint64_t lostLeafSpine = 0;
        for (const MetaRoceLinkRecord& link : monitor.GetLinks(Simulator::Now()))
        {
            lost += link.lost;
            lostLeafSpine += link.tier == "leaf-spine" && link.from == "leaf-0-0" ? link.lost : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(lost, 2, "two frames lost in the fabric");
        NS_TEST_EXPECT_MSG_EQ(lostLeafSpine, 2, "counted against leaf 0 to the spine");
        Simulator::Destroy();
    }
};

class LinkDownUpTestCase : public TestCase
{
  public:
    LinkDownUpTestCase()
        : TestCase("a host link on PointToPointNetDevices goes down and comes back")
    {
    }

  private:
    void Probe(Ptr<MetaRoceNic> nic, bool* up)
    {
        *up = nic->IsPortUp(0);
    }

    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Build(f);
        // Down at 6 us, when host 3's link carries data one way and acknowledgements the other.
        f.FailHostLink(3, 0, MicroSeconds(6), MicroSeconds(30));
        MetaRoceFabricMonitor monitor(f);
        bool upWhileFailed = true;
        bool upAfter = false;
        Simulator::Schedule(MicroSeconds(10),
                            &LinkDownUpTestCase::Probe,
                            this,
                            f.GetNic(3),
                            &upWhileFailed);
        Simulator::Schedule(MicroSeconds(31),
                            &LinkDownUpTestCase::Probe,
                            this,
                            f.GetNic(3),
                            &upAfter);
        auto [qa, qb] = Send(f);
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(upWhileFailed, false, "the NIC's port is down while failed");
        NS_TEST_EXPECT_MSG_EQ(upAfter, true, "and up again after");
        uint64_t lost = 0;
        for (const MetaRoceLinkRecord& link : monitor.GetLinks(Simulator::Now()))
        {
            lost += link.lost;
        }
        NS_TEST_EXPECT_MSG_GT(lost, 0, "frames on the failed link lost");
        NS_TEST_EXPECT_MSG_EQ(qb->GetCounters().placedBytes, kMessageBytes, "every byte placed");
        Simulator::Destroy();
    }
};

class StockPortsTestSuite : public TestSuite
{
  public:
    StockPortsTestSuite()
        : TestSuite("metaroce-stock-ports", Type::SYSTEM)
    {
        AddTestCase(new TracesTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new ErrorModelTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new LinkDownUpTestCase, MetaRoceTestDuration::QUICK);
    }
};

StockPortsTestSuite g_stockPortsTestSuite;

} // namespace
