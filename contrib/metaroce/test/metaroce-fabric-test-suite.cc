/*
 * NICs and switches together on multi-plane leaf-spine fabrics built by MetaRoceFabricHelper.
 *
 *  - shape: host, leaf, spine counts and addresses; every host reaches every other host on
 *    every plane;
 *  - ECMP: one MetaRoCE connection between leaves uses every spine of every plane;
 *  - a whole plane fails mid-transfer: MetaRoCE completes every message on the others;
 *  - incast into a small buffer: without PFC the switch drops and MetaRoCE still completes; with
 *    PFC RoCEv2 completes without a single drop.
 */
#include "ns3/boolean.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using metaroce::Transport;

namespace
{

uint64_t
SwitchDrops(const MetaRoceFabricHelper& f)
{
    uint64_t drops = 0;
    for (const auto& sw : f.GetSwitches())
    {
        drops += sw->GetDropped();
    }
    return drops;
}

class ShapeTestCase : public TestCase
{
  public:
    ShapeTestCase()
        : TestCase("fabric shape and all-pairs reachability on every plane")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        f.SetHosts(6);
        f.SetPlanes(2);
        f.SetHostsPerLeaf(2);
        f.SetSpines(2);
        f.Build();
        NS_TEST_ASSERT_MSG_EQ(f.GetNLeaves(), 3, "6 hosts, 2 per leaf");
        NS_TEST_ASSERT_MSG_EQ(f.GetSwitches().size(), 2 * (3 + 2), "leaves and spines per plane");
        NS_TEST_ASSERT_MSG_EQ(f.GetHostAddress(5, 1), Ipv4Address("10.1.2.2"), "addressing");
        NS_TEST_ASSERT_MSG_EQ(f.GetNic(3)->GetNPorts(), 2, "one NIC port per plane");
        NS_TEST_ASSERT_MSG_EQ(f.GetOversubscription(), 1.0, "2 x 100G down, 2 x 100G up");
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        for (uint32_t a = 0; a < 6; ++a)
        {
            for (uint32_t b = 0; b < 6; ++b)
            {
                for (uint32_t plane = 0; a != b && plane < 2; ++plane)
                {
                    auto [qa, qb] =
                        MetaRoceNic::Connect(f.GetNic(a), f.GetNic(b), Transport::RoceV2, plane);
                    qa->PostWrite(0, 8192);
                    senders.push_back(qa);
                }
            }
        }
        Simulator::Run();
        for (const auto& qp : senders)
        {
            NS_TEST_ASSERT_MSG_EQ(qp->GetCompletedCount(), 1, "a pair could not talk");
        }
        NS_TEST_ASSERT_MSG_EQ(SwitchDrops(f), 0, "an idle fabric drops nothing");
        Simulator::Destroy();
    }
};

class SprayOverSpinesTestCase : public TestCase
{
  public:
    SprayOverSpinesTestCase()
        : TestCase("one MetaRoCE connection uses every spine of every plane")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        f.SetHosts(4);
        f.SetPlanes(2);
        f.SetHostsPerLeaf(2);
        f.SetSpines(4);
        f.Build();
        auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(0), f.GetNic(3), Transport::MetaRoce);
        qa->PostWrite(0, 4 << 20);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 1, "the WRITE did not complete");
        for (uint32_t p = 0; p < 2; ++p)
        {
            for (uint32_t s = 0; s < 4; ++s)
            {
                NS_TEST_ASSERT_MSG_GT(f.GetSpine(p, s)->GetForwarded(),
                                      20,
                                      "spine " << s << " of plane " << p << " carried nothing");
            }
        }
        Simulator::Destroy();
    }
};

