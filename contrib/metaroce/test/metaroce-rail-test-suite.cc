/*
 * Rail-optimized fabrics (MetaRoceFabricHelper, MetaRoceTopology::RAIL).
 *
 *  - shape: switch and link counts, addresses (a host's leaf is its rail's leaf of its group),
 *    and impossible shapes refused with their reason;
 *  - routing, walked through every switch's forwarding table over every ECMP alternative from
 *    every host to every other: every path reaches its destination; the number of switches on
 *    it is 1 within a server, 3 within a group of servers and 5 between groups; every leaf on
 *    it is a leaf of the destination's rail (inter-rail traffic crosses the intra-server link
 *    and then stays on the destination's rail, PXN-like), so traffic between hosts of one rail
 *    in one group never leaves its rail leaf for a spine;
 *  - ideal times on a small rail fabric, lossless, MetaRoCE: a ring all-gather (three of its
 *    four hops per server on the intra-server link, one across the servers on rail 0) ends
 *    within 5% of (n - 1) (S / (n B) + L), B the NIC rate and L the latency between servers; a
 *    permutation within one server runs at the intra-server rate (within 8%: headers).
 */
#include "ns3/channel.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-message-log.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <functional>
#include <set>

using namespace ns3;

namespace
{

/// 16 GPUs in 4 servers of 4, 2 servers per group (2 groups, 8 rail leaves), 2 spines.
void
SmallRail(MetaRoceFabricHelper& f, uint32_t planes = 1)
{
    f.SetTopology(MetaRoceTopology::RAIL);
    f.SetHosts(16);
    f.SetRailGpus(4);
    f.SetHostsPerLeaf(2);
    f.SetSpines(2);
    f.SetPlanes(planes);
}

class RailShapeTestCase : public TestCase
{
  public:
    RailShapeTestCase()
        : TestCase("rail shape: counts, addresses, refused shapes")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        SmallRail(f, 2);
        f.Build();
        const MetaRoceFabricShape& s = f.GetShape();
        NS_TEST_ASSERT_MSG_EQ(f.GetNServers(), 4, "servers");
        NS_TEST_ASSERT_MSG_EQ(f.GetNLeaves(), 8, "4 rails x 2 groups");
        NS_TEST_ASSERT_MSG_EQ(f.GetNSpines(), 2, "spines");
        NS_TEST_ASSERT_MSG_EQ(s.Switches(), 8 + 2 + 4, "switches per plane");
        NS_TEST_ASSERT_MSG_EQ(f.GetLinks(0).size(), 16 + 16 + 8 * 2, "links per plane");
        NS_TEST_ASSERT_MSG_EQ(s.Links(), 16 + 16 + 8 * 2, "the shape's link count");
        NS_TEST_ASSERT_MSG_EQ(f.GetSwitches().size(), 2 * 14, "both planes");
        // Host 13: server 3 (group 1, its second server), GPU 1: leaf 1 x 4 + 1 = 5, port 1.
        NS_TEST_ASSERT_MSG_EQ(s.LeafOf(13), 5, "rail leaf");
        NS_TEST_ASSERT_MSG_EQ(f.GetHostAddress(13, 1), Ipv4Address("10.1.5.2"), "address");
        NS_TEST_ASSERT_MSG_EQ(f.GetServer(0, 3)->GetNPorts(), 8, "4 GPUs and 4 rails");
        NS_TEST_ASSERT_MSG_EQ(f.GetLeaf(0, 5)->GetNPorts(), 2 + 2, "2 servers and 2 spines");
        NS_TEST_ASSERT_MSG_EQ(f.GetOversubscription(), 1.0, "2 x 100G down, 2 x 100G up");
        Simulator::Destroy();

