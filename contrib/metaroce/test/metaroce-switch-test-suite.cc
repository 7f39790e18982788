/*
 * The metaroce switch (MetaRoceSwitch) on small hand-built topologies: a star of bare "hosts"
 * (MetaRoceNetDevices with their own pull queue, sending scripted IPv4/UDP packets and
 * honouring PFC through the shared frame parser) around one switch.
 *
 * 1. forwarding: longest prefix wins, a withdrawn prefix falls back, no-route/port-down drops;
 * 2. ECMP: even spread (chi-square), stable per 5-tuple, different per seed, down ports left out;
 * 3. ECN: a 2:1 incast marks ECT packets only and only above Kmin, in copies (an upstream holder
 *    of the packet sees it unmarked); a 1:1 flow is never marked;
 * 4. drop-tail: a small buffer drops under the right reason and conserves packets;
 * 5. strict priority: CONTROL packets overtake a standing DATA queue;
 * 6. trimming: refused DATA arrives as headers, with its original UDP length;
 * 7. PFC: the same incast is lossless with PFC on and lossy with it off; frame round trip.
 */
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-port-queue.h"
#include "ns3/metaroce-switch.h"
#include "ns3/node-container.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

constexpr double kChi2Crit3Dof = 16.27; ///< chi-square 99.9% critical value, 3 degrees of freedom
constexpr double kChi2Crit2Dof = 13.82; ///< same, 2 degrees of freedom

/// An IPv4/UDP test packet.
Ptr<Packet>
MakeUdp(Ipv4Address src,
        Ipv4Address dst,
        uint16_t sport,
        uint32_t payload,
        uint8_t ecn = 0,
        uint8_t dscp = 0)
{
    Ptr<Packet> p = Create<Packet>(payload);
    UdpHeader udp;
    udp.SetSourcePort(sport);
    udp.SetDestinationPort(4792);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetEcn(Ipv4Header::EcnType(ecn));
    ip.SetDscp(Ipv4Header::DscpType(dscp));
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    return p;
}

/// What a host saw of one packet.
struct Arrival
{
    Ipv4Address src;
    uint16_t sport;
    uint8_t ecn;
    uint32_t ipSize;    ///< bytes on the wire (IPv4 total)
    uint16_t udpLength; ///< the UDP length field (the original size if trimmed)
    Time at;
};

/// A bare host: scripted sender, counting receiver, PFC-honouring like a NIC must be.
class TestHost : public MetaRocePortOwner
{
  public:
    explicit TestHost(Ptr<MetaRoceNetDevice> dev)
        : m_dev(dev)
        , m_queue(CreateObject<MetaRocePortQueue>())
    {
        m_queue->SetOwner(this, 0);
        m_queue->Attach(dev);
        dev->SetReceiveCallback(MakeCallback(&TestHost::Receive, this));
    }

    void Send(Ptr<Packet> p)
    {
        MetaRocePacketInfo info;
        MetaRoceParseIpv4(p, info);
        m_tx[MetaRoceClassify(info.tos, info.l4Payload, kMetaRoceControlMaxPayload)].push_back(p);
        m_queue->Kick();
        sent.push_back(p);
    }

    std::vector<Arrival> rx;
    /// The packets sent, as a trace sink upstream of the switch would hold them.
    std::vector<Ptr<const Packet>> sent;
    uint32_t pausesReceived{0};
    uint32_t resumesReceived{0};

