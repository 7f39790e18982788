/*
 * NICs and switches together on multi-plane leaf-spine and fat-tree fabrics built by
 * MetaRoceFabricHelper.
 *
 *  - shape: switch, link and port counts per tier for several shapes of both topologies,
 *    addresses, per-tier link rates and oversubscription;
 *  - reachability: every host reaches every other host on every plane (both topologies);
 *  - forwarding: on every switch of every tier, the ECMP next-hop set towards every host is
 *    exactly the expected ports; failed links and switches leave them, restores bring them back;
 *  - a fat-tree core and an aggregation switch fail mid-transfer: MetaRoCE completes;
 *  - ECMP: one MetaRoCE connection between leaves uses every spine of every plane;
 *  - a whole plane fails mid-transfer: MetaRoCE completes every message on the others;
 *  - the receiver's fair share: line / senders while its arrivals are marked, else the line;
 *  - incast into a small buffer: without PFC the switch drops and MetaRoCE still completes; with
 *    PFC RoCEv2 completes without a single drop.
 */
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/metaroce-fabric-failure.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <map>
#include <set>
#include <sstream>

using namespace ns3;
using metaroce::Transport;

namespace
{

void
CountPacket(uint64_t* count, Ptr<const Packet>)
{
    ++*count;
}

/// Four hosts on one switch, one plane: the incast shape.
void
StarOfFour(MetaRoceFabricHelper& f)
{
    f.SetHosts(4);
    f.SetPlanes(1);
    f.SetHostsPerLeaf(4);
    f.SetSpines(0);
}

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

/// A fabric shape and the counts it must produce.
struct ShapeCase
{
    MetaRoceFabricShape shape;
    uint32_t leaves;
    uint32_t pods;
    uint32_t spines; ///< per plane
    uint32_t cores;
    uint32_t links; ///< per plane
};

MetaRoceFabricShape
LeafSpine(uint32_t hosts, uint32_t planes, uint32_t hostsPerLeaf, uint32_t spines)
{
    MetaRoceFabricShape s;
    s.hosts = hosts;
    s.planes = planes;
    s.hostsPerLeaf = hostsPerLeaf;
    s.spines = spines;
    return s;
}

MetaRoceFabricShape
FatTree(uint32_t hosts,
        uint32_t planes,
        uint32_t hostsPerLeaf,
        uint32_t leavesPerPod,
        uint32_t spinesPerPod,
        uint32_t cores)
{
    MetaRoceFabricShape s = LeafSpine(hosts, planes, hostsPerLeaf, spinesPerPod);
    s.topology = MetaRoceTopology::FAT_TREE;
    s.leavesPerPod = leavesPerPod;
    s.cores = cores;
    return s;
}

void
Configure(MetaRoceFabricHelper& f, const MetaRoceFabricShape& s)
{
    f.SetTopology(s.topology);
    f.SetHosts(s.hosts);
    f.SetPlanes(s.planes);
    f.SetHostsPerLeaf(s.hostsPerLeaf);
    f.SetSpines(s.spines);
    f.SetLeavesPerPod(s.leavesPerPod);
    f.SetCores(s.cores);
}

std::string
Describe(const MetaRoceFabricShape& s)
{
    std::ostringstream os;
    os << (s.topology == MetaRoceTopology::FAT_TREE ? "fat-tree" : "leaf-spine") << " " << s.hosts
       << " hosts x " << s.planes << " planes, " << s.hostsPerLeaf << " per leaf, "
       << s.leavesPerPod << " leaves per pod, " << s.spines << " spines, " << s.cores << " cores";
    return os.str();
}

/// Leaf-spine: 3 leaves, 2 spines; a star; uneven leaves. Fat-tree: k = 4; partial leaf and
/// pod; one spine per pod with three cores.
const std::vector<ShapeCase> kShapes = {
    {LeafSpine(6, 2, 2, 2), 3, 1, 2, 0, 6 + 3 * 2},
    {LeafSpine(4, 1, 4, 0), 1, 1, 0, 0, 4},
    {LeafSpine(20, 3, 8, 3), 3, 1, 3, 0, 20 + 3 * 3},
    {FatTree(16, 1, 2, 2, 2, 4), 8, 4, 8, 4, 16 + 8 * 2 + 8 * 2},
    {FatTree(10, 2, 3, 2, 2, 2), 4, 2, 4, 2, 10 + 4 * 2 + 4 * 1},
    {FatTree(12, 1, 2, 4, 1, 3), 6, 2, 2, 3, 12 + 6 * 1 + 2 * 3},
};

class ShapeCountsTestCase : public TestCase
{
  public:
    ShapeCountsTestCase()
        : TestCase("switch, link and port counts per tier for several shapes of both topologies")
    {
    }