        MetaRoceFabricShape bad;
        bad.topology = MetaRoceTopology::RAIL;
        bad.hosts = 16;
        bad.hostsPerLeaf = 2;
        bad.railGpus = 3;
        NS_TEST_EXPECT_MSG_NE(bad.Problem().find("dividing the hosts"), std::string::npos, "");
        bad.railGpus = 4;
        bad.spines = 0;
        NS_TEST_EXPECT_MSG_NE(bad.Problem().find("without spines"), std::string::npos, "");
        bad.hostsPerLeaf = 4; // one group: a rail-only fabric needs no spine
        NS_TEST_EXPECT_MSG_EQ(bad.Problem(), "", "rail-only");
        bad.topology = MetaRoceTopology::LEAF_SPINE;
        NS_TEST_EXPECT_MSG_NE(bad.Problem().find("needs the RAIL"), std::string::npos, "");
    }
};

/// Every path a packet from `src` to `dst` may take on `plane`, over every ECMP alternative:
/// each as the switches it crosses. Aborts the walk (an empty path) at a dead end or a loop.
std::vector<std::vector<Ptr<MetaRoceSwitch>>>
Paths(const MetaRoceFabricHelper& f, uint32_t src, uint32_t dst, uint32_t plane)
{
    const Ipv4Address to = f.GetHostAddress(dst, plane);
    const Ptr<NetDevice> goal = f.GetHostLink(dst, plane).first;
    std::vector<std::vector<Ptr<MetaRoceSwitch>>> paths;
    std::function<void(Ptr<NetDevice>, std::vector<Ptr<MetaRoceSwitch>>)> walk =
        [&](Ptr<NetDevice> arrived, std::vector<Ptr<MetaRoceSwitch>> path) {
            if (arrived == goal)
            {
                paths.push_back(path);
                return;
            }
            Ptr<MetaRoceSwitch> sw = arrived->GetNode()->GetObject<MetaRoceSwitch>();
            const auto hops = sw ? sw->GetNextHops(to) : std::vector<uint32_t>{};
            path.push_back(sw);
            if (hops.empty() || path.size() > 8)
            {
                paths.push_back({}); // a dead end or a loop
                return;
            }
            for (uint32_t port : hops)
            {
                Ptr<NetDevice> out = sw->GetPortDevice(port);
                Ptr<Channel> channel = out->GetChannel();
                walk(channel->GetDevice(channel->GetDevice(0) == out ? 1 : 0), path);
            }
        };
    walk(f.GetHostLink(src, plane).second, {});
    return paths;
}

class RailRoutingTestCase : public TestCase
{
  public:
    RailRoutingTestCase()
        : TestCase(
              "rail routing: every pair reachable, on the destination's rail, 1, 3 or 5 switches")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceFabricHelper f;
        SmallRail(f, 2);
        f.Build();
        const MetaRoceFabricShape& s = f.GetShape();
        for (uint32_t p = 0; p < 2; ++p)
        {
            std::set<const MetaRoceSwitch*> spinesUsed;
            for (uint32_t a = 0; a < s.hosts; ++a)
            {
                for (uint32_t b = 0; b < s.hosts; ++b)
                {
                    if (a != b)
                    {
                        CheckPair(f, p, a, b, spinesUsed);
                    }
                }
            }
            NS_TEST_EXPECT_MSG_EQ(spinesUsed.size(), 2, "both spines join the groups");
        }
        Simulator::Destroy();
    }

    void CheckPair(const MetaRoceFabricHelper& f,
                   uint32_t p,
                   uint32_t a,
                   uint32_t b,
                   std::set<const MetaRoceSwitch*>& spinesUsed)
    {
        const MetaRoceFabricShape& s = f.GetShape();
        const bool sameServer = s.ServerOf(a) == s.ServerOf(b);
        const bool sameGroup = s.ServerOf(a) / s.hostsPerLeaf == s.ServerOf(b) / s.hostsPerLeaf;
        const size_t want = sameServer ? 1 : (sameGroup ? 3 : 5);
        const auto paths = Paths(f, a, b, p);
        NS_TEST_ASSERT_MSG_EQ(paths.size(), sameGroup ? 1 : 2, a << " -> " << b << ": ECMP");
        for (const auto& path : paths)
        {
            NS_TEST_ASSERT_MSG_EQ(path.size(), want, a << " -> " << b << " on plane " << p);
            NS_TEST_EXPECT_MSG_EQ(path.front(), f.GetServer(p, s.ServerOf(a)), "source server");
            NS_TEST_EXPECT_MSG_EQ(path.back(), f.GetServer(p, s.ServerOf(b)), "dest server");
            for (size_t i = 1; i + 1 < path.size(); ++i)
            {
                // Leaves at 1 (the source group's leaf of the destination's rail) and size - 2
                // (the destination's leaf); a spine in the middle between groups.
                const uint32_t group = s.ServerOf(a) / s.hostsPerLeaf;
                if (i == 1 || i + 2 == path.size())
                {
                    const uint32_t leaf = i == 1 ? group * s.railGpus + s.RailOf(b) : s.LeafOf(b);
                    NS_TEST_EXPECT_MSG_EQ(path[i],
                                          f.GetLeaf(p, leaf),
                                          a << " -> " << b << ": off the destination's rail");
                }
                else
                {
                    spinesUsed.insert(PeekPointer(path[i]));
                }
            }
        }
    }
};