  private:
    Ptr<Packet> PullPort(uint32_t) override
    {
        for (uint32_t c = 0; c < kMetaRoceNumClasses; ++c)
        {
            if (!m_paused[c] && !m_tx[c].empty())
            {
                Ptr<Packet> p = m_tx[c].front();
                m_tx[c].pop_front();
                return p;
            }
        }
        return nullptr;
    }

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> packet, uint16_t, const Address&)
    {
        if (auto f = ParsePfcFrame(packet))
        {
            m_expiry[f->cls].Cancel();
            m_paused[f->cls] = f->pause;
            if (f->pause)
            {
                pausesReceived++;
                DataRateValue rate;
                m_dev->GetAttribute("DataRate", rate);
                m_expiry[f->cls] = Simulator::Schedule(PfcQuantaToTime(f->quanta, rate.Get()),
                                                       &TestHost::Resume,
                                                       this,
                                                       f->cls);
            }
            else
            {
                resumesReceived++;
                Resume(f->cls);
            }
            return true;
        }
        Ptr<Packet> p = packet->Copy();
        Ipv4Header ip;
        p->RemoveHeader(ip);
        uint8_t udp[8];
        p->CopyData(udp, sizeof(udp));
        rx.push_back({ip.GetSource(),
                      uint16_t((udp[0] << 8) | udp[1]),
                      uint8_t(ip.GetEcn()),
                      packet->GetSize(),
                      uint16_t((udp[4] << 8) | udp[5]),
                      Simulator::Now()});
        return true;
    }

    void Resume(uint8_t cls)
    {
        m_paused[cls] = false;
        m_queue->Kick();
    }

    Ptr<MetaRoceNetDevice> m_dev;
    Ptr<MetaRocePortQueue> m_queue;
    std::array<std::deque<Ptr<Packet>>, kMetaRoceNumClasses> m_tx;
    std::array<bool, kMetaRoceNumClasses> m_paused{};
    std::array<EventId, kMetaRoceNumClasses> m_expiry;
};

/// A switch with n hosts, host i on port i at 10.0.i.1 (no routes installed).
struct Star
{
    Ptr<MetaRoceSwitch> sw;
    std::vector<std::unique_ptr<TestHost>> hosts;

    explicit Star(uint32_t n, const std::string& rate = "10Gbps")
    {
        Ptr<Node> swNode = CreateObject<Node>();
        sw = CreateObject<MetaRoceSwitch>();
        swNode->AggregateObject(sw);
        MetaRoceLinkHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(rate));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        for (uint32_t i = 0; i < n; ++i)
        {
            NetDeviceContainer d = p2p.Install(CreateObject<Node>(), swNode);
            hosts.push_back(std::make_unique<TestHost>(DynamicCast<MetaRoceNetDevice>(d.Get(0))));
            sw->AddPort(DynamicCast<MetaRoceNetDevice>(d.Get(1)));
        }
    }

    static Ipv4Address Addr(uint32_t i)
    {
        return Ipv4Address((10u << 24) | (i << 8) | 1u);
    }
};

/// A test case with the accounting checks every switch test ends with.
class SwitchTestCase : public TestCase
{
  public:
    using TestCase::TestCase;

  protected:
    /// The switch's conservation, its agreement with the per-port counters, and drained queues.
    void CheckAccounting(Ptr<MetaRoceSwitch> sw);
};

void
SwitchTestCase::CheckAccounting(Ptr<MetaRoceSwitch> sw)
{
    uint64_t rx = 0;
    uint64_t tx = 0;
    uint64_t drops = 0;
    for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
    {
        rx += sw->GetPortCounters(i).rxPackets;
        tx += sw->GetPortCounters(i).txPackets;
        drops += sw->GetPortCounters(i).Dropped();
    }
    NS_TEST_EXPECT_MSG_EQ(rx, sw->GetReceived(), "per-port received add up");
    NS_TEST_EXPECT_MSG_EQ(tx, sw->GetForwarded(), "per-port forwarded add up");
    NS_TEST_EXPECT_MSG_EQ(drops, sw->GetDropped(), "per-port drops add up");
    NS_TEST_EXPECT_MSG_EQ(sw->GetReceived(),
                          sw->GetForwarded() + sw->GetDropped() + sw->GetQueuedPackets(),
                          "received = forwarded + dropped + queued");
    NS_TEST_EXPECT_MSG_EQ(sw->GetQueuedPackets(), 0, "all queues drained at the end");
    NS_TEST_EXPECT_MSG_EQ(sw->GetBufferUsed(), 0, "buffer empty at the end");
}