  private:
    void DoRun() override
    {
        for (const ShapeCase& c : kShapes)
        {
            MetaRoceFabricHelper f;
            Configure(f, c.shape);
            f.SetCoreLink(DataRate("200Gbps"), MicroSeconds(2));
            f.Build();
            const std::string what = Describe(c.shape);
            const MetaRoceFabricShape& s = f.GetShape();
            NS_TEST_ASSERT_MSG_EQ(f.GetNLeaves(), c.leaves, what);
            NS_TEST_ASSERT_MSG_EQ(f.GetNPods(), c.pods, what);
            NS_TEST_ASSERT_MSG_EQ(f.GetNSpines(), c.spines, what);
            NS_TEST_ASSERT_MSG_EQ(f.GetNCores(), c.cores, what);
            NS_TEST_ASSERT_MSG_EQ(s.Links(), c.links, what);
            NS_TEST_ASSERT_MSG_EQ(f.GetSwitches().size(),
                                  c.shape.planes * (c.leaves + c.spines + c.cores),
                                  what);
            NS_TEST_ASSERT_MSG_EQ(f.GetDevices().GetN(), 2 * c.links * c.shape.planes, what);
            NS_TEST_ASSERT_MSG_EQ(f.GetHosts().GetN(), c.shape.hosts, what);
            for (uint32_t p = 0; p < c.shape.planes; ++p)
            {
                NS_TEST_ASSERT_MSG_EQ(f.GetLinks(p).size(), c.links, what);
                NS_TEST_ASSERT_MSG_EQ(f.GetSwitchNodes(p).GetN(),
                                      c.leaves + c.spines + c.cores,
                                      what);
                for (uint32_t l = 0; l < c.leaves; ++l)
                {
                    const uint32_t hosts = std::min(s.hostsPerLeaf, s.hosts - l * s.hostsPerLeaf);
                    NS_TEST_ASSERT_MSG_EQ(f.GetLeaf(p, l)->GetNPorts(),
                                          hosts + s.SpinesPerPod(),
                                          what << ": leaf " << l);
                }
                for (uint32_t g = 0; g < c.spines; ++g)
                {
                    NS_TEST_ASSERT_MSG_EQ(f.GetSpine(p, g)->GetNPorts(),
                                          s.LeavesIn(g / s.SpinesPerPod()) + s.CoresPerSpine(),
                                          what << ": spine " << g);
                }
                for (uint32_t k = 0; k < c.cores; ++k)
                {
                    NS_TEST_ASSERT_MSG_EQ(f.GetCore(p, k)->GetNPorts(),
                                          c.pods,
                                          what << ": core " << k << " has one link per pod");
                }
            }
            for (uint32_t h = 0; h < c.shape.hosts; ++h)
            {
                NS_TEST_ASSERT_MSG_EQ(f.GetNic(h)->GetNPorts(), c.shape.planes, "port per plane");
            }
            if (c.cores > 0)
            {
                DataRateValue rate;
                f.GetCoreLink(0, 0, 0).second->GetAttribute("DataRate", rate);
                NS_TEST_ASSERT_MSG_EQ(rate.Get(), DataRate("200Gbps"), "per-tier link rate");
            }
            Simulator::Destroy();
        }
        MetaRoceFabricHelper f;
        Configure(f, kShapes[0].shape);
        f.Build();
        NS_TEST_ASSERT_MSG_EQ(f.GetHostAddress(5, 1), Ipv4Address("10.1.2.2"), "addressing");
        NS_TEST_ASSERT_MSG_EQ(f.GetOversubscription(), 1.0, "2 x 100G down, 2 x 100G up");
        Simulator::Destroy();
        // One spine per pod over two hosts per leaf, 4 leaves per pod over 3 x 200G uplinks.
        MetaRoceFabricHelper g;
        Configure(g, kShapes[5].shape);
        g.SetCoreLink(DataRate("200Gbps"), MicroSeconds(1));
        g.Build();
        NS_TEST_ASSERT_MSG_EQ_TOL(g.GetOversubscription(MetaRoceFabricTier::LEAF), 2.0, 1e-9, "");
        NS_TEST_ASSERT_MSG_EQ_TOL(g.GetOversubscription(MetaRoceFabricTier::SPINE),
                                  400.0 / 600.0,
                                  1e-9,
                                  "");
        NS_TEST_ASSERT_MSG_EQ_TOL(g.GetOversubscription(), 2.0 * 400 / 600, 1e-9, "");
        Simulator::Destroy();
    }
};

class ReachabilityTestCase : public TestCase
{
  public:
    explicit ReachabilityTestCase(const MetaRoceFabricShape& shape)
        : TestCase("every host reaches every other on every plane: " + Describe(shape))
        , m_shape(shape)
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Configure(f, m_shape);
        f.Build();
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        for (uint32_t a = 0; a < m_shape.hosts; ++a)
        {
            for (uint32_t b = 0; b < m_shape.hosts; ++b)
            {
                for (uint32_t plane = 0; a != b && plane < m_shape.planes; ++plane)
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
            NS_TEST_EXPECT_MSG_EQ(qp->GetCompletedCount(), 1, "a pair could not talk");
        }
        NS_TEST_ASSERT_MSG_EQ(SwitchDrops(f), 0, "an idle fabric drops nothing");
        for (uint32_t p = 0; p < m_shape.planes; ++p)
        {
            for (const auto& core : f.GetSwitches(p, MetaRoceFabricTier::CORE))
            {
                NS_TEST_ASSERT_MSG_GT(core->GetForwarded(), 0, "a core carried nothing");
            }
        }
        Simulator::Destroy();
    }