/// 8 GPUs in 2 servers of 4 on one group of rail leaves (a rail-only fabric), 1 plane.
MetaRoceExperimentConfig
RailConfig(const std::string& workload, uint64_t bytes)
{
    MetaRoceExperimentConfig c;
    c.topology = "rail";
    c.hosts = 8;
    c.railGpus = 4;
    c.planes = 1;
    c.hostsPerLeaf = 2;
    c.spines = 0;
    c.workload = workload;
    c.messageBytes = bytes;
    return c;
}

class RailIdealTimeTestCase : public TestCase
{
  public:
    RailIdealTimeTestCase()
        : TestCase("rail: a ring all-gather within 5% of ideal, a permutation in a server 8%")
    {
    }

  private:
    void DoRun() override
    {
        const MetaRoceExperimentConfig c = RailConfig("allgather-ring", 4 << 20);
        const double n = c.hosts;
        const double nicBytesPerUs = 100e9 / 8 / 1e6;
        // The slowest step: the hop between servers (GPU 3 of server 0 to GPU 0 of server 1).
        const double latency = MetaRoceMessageLog(c, 100e9, 4096).IdealUs(3, 4, 0);
        const double ideal = (n - 1) * (c.messageBytes / n / nicBytesPerUs + latency);
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "all-gather");
        NS_TEST_EXPECT_MSG_EQ(r.collective.bytesSent, r.collective.bytesExpected, "bytes");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.collective.timeUs / ideal,
                                  1.0,
                                  0.05,
                                  r.collective.timeUs << " us, ideal " << ideal);

        // One server: a permutation (GPU r to GPU r + 2) never leaves the server switch and runs
        // at the intra-server rate, 900 Gb/s, nine times the NIC's: 39.7 us for 37.5 us of
        // payload and latency (the headers and the transport's start take the rest), so 8%.
        MetaRoceExperimentConfig one = RailConfig("permutation", 4 << 20);
        one.hosts = 4;
        one.hostsPerLeaf = 1;
        const double serverIdeal = MetaRoceMessageLog(one, 100e9, 4096).IdealUs(0, 2, 4 << 20);
        const MetaRoceExperimentResults p = MetaRoceExperiment(one).Run();
        NS_TEST_ASSERT_MSG_EQ(p.complete, true, "permutation");
        NS_TEST_EXPECT_MSG_EQ_TOL(p.collective.timeUs / serverIdeal,
                                  1.0,
                                  0.08,
                                  p.collective.timeUs << " us, ideal " << serverIdeal);
        NS_TEST_EXPECT_MSG_LT(serverIdeal, (4 << 20) / nicBytesPerUs / 8, "NVLink speed");
    }
};

class RailTestSuite : public TestSuite
{
  public:
    RailTestSuite()
        : TestSuite("metaroce-rail", Type::UNIT)
    {
        AddTestCase(new RailShapeTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new RailRoutingTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new RailIdealTimeTestCase, MetaRoceTestDuration::QUICK);
    }
};

RailTestSuite g_railTestSuite;

} // namespace