// 1. Longest-prefix forwarding, fallback after withdrawal, and the reasons of unroutable drops.
class ForwardingTestCase : public SwitchTestCase
{
  public:
    ForwardingTestCase()
        : SwitchTestCase("longest-prefix forwarding, no-route and port-down drops")
    {
    }

  private:
    void DoRun() override
    {
        Star s(4);
        s.sw->AddRoute("10.0.0.0", "255.0.0.0", 1);
        s.sw->AddRoute("10.1.0.0", "255.255.0.0", 2);
        s.sw->AddRoute("10.1.2.0", "255.255.255.0", 3);
        s.sw->AddRoute("172.16.0.0", "255.255.0.0", 3);
        TestHost& h0 = *s.hosts[0];
        auto burst = [&h0](const char* dst, uint32_t n) {
            for (uint32_t i = 0; i < n; ++i)
            {
                h0.Send(MakeUdp(Star::Addr(0), Ipv4Address(dst), 1000 + i, 1000));
            }
        };
        burst("10.5.0.1", 5);    // /8  -> port 1
        burst("10.1.7.7", 6);    // /16 -> port 2
        burst("10.1.2.3", 7);    // /24 -> port 3
        burst("192.168.1.1", 3); // nothing matches
        Simulator::Schedule(MicroSeconds(100), [&]() {
            s.sw->SetPortUp(3, false);
            burst("10.1.2.3", 4);   // /24 withdrawn: falls back to the /16 -> port 2
            burst("172.16.0.9", 2); // its only port is down
        });
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s.hosts[1]->rx.size(), 5, "/8 traffic on port 1");
        NS_TEST_EXPECT_MSG_EQ(s.hosts[2]->rx.size(), 10, "/16 traffic (and fallback) on port 2");
        NS_TEST_EXPECT_MSG_EQ(s.hosts[3]->rx.size(), 7, "/24 traffic on port 3");
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetDropCount(MetaRoceDropReason::NO_ROUTE), 3, "no-route");
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(0).drops[size_t(MetaRoceDropReason::NO_ROUTE)],
                              3,
                              "unroutable drops are counted at the ingress");
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetDropCount("port-down"), 2, "port-down");
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(0).rxPackets, 27, "received on port 0");
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(2).txPackets, 10, "forwarded on port 2");
        CheckAccounting(s.sw);
        Simulator::Destroy();
    }
};

double
ChiSquare(const std::vector<uint32_t>& counts)
{
    double total = 0;
    for (uint32_t c : counts)
    {
        total += c;
    }
    const double expected = total / counts.size();
    double chi2 = 0;
    for (uint32_t c : counts)
    {
        chi2 += (c - expected) * (c - expected) / expected;
    }
    return chi2;
}

// 2. ECMP hashing: table level (1000 flows) and through the switch.
class EcmpTestCase : public SwitchTestCase
{
  public:
    EcmpTestCase()
        : SwitchTestCase("ECMP spreads by the seeded 5-tuple hash")
    {
    }

  private:
    static MetaRoceFlowKey Flow(uint32_t i)
    {
        return MetaRoceFlowKey{Ipv4Address("10.1.0.1").Get(),
                               Ipv4Address("10.2.0.1").Get(),
                               17,
                               uint16_t(10000 + i),
                               4792};
    }