    MetaRoceFabricShape m_shape;
};

using DeviceSet = std::multiset<const NetDevice*>;

DeviceSet
NextHopDevices(Ptr<MetaRoceSwitch> sw, Ipv4Address dst)
{
    DeviceSet out;
    for (uint32_t port : sw->GetNextHops(dst))
    {
        out.insert(PeekPointer(sw->GetPortDevice(port)));
    }
    return out;
}

/**
 * The next hops every switch of a plane should have towards host h, from the shape alone:
 * the test's own statement of the routing rules of metaroce-fabric-builder.h.
 */
std::map<const MetaRoceSwitch*, DeviceSet>
ExpectedNextHops(const MetaRoceFabricHelper& f, uint32_t p, uint32_t h)
{
    const MetaRoceFabricShape& s = f.GetShape();
    std::map<const MetaRoceSwitch*, DeviceSet> want;
    const uint32_t dstLeaf = s.LeafOf(h);
    const uint32_t dstPod = s.PodOf(dstLeaf);
    const uint32_t perPod = s.SpinesPerPod();
    const uint32_t perSpine = s.CoresPerSpine();
    for (uint32_t l = 0; l < s.Leaves(); ++l)
    {
        DeviceSet& d = want[PeekPointer(f.GetLeaf(p, l))];
        if (l == dstLeaf)
        {
            d.insert(PeekPointer(f.GetHostLink(h, p).second));
        }
        for (uint32_t j = 0; l != dstLeaf && j < perPod; ++j)
        {
            d.insert(PeekPointer(f.GetFabricLink(p, l, s.PodOf(l) * perPod + j).first));
        }
    }
    for (uint32_t g = 0; g < s.Spines(); ++g)
    {
        DeviceSet& d = want[PeekPointer(f.GetSpine(p, g))];
        if (g / perPod == dstPod)
        {
            d.insert(PeekPointer(f.GetFabricLink(p, dstLeaf, g).second));
        }
        for (uint32_t k = 0; g / perPod != dstPod && k < perSpine; ++k)
        {
            d.insert(PeekPointer(f.GetCoreLink(p, g, s.GroupOf(g) * perSpine + k).first));
        }
    }
    for (uint32_t c = 0; c < f.GetNCores(); ++c)
    {
        const uint32_t spine = dstPod * perPod + c / perSpine;
        want[PeekPointer(f.GetCore(p, c))].insert(PeekPointer(f.GetCoreLink(p, spine, c).second));
    }
    return want;
}

class EcmpNextHopsTestCase : public TestCase
{
  public:
    explicit EcmpNextHopsTestCase(const MetaRoceFabricShape& shape)
        : TestCase("ECMP next hops of every switch are the expected ports: " + Describe(shape))
        , m_shape(shape)
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        Configure(f, m_shape);
        f.Build();
        for (uint32_t p = 0; p < m_shape.planes; ++p)
        {
            for (uint32_t h = 0; h < m_shape.hosts; ++h)
            {
                for (const auto& [sw, want] : ExpectedNextHops(f, p, h))
                {
                    const DeviceSet got =
                        NextHopDevices(const_cast<MetaRoceSwitch*>(sw), f.GetHostAddress(h, p));
                    NS_TEST_EXPECT_MSG_EQ((got == want),
                                          true,
                                          "plane " << p << ", host " << h << ": " << got.size()
                                                   << " next hops, expected " << want.size());
                }
                // Planes are disjoint: nothing routes the next plane's addresses.
                NS_TEST_EXPECT_MSG_EQ(
                    f.GetLeaf(p, 0)->GetNextHops(f.GetShape().HostAddress(h, p + 1)).size(),
                    0,
                    "plane " << p << " routes plane " << p + 1 << "'s host " << h);
            }
        }
        Simulator::Destroy();
    }