class PlaneFailureTestCase : public TestCase
{
  public:
    PlaneFailureTestCase()
        : TestCase("a plane fails mid-transfer: MetaRoCE completes on the others")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        f.SetHosts(4);
        f.SetPlanes(4);
        f.SetHostsPerLeaf(2);
        f.SetSpines(2);
        f.Build();
        f.FailPlane(2, MicroSeconds(30));
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        for (uint32_t h = 0; h < 4; ++h)
        {
            auto [qa, qb] =
                MetaRoceNic::Connect(f.GetNic(h), f.GetNic((h + 2) % 4), Transport::MetaRoce);
            for (int m = 0; m < 4; ++m)
            {
                qa->PostWrite(static_cast<uint16_t>(m), 1 << 20);
            }
            senders.push_back(qa);
        }
        Simulator::Run();
        uint64_t retx = 0;
        for (const auto& qp : senders)
        {
            NS_TEST_ASSERT_MSG_EQ(qp->GetCompletedCount(), 4, "messages were lost");
            retx += qp->GetCounters().retransmittedPackets;
        }
        NS_TEST_ASSERT_MSG_GT(retx, 0, "the failure should have cost some packets");
        Simulator::Destroy();
    }
};

/// 3 senders into one receiver through one leaf with a 256 KiB buffer.
class IncastTestCase : public TestCase
{
  public:
    IncastTestCase(Transport t, bool pfc)
        : TestCase(std::string(metaroce::TransportName(t)) + " incast " +
                   (pfc ? "with PFC: lossless" : "without PFC: drops, still completes"))
        , m_transport(t)
        , m_pfc(pfc)
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        f.SetHosts(4);
        f.SetPlanes(1);
        f.SetHostsPerLeaf(4);
        f.SetSpines(0);
        f.SetSwitchAttribute("BufferSize", UintegerValue(256 * 1024));
        f.SetSwitchAttribute("PfcEnabled", BooleanValue(m_pfc));
        f.SetSwitchAttribute("PfcXoff", UintegerValue(40 * 1024));
        f.SetSwitchAttribute("PfcXon", UintegerValue(20 * 1024));
        f.SetNicAttribute("InitialPathWindow", UintegerValue(32));
        f.Build();
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        for (uint32_t h = 1; h < 4; ++h)
        {
            auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(h), f.GetNic(0), m_transport);
            qa->PostWrite(0, 2 << 20);
            senders.push_back(qa);
        }
        Simulator::Run();
        for (const auto& qp : senders)
        {
            NS_TEST_ASSERT_MSG_EQ(qp->GetCompletedCount(), 1, "an incast sender did not finish");
        }
        if (m_pfc)
        {
            NS_TEST_ASSERT_MSG_EQ(SwitchDrops(f), 0, "PFC must keep the fabric lossless");
            NS_TEST_ASSERT_MSG_GT(f.GetLeaf(0, 0)->GetPortCounters(0).pauseSent +
                                      f.GetLeaf(0, 0)->GetPortCounters(1).pauseSent +
                                      f.GetLeaf(0, 0)->GetPortCounters(2).pauseSent +
                                      f.GetLeaf(0, 0)->GetPortCounters(3).pauseSent,
                                  0,
                                  "the incast should have triggered PAUSE");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(SwitchDrops(f), 0, "a 3:1 incast into 256 KiB should drop");
        }
        Simulator::Destroy();
    }

    Transport m_transport;
    bool m_pfc;
};

class MetaRoceFabricTestSuite : public TestSuite
{
  public:
    MetaRoceFabricTestSuite()
        : TestSuite("metaroce-fabric", SYSTEM)
    {
        AddTestCase(new ShapeTestCase, QUICK);
        AddTestCase(new SprayOverSpinesTestCase, QUICK);
        AddTestCase(new PlaneFailureTestCase, QUICK);
        AddTestCase(new IncastTestCase(Transport::MetaRoce, false), QUICK);
        AddTestCase(new IncastTestCase(Transport::RoceV2, true), QUICK);
    }
};

MetaRoceFabricTestSuite g_metaRoceFabricTestSuite;

} // namespace