    void DoRun() override
    {
        MetaRoceFib fib;
        for (uint32_t port = 0; port < 4; ++port)
        {
            fib.AddRoute("10.2.0.0", "255.255.0.0", port);
        }
        std::vector<uint32_t> counts(4, 0);
        std::vector<uint32_t> seed1(1000);
        uint32_t differ = 0;
        std::vector<uint32_t> polarised(4, 0); // seed-2 choice of the flows seed 1 sent to port 0
        for (uint32_t i = 0; i < 1000; ++i)
        {
            seed1[i] = fib.Lookup(Flow(i), 1).port;
            counts[seed1[i]]++;
            NS_TEST_EXPECT_MSG_EQ(fib.Lookup(Flow(i), 1).port, seed1[i], "same 5-tuple, same port");
            const uint32_t other = fib.Lookup(Flow(i), 2).port;
            differ += other != seed1[i];
            if (seed1[i] == 0)
            {
                polarised[other]++;
            }
        }
        NS_TEST_EXPECT_MSG_LT(ChiSquare(counts), kChi2Crit3Dof, "1000 flows spread evenly");
        NS_TEST_EXPECT_MSG_GT(differ, 600, "another seed maps differently (expected ~750)");
        NS_TEST_EXPECT_MSG_LT(ChiSquare(polarised), kChi2Crit3Dof, "no polarisation across seeds");

        fib.SetPortUp(2, false);
        std::vector<uint32_t> live(3, 0);
        for (uint32_t i = 0; i < 1000; ++i)
        {
            const uint32_t port = fib.Lookup(Flow(i), 1).port;
            NS_TEST_ASSERT_MSG_NE(port, 2, "a down port leaves the group");
            live[port == 3 ? 2 : port]++;
        }
        NS_TEST_EXPECT_MSG_LT(ChiSquare(live), kChi2Crit2Dof, "spread over the live members");
        // Destination-mod-k: the destination picks the member, whatever the source port.
        fib.SetPortUp(2, true);
        for (uint32_t host = 1; host <= 8; ++host)
        {
            MetaRoceFlowKey key = Flow(host);
            key.dst = Ipv4Address("10.2.0.0").Get() + host;
            const uint32_t first = fib.Lookup(key, 1, true).port;
            NS_TEST_EXPECT_MSG_EQ(first, host % 4, "destination modulo the group's size");
            key.srcPort = uint16_t(key.srcPort + 1000);
            NS_TEST_EXPECT_MSG_EQ(fib.Lookup(key, 2, true).port, first, "not the hash");
        }
        fib.SetPortUp(2, false);

        // Through a switch: 200 flows x 2 packets from host 0 over ports 1..4.
        Star s(5);
        s.sw->SetAttribute("EcmpSeed", UintegerValue(7));
        for (uint32_t port = 1; port <= 4; ++port)
        {
            s.sw->AddRoute("10.2.0.0", "255.255.0.0", port);
        }
        for (uint32_t k = 0; k < 2; ++k)
        {
            for (uint32_t i = 0; i < 200; ++i)
            {
                s.hosts[0]->Send(MakeUdp("10.1.0.1", "10.2.0.1", 20000 + i, 1000));
            }
        }
        Simulator::Run();
        std::map<uint16_t, std::set<uint32_t>> hostsOfFlow;
        std::vector<uint32_t> flowsPerPort(4, 0);
        for (uint32_t h = 1; h <= 4; ++h)
        {
            for (const Arrival& a : s.hosts[h]->rx)
            {
                if (hostsOfFlow[a.sport].insert(h).second)
                {
                    flowsPerPort[h - 1]++;
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(hostsOfFlow.size(), 200, "every flow arrived");
        for (const auto& f : hostsOfFlow)
        {
            NS_TEST_EXPECT_MSG_EQ(f.second.size(), 1, "a flow never splits over ports");
        }
        NS_TEST_EXPECT_MSG_LT(ChiSquare(flowsPerPort), kChi2Crit3Dof, "flows spread in the switch");
        CheckAccounting(s.sw);
        Simulator::Destroy();
    }
};

/// Runs `senders` hosts x n packets of 1000 bytes into host 2 of a 3-host star.
void
Incast(Star& s, uint32_t senders, uint32_t n, const std::vector<uint8_t>& ecn)
{
    s.sw->AddRoute("10.0.2.0", "255.255.255.0", 2);
    for (uint32_t h = 0; h < senders; ++h)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            s.hosts[h]->Send(MakeUdp(Star::Addr(h), Star::Addr(2), 5000 + h, 1000, ecn[h]));
        }
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
}

// 3. RED-style ECN marking.
class EcnTestCase : public SwitchTestCase
{
  public:
    EcnTestCase()
        : SwitchTestCase("ECN marks ECT packets above Kmin only")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t kmin = 4000;
        for (uint32_t senders : {2u, 1u})
        {
            Star s(3);
            s.sw->SetAttribute("EcnKmin", UintegerValue(kmin));
            s.sw->SetAttribute("EcnKmax", UintegerValue(16000));
            s.sw->SetAttribute("EcnPmax", DoubleValue(0.5));
            s.sw->AssignStreams(11);
            bool marksAboveKmin = true;
            s.sw->TraceConnectWithoutContext(
                "EcnMark",
                Callback<void, Ptr<const Packet>, uint32_t, uint64_t>(
                    [&](Ptr<const Packet>, uint32_t, uint64_t q) { marksAboveKmin &= q > kmin; }));
            Incast(s, senders, 300, {Ipv4Header::ECN_ECT0, Ipv4Header::ECN_NotECT});
            uint32_t ce[2] = {0, 0};
            for (const Arrival& a : s.hosts[2]->rx)
            {
                ce[a.src == Star::Addr(0) ? 0 : 1] += a.ecn == Ipv4Header::ECN_CE;
            }
            NS_TEST_EXPECT_MSG_EQ(s.hosts[2]->rx.size(), 300 * senders, "nothing lost");
            NS_TEST_EXPECT_MSG_EQ(ce[1], 0, "non-ECT packets are never marked");
            NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(2).ecnMarked, ce[0], "counter = marks");
            NS_TEST_EXPECT_MSG_EQ(marksAboveKmin, true, "no mark at or below Kmin");
            uint32_t changedUpstream = 0;
            for (const Ptr<const Packet>& p : s.hosts[0]->sent)
            {
                Ipv4Header ip;
                p->PeekHeader(ip);
                changedUpstream += ip.GetEcn() != Ipv4Header::ECN_ECT0;
            }
            NS_TEST_EXPECT_MSG_EQ(changedUpstream, 0, "a mark changes a copy, not the sender's");
            if (senders == 2)
            {
                NS_TEST_EXPECT_MSG_GT(ce[0], 50, "a 2:1 incast marks ECT packets");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(ce[0], 0, "a queue below Kmin marks nothing");
                NS_TEST_EXPECT_MSG_LT_OR_EQ(s.sw->GetPortCounters(2).maxQueueBytes,
                                            kmin,
                                            "a 1:1 flow keeps the queue below Kmin");
            }
            CheckAccounting(s.sw);
            Simulator::Destroy();
        }
    }
};