    MetaRoceFabricShape m_shape;
};

/// Failures on a k = 4 fat-tree withdraw exactly the failed ports, and restores bring them back.
class FailureNextHopsTestCase : public TestCase
{
  public:
    FailureNextHopsTestCase()
        : TestCase("fat-tree failures of a host link, a core link and a core switch withdraw "
                   "their ports; restores bring them back")
    {
    }

  private:
    /// Next-hop counts while the failures last (see DoRun for the expected values).
    void CheckDuring()
    {
        const MetaRoceFabricHelper& f = *m_fabric;
        const Ipv4Address pod1 = f.GetHostAddress(4, 0); // leaf 2, pod 1
        const Ipv4Address pod0 = f.GetHostAddress(0, 0); // leaf 0, pod 0
        NS_TEST_EXPECT_MSG_EQ(f.GetSpine(0, 0)->GetNextHops(pod1).size(), 1, "core 1 is down");
        NS_TEST_EXPECT_MSG_EQ(f.GetSpine(0, 2)->GetNextHops(pod0).size(),
                              0,
                              "spine 2 lost both uplinks");
        NS_TEST_EXPECT_MSG_EQ(f.GetCore(0, 0)->GetNextHops(pod1).size(),
                              0,
                              "core 0 lost its link into pod 1");
        NS_TEST_EXPECT_MSG_EQ(f.GetCore(0, 0)->GetNextHops(pod0).size(), 1, "pod 0 unaffected");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 1)->GetNextHops(f.GetHostAddress(3, 0)).size(),
                              0,
                              "host 3's link is down: no fallback route up");
        NS_TEST_EXPECT_MSG_EQ(f.GetNic(3)->IsPortUp(0), false, "host 3's NIC port is down");
        NS_TEST_EXPECT_MSG_EQ(f.GetCore(0, 2)->GetNextHops(pod1).size(), 1, "group 1 unaffected");
    }

    void DoRun() override
    {
        MetaRoceFabricHelper f;
        m_fabric = &f;
        f.SetTopology(MetaRoceTopology::FAT_TREE);
        f.SetHosts(16);
        f.SetFatTree(4);
        f.Build();
        // Core group 0 = cores 0 and 1, reached from spines 0, 2, 4, 6 (spine 2 is in pod 1).
        f.FailSwitch(0, MetaRoceFabricTier::CORE, 1, MicroSeconds(1), MicroSeconds(3));
        f.FailCoreLink(0, 2, 0, MicroSeconds(1));
        f.FailHostLink(3, 0, MicroSeconds(1), MicroSeconds(2));
        Simulator::Schedule(MicroSeconds(1) + NanoSeconds(500),
                            &FailureNextHopsTestCase::CheckDuring,
                            this);
        Simulator::Run();
        const Ipv4Address pod1 = f.GetHostAddress(4, 0);
        NS_TEST_ASSERT_MSG_EQ(f.GetSpine(0, 0)->GetNextHops(pod1).size(), 2, "core 1 restored");
        NS_TEST_ASSERT_MSG_EQ(f.GetSpine(0, 2)->GetNextHops(f.GetHostAddress(0, 0)).size(),
                              1,
                              "spine 2 - core 0 stays down");
        NS_TEST_ASSERT_MSG_EQ(f.GetLeaf(0, 1)->GetNextHops(f.GetHostAddress(3, 0)).size(),
                              1,
                              "host 3's link restored");
        NS_TEST_ASSERT_MSG_EQ(f.GetNic(3)->IsPortUp(0), true, "host 3's NIC port restored");
        Simulator::Destroy();
    }

    const MetaRoceFabricHelper* m_fabric{nullptr}; ///< the fabric of the running DoRun
};