// 3b. ECN at dequeue (EcnAtDequeue): the marker sees the bytes a packet leaves behind.
class EcnAtDequeueTestCase : public SwitchTestCase
{
  public:
    EcnAtDequeueTestCase()
        : SwitchTestCase("EcnAtDequeue marks on the queue a packet leaves behind")
    {
    }

  private:
    /// A 2:1 incast marked iff the queue seen holds more than 4000 bytes; the CE bits of the
    /// arrivals at the receiver, in order.
    std::vector<bool> Marks(bool atDequeue)
    {
        Star s(3);
        s.sw->SetAttribute("EcnAtDequeue", BooleanValue(atDequeue));
        s.sw->SetAttribute("EcnKmin", UintegerValue(4000));
        s.sw->SetAttribute("EcnKmax", UintegerValue(4000));
        s.sw->SetAttribute("EcnPmax", DoubleValue(1.0));
        Incast(s, 2, 100, {Ipv4Header::ECN_ECT0, Ipv4Header::ECN_ECT0});
        std::vector<bool> ce;
        for (const Arrival& a : s.hosts[2]->rx)
        {
            ce.push_back(a.ecn == Ipv4Header::ECN_CE);
        }
        NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(2).ecnMarked,
                              static_cast<uint64_t>(std::count(ce.begin(), ce.end(), true)),
                              "counter = marks");
        CheckAccounting(s.sw);
        Simulator::Destroy();
        return ce;
    }

    void DoRun() override
    {
        const std::vector<bool> enqueue = Marks(false);
        const std::vector<bool> dequeue = Marks(true);
        NS_TEST_ASSERT_MSG_EQ(enqueue.size(), 200u, "nothing lost at enqueue");
        NS_TEST_ASSERT_MSG_EQ(dequeue.size(), 200u, "nothing lost at dequeue");
        // The incast's last packets joined the longest queue but leave an empty one.
        NS_TEST_EXPECT_MSG_EQ(enqueue.back(), true, "at enqueue the last packet is marked");
        NS_TEST_EXPECT_MSG_EQ(dequeue.back(), false, "at dequeue the last packet is not");
        // Its first packets met an empty queue but left a growing one: marks come sooner.
        const auto first = [](const std::vector<bool>& v) {
            return std::find(v.begin(), v.end(), true) - v.begin();
        };
        NS_TEST_EXPECT_MSG_LT(first(dequeue), first(enqueue), "at dequeue marks start sooner");
    }
};