class SetLinkStateTestCase : public TestCase
{
  public:
    SetLinkStateTestCase()
        : TestCase("MetaRoceFabricFailure::SetLinkState takes both ends of a link down and up now")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        f.SetHosts(8);
        f.SetPlanes(1);
        f.SetHostsPerLeaf(4);
        f.SetSpines(2);
        f.Build();
        const Ipv4Address host3 = f.GetHostAddress(3, 0);
        const Ipv4Address host4 = f.GetHostAddress(4, 0); // on leaf 1
        MetaRoceFabricLink hostLink;
        MetaRoceFabricLink uplink; // leaf 0 - spine 1
        for (const auto& l : f.GetLinks(0))
        {
            hostLink = l.nic == f.GetNic(3) ? l : hostLink;
            uplink = l.swA == f.GetLeaf(0, 0) && l.swB == f.GetSpine(0, 1) ? l : uplink;
        }
        NS_TEST_ASSERT_MSG_EQ((hostLink.nic == f.GetNic(3)), true, "host 3's link found");
        NS_TEST_ASSERT_MSG_EQ((uplink.swB == f.GetSpine(0, 1)), true, "leaf 0's uplink found");
        MetaRoceFabricFailure::SetLinkState(hostLink, false);
        NS_TEST_EXPECT_MSG_EQ(f.GetNic(3)->IsPortUp(0), false, "NIC end down");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 0)->GetNextHops(host3).size(), 0, "leaf end down");
        MetaRoceFabricFailure::SetLinkState(uplink, false);
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 0)->GetNextHops(host4).size(), 1, "one spine left");
        MetaRoceFabricFailure::SetLinkState(hostLink, true);
        MetaRoceFabricFailure::SetLinkState(uplink, true);
        NS_TEST_EXPECT_MSG_EQ(f.GetNic(3)->IsPortUp(0), true, "NIC end up");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 0)->GetNextHops(host3).size(), 1, "leaf end up");
        NS_TEST_EXPECT_MSG_EQ(f.GetLeaf(0, 0)->GetNextHops(host4).size(), 2, "both spines");
        Simulator::Destroy();
    }
};

/// A cross-pod permutation on a 2-plane k = 4 fat-tree loses a core and a spine mid-transfer.
class FatTreeSwitchFailureTestCase : public TestCase
{
  public:
    FatTreeSwitchFailureTestCase()
        : TestCase("fat-tree core and spine fail mid-transfer: MetaRoCE completes")
    {
    }

  private:
    void Snapshot()
    {
        m_coreForwarded = m_fabric->GetCore(0, 0)->GetForwarded();
    }

    void DoRun() override
    {
        MetaRoceFabricHelper f;
        m_fabric = &f;
        f.SetTopology(MetaRoceTopology::FAT_TREE);
        f.SetHosts(16);
        f.SetPlanes(2);
        f.SetFatTree(4);
        f.Build();
        f.FailSwitch(0, MetaRoceFabricTier::CORE, 0, MicroSeconds(20));
        f.FailSwitch(1, MetaRoceFabricTier::SPINE, 3, MicroSeconds(25));
        // Once the packets being serialised at 20 us are out, core 0 forwards nothing more.
        Simulator::Schedule(MicroSeconds(21), &FatTreeSwitchFailureTestCase::Snapshot, this);
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        for (uint32_t h = 0; h < 16; ++h)
        {
            auto [qa, qb] =
                MetaRoceNic::Connect(f.GetNic(h), f.GetNic((h + 8) % 16), Transport::MetaRoce);
            qa->PostWrite(0, 1 << 20);
            senders.push_back(qa);
        }
        Simulator::Run();
        uint64_t retx = 0;
        for (const auto& qp : senders)
        {
            NS_TEST_ASSERT_MSG_EQ(qp->GetCompletedCount(), 1, "a message was lost");
            retx += qp->GetCounters().retransmittedPackets;
        }
        NS_TEST_ASSERT_MSG_GT(retx, 0, "the failures should have cost some packets");
        NS_TEST_ASSERT_MSG_GT(m_coreForwarded, 0, "core 0 carried nothing before failing");
        NS_TEST_ASSERT_MSG_EQ(f.GetCore(0, 0)->GetForwarded(),
                              m_coreForwarded,
                              "a failed core kept forwarding");
        Simulator::Destroy();
    }

    const MetaRoceFabricHelper* m_fabric{nullptr}; ///< the fabric of the running DoRun
    uint64_t m_coreForwarded{0};
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
        // Fixed streams: the entropies, and so the spines, do not depend on how many random
        // variables the suites run before this one made (ns-3 numbers streams in order).
        f.AssignStreams(1);
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
        StarOfFour(f);
        f.SetSwitchAttribute("BufferSize", UintegerValue(256 * 1024));
        f.SetSwitchAttribute("PfcEnabled", BooleanValue(m_pfc));
        f.SetSwitchAttribute("PfcXoff", UintegerValue(40 * 1024));
        f.SetSwitchAttribute("PfcXon", UintegerValue(20 * 1024));
        f.SetNicAttribute("InitialFlowWindow", UintegerValue(32));
        f.Build();
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        std::vector<uint64_t> wirePackets(4, 0);
        for (uint32_t h = 1; h < 4; ++h)
        {
            auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(h), f.GetNic(0), m_transport);
            qa->PostWrite(0, 2 << 20);
            senders.push_back(qa);
            f.GetNic(h)->GetPort(0)->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeBoundCallback(&CountPacket, &wirePackets[h]));
        }
        // A paused NIC leaves its data in the engines: every packet they handed out is on the
        // wire, or is the one the device is about to send.
        uint64_t mostAhead = 0;
        for (uint32_t us = 1; us < 400; ++us)
        {
            Simulator::Schedule(MicroSeconds(us), [&]() {
                for (uint32_t h = 1; h < 4; ++h)
                {
                    const uint64_t handed = senders[h - 1]->GetCounters().txPackets;
                    mostAhead =
                        std::max(mostAhead, handed > wirePackets[h] ? handed - wirePackets[h] : 0);
                }
            });
        }
        Simulator::Run();
        NS_TEST_EXPECT_MSG_LT_OR_EQ(mostAhead, 1, "packets handed out but not on the wire");
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