// 4. Drop-tail under a small shared buffer, under each admission rule.
class DropTailTestCase : public SwitchTestCase
{
  public:
    DropTailTestCase()
        : SwitchTestCase("drop-tail with a small buffer: reasons and conservation")
    {
    }

  private:
    void DoRun() override
    {
        struct Config
        {
            uint64_t buffer;
            double alpha;
            const char* reason;
            const char* other;
        };

        for (const Config& c : {Config{20000, 1000.0, "buffer-full", "port-limit"},
                                Config{200000, 0.05, "port-limit", "buffer-full"}})
        {
            Star s(3);
            s.sw->SetAttribute("BufferSize", UintegerValue(c.buffer));
            s.sw->SetAttribute("DtAlpha", DoubleValue(c.alpha));
            uint64_t traced = 0;
            s.sw->TraceConnectWithoutContext(
                "Drop",
                Callback<void, Ptr<const Packet>, uint32_t, const char*>(
                    [&](Ptr<const Packet>, uint32_t, const char* why) {
                        traced += std::string(why) == c.reason;
                    }));
            Incast(s, 2, 300, {0, 0});
            const uint64_t drops = s.sw->GetDropCount(c.reason);
            NS_TEST_EXPECT_MSG_GT(drops, 0, "drops under " << c.reason);
            NS_TEST_EXPECT_MSG_EQ(s.sw->GetDropCount(c.other), 0, "none under " << c.other);
            NS_TEST_EXPECT_MSG_EQ(traced, drops, "each drop traced with its reason");
            NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(2)
                                      .drops[size_t(c.alpha > 1 ? MetaRoceDropReason::BUFFER_FULL
                                                                : MetaRoceDropReason::PORT_LIMIT)],
                                  drops,
                                  "counted at the egress port");
            NS_TEST_EXPECT_MSG_EQ(s.hosts[2]->rx.size() + drops, 600, "sent = delivered + dropped");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(s.sw->GetPortCounters(2).maxQueueBytes,
                                        c.buffer,
                                        "the buffer bounds the queue");
            CheckAccounting(s.sw);
            Simulator::Destroy();
        }
    }
};

// 5. Strict priority: CONTROL overtakes a standing DATA queue; with ControlPriority off
// (HPCC's switches) a CS6 packet waits in the DATA queue like any other.
class PriorityTestCase : public SwitchTestCase
{
  public:
    explicit PriorityTestCase(bool controlPriority)
        : SwitchTestCase(controlPriority ? "CONTROL packets overtake a full DATA queue"
                                         : "ControlPriority=false: CS6 packets queue as DATA")
        , m_controlPriority(controlPriority)
    {
    }

  private:
    bool m_controlPriority;