/// 3-to-1 incast: the receiver advertises line / 3 while its arrivals are CE-marked (or always,
/// without FairShareWhenMarked), the line rate otherwise (spec 8.3).
class FairShareTestCase : public TestCase
{
  public:
    FairShareTestCase(bool whenMarked, bool ecn)
        : TestCase(std::string("fair share, FairShareWhenMarked=") +
                   (whenMarked ? "true" : "false") + ", ECN " + (ecn ? "on" : "off"))
        , m_whenMarked(whenMarked)
        , m_ecn(ecn)
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        StarOfFour(f);
        f.SetSwitchAttribute("EcnEnabled", BooleanValue(m_ecn));
        f.SetNicAttribute("FairShareWhenMarked", BooleanValue(m_whenMarked));
        f.Build();
        for (uint32_t h = 1; h < 4; ++h)
        {
            auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(h), f.GetNic(0), Transport::MetaRoce);
            qa->PostWrite(0, 2 << 20);
        }
        uint64_t share = 0;
        Simulator::Schedule(MicroSeconds(200), [&]() { share = f.GetNic(0)->GetFairShare(); });
        Simulator::Run();
        const uint64_t line = 100'000'000'000ULL;
        const uint64_t expected = (m_ecn || !m_whenMarked) ? line / 3 : line;
        NS_TEST_EXPECT_MSG_EQ(share, expected, "the receiver's advertised share at 200 us");
        Simulator::Destroy();
    }

    bool m_whenMarked;
    bool m_ecn;
};

class MetaRoceFabricTestSuite : public TestSuite
{
  public:
    MetaRoceFabricTestSuite()
        : TestSuite("metaroce-fabric", Type::SYSTEM)
    {
        AddTestCase(new ShapeCountsTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new SetLinkStateTestCase, MetaRoceTestDuration::QUICK);
        for (uint32_t i : {2, 3, 4, 5})
        {
            AddTestCase(new EcmpNextHopsTestCase(kShapes[i].shape), MetaRoceTestDuration::QUICK);
        }
        AddTestCase(new ReachabilityTestCase(kShapes[0].shape), MetaRoceTestDuration::QUICK);
        AddTestCase(new ReachabilityTestCase(kShapes[4].shape), MetaRoceTestDuration::QUICK);
        AddTestCase(new ReachabilityTestCase(kShapes[5].shape), MetaRoceTestDuration::QUICK);
        AddTestCase(new FailureNextHopsTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FatTreeSwitchFailureTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new SprayOverSpinesTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PlaneFailureTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new IncastTestCase(Transport::MetaRoce, false), MetaRoceTestDuration::QUICK);
        AddTestCase(new IncastTestCase(Transport::RoceV2, true), MetaRoceTestDuration::QUICK);
        AddTestCase(new FairShareTestCase(true, true), MetaRoceTestDuration::QUICK);
        AddTestCase(new FairShareTestCase(true, false), MetaRoceTestDuration::QUICK);
        AddTestCase(new FairShareTestCase(false, false), MetaRoceTestDuration::QUICK);
    }
};

MetaRoceFabricTestSuite g_metaRoceFabricTestSuite;

} // namespace