    void DoRun() override
    {
        Star s(3);
        s.sw->SetAttribute("ControlPriority", BooleanValue(m_controlPriority));
        // Halfway through the incast (~150 kB queued at port 2), host 1 sends 10 ACK-sized
        // packets marked CS6; its own NIC-like pull sends them next, the switch must send them
        // at once. 10 more of the same size without the mark are DATA: they wait their turn
        // (size alone does not make CONTROL, or a message's short last segment would overtake
        // the segments before it).
        Simulator::Schedule(MicroSeconds(120), [&s]() {
            for (uint32_t i = 0; i < 10; ++i)
            {
                s.hosts[1]->Send(
                    MakeUdp(Star::Addr(1), Star::Addr(2), 9000, 64, 0, kMetaRoceControlDscp));
                s.hosts[1]->Send(MakeUdp(Star::Addr(1), Star::Addr(2), 9001, 64));
            }
        });
        Incast(s, 2, 300, {0, 0});
        uint32_t control = 0;
        uint32_t unmarked = 0;
        for (const Arrival& a : s.hosts[2]->rx)
        {
            if (a.sport == 9000)
            {
                control++;
                if (m_controlPriority)
                {
                    NS_TEST_EXPECT_MSG_LT(a.at, MicroSeconds(120 + 10), "CONTROL did not wait");
                }
                else
                {
                    NS_TEST_EXPECT_MSG_GT(a.at, MicroSeconds(120 + 10), "CS6 packet waited");
                }
            }
            if (a.sport == 9001)
            {
                unmarked++;
                NS_TEST_EXPECT_MSG_GT(a.at, MicroSeconds(120 + 10), "unmarked small packet waited");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(control, 10, "all CONTROL packets arrived");
        NS_TEST_EXPECT_MSG_EQ(unmarked, 10, "all unmarked packets arrived");
        NS_TEST_EXPECT_MSG_GT(s.sw->GetPortCounters(2).maxQueueBytes, 100000, "DATA did queue");
        CheckAccounting(s.sw);
        Simulator::Destroy();
    }
};

// 6. Trimming: DATA that does not fit goes on trimmed, as CONTROL.
class TrimTestCase : public SwitchTestCase
{
  public:
    TrimTestCase()
        : SwitchTestCase("trimming forwards headers instead of dropping")
    {
    }

  private:
    void DoRun() override
    {
        Star s(3);
        s.sw->SetAttribute("BufferSize", UintegerValue(30000));
        s.sw->SetAttribute("TrimEnabled", BooleanValue(true));
        s.sw->SetAttribute("TrimSize", UintegerValue(48));
        Incast(s, 2, 300, {0, 0});
        const uint64_t trimmed = s.sw->GetPortCounters(2).trimmed;
        uint32_t small = 0;
        for (const Arrival& a : s.hosts[2]->rx)
        {
            if (a.ipSize < 1028)
            {
                small++;
                NS_TEST_EXPECT_MSG_EQ(a.ipSize, 20 + 8 + 48, "IPv4 + UDP + TrimSize");
                NS_TEST_EXPECT_MSG_EQ(a.udpLength, 8 + 1000, "UDP length keeps the original");
            }
        }
        NS_TEST_EXPECT_MSG_GT(trimmed, 0, "the small buffer trims");
        NS_TEST_EXPECT_MSG_EQ(small, trimmed, "every trimmed packet arrives trimmed");
        NS_TEST_EXPECT_MSG_EQ(s.hosts[2]->rx.size() + s.sw->GetDropped(), 600, "conservation");
        NS_TEST_EXPECT_MSG_LT(s.sw->GetDropped(), trimmed, "trimming replaces most drops");
        CheckAccounting(s.sw);
        Simulator::Destroy();
    }
};

// 7. PFC makes the incast lossless; frames round-trip.
class PfcTestCase : public SwitchTestCase
{
  public:
    PfcTestCase()
        : SwitchTestCase("PFC pauses the incast senders: no loss with PFC, loss without")
    {
    }

  private:
    void DoRun() override
    {
        auto pause = ParsePfcFrame(MakePfcFrame(METAROCE_CLASS_DATA, true, 1234));
        NS_TEST_ASSERT_MSG_EQ(pause.has_value(), true, "PAUSE parses");
        NS_TEST_EXPECT_MSG_EQ(pause->pause, true, "PAUSE");
        NS_TEST_EXPECT_MSG_EQ(unsigned(pause->cls), METAROCE_CLASS_DATA, "class");
        NS_TEST_EXPECT_MSG_EQ(pause->quanta, 1234, "quanta");
        NS_TEST_EXPECT_MSG_EQ(MakePfcFrame(0, true)->GetSize(), 28, "IPv4 + 8-byte PFC header");
        auto resume = ParsePfcFrame(MakePfcFrame(METAROCE_CLASS_CONTROL, false));
        NS_TEST_EXPECT_MSG_EQ((resume && !resume->pause && resume->cls == 0), true, "RESUME");
        auto zero = ParsePfcFrame(MakePfcFrame(METAROCE_CLASS_DATA, true, 0));
        NS_TEST_EXPECT_MSG_EQ((zero && !zero->pause), true, "PAUSE with quanta 0 is RESUME");
        NS_TEST_EXPECT_MSG_EQ(ParsePfcFrame(MakeUdp("10.0.0.1", "10.0.0.2", 1, 100)).has_value(),
                              false,
                              "UDP is not PFC");

        for (bool pfc : {true, false})
        {
            Star s(3);
            s.sw->SetAttribute("BufferSize", UintegerValue(60000));
            s.sw->SetAttribute("PfcEnabled", BooleanValue(pfc));
            s.sw->SetAttribute("PfcXoff", UintegerValue(12000));
            s.sw->SetAttribute("PfcXon", UintegerValue(8000));
            Incast(s, 2, 300, {0, 0});
            const uint64_t delivered = s.hosts[2]->rx.size();
            if (pfc)
            {
                NS_TEST_EXPECT_MSG_EQ(s.sw->GetDropped(), 0, "PFC: nothing dropped");
                NS_TEST_EXPECT_MSG_EQ(delivered, 600, "PFC: everything delivered");
                for (uint32_t h = 0; h < 2; ++h)
                {
                    const auto& c = s.sw->GetPortCounters(h);
                    NS_TEST_EXPECT_MSG_GT(c.pauseSent, 0, "PAUSE sent to sender " << h);
                    NS_TEST_EXPECT_MSG_EQ(s.hosts[h]->pausesReceived, c.pauseSent, "PAUSE arrived");
                    NS_TEST_EXPECT_MSG_EQ(s.hosts[h]->resumesReceived, c.resumeSent, "RESUME");
                    NS_TEST_EXPECT_MSG_GT(c.resumeSent, 0, "RESUME sent to sender " << h);
                }
                NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(0).rxPackets, 300, "PFC not counted");
            }
            else
            {
                NS_TEST_EXPECT_MSG_GT(s.sw->GetDropped(), 0, "no PFC: the small buffer drops");
                NS_TEST_EXPECT_MSG_EQ(delivered + s.sw->GetDropped(), 600, "conservation");
                NS_TEST_EXPECT_MSG_EQ(s.sw->GetPortCounters(0).pauseSent, 0, "no PAUSE");
            }
            CheckAccounting(s.sw);
            Simulator::Destroy();
        }
    }
};

class MetaRoceSwitchTestSuite : public TestSuite
{
  public:
    MetaRoceSwitchTestSuite()
        : TestSuite("metaroce-switch", Type::UNIT)
    {
        AddTestCase(new ForwardingTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new EcmpTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new EcnTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new EcnAtDequeueTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new DropTailTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PriorityTestCase(true), MetaRoceTestDuration::QUICK);
        AddTestCase(new PriorityTestCase(false), MetaRoceTestDuration::QUICK);
        AddTestCase(new TrimTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PfcTestCase, MetaRoceTestDuration::QUICK);
    }
};

MetaRoceSwitchTestSuite g_metaRoceSwitchTestSuite;

} // namespace
