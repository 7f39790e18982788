/*
 * The NIC on real ns-3 point-to-point links: two hosts back to back, one link per plane.
 *
 *  - a WRITE and a SEND complete byte-exact, over MetaRoCE and over RoCEv2;
 *  - deterministic loss (ReceiveListErrorModel drops the n-th packet a port receives):
 *    MetaRoCE retransmits exactly the missing packet, RoCEv2 goes back N;
 *  - a plane's link fails mid-transfer: MetaRoCE completes on the remaining plane;
 *  - MetaRoCE sprays one connection's packets over every flow of every plane;
 *  - the fair share counts a sender of short SENDs (a few bytes) as active;
 *  - receiver admission splits the NIC's budget among its active senders the moment one joins,
 *    and its ACKs carry the credit;
 *  - with ControlFirst a NIC's ACKs overtake the data of its other queue pairs;
 *  - a queue pair disposed mid-transfer is served no more, its NIC's other one completes;
 *  - a frame's one header carries the bytes of the IPv4, UDP and transport headers;
 *  - with Mcrc, a packet the NIC's CorruptionModel hits is refused as bad-crc and recovered.
 */
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-header.h"
#include "ns3/metaroce-connection.h"
#include "ns3/metaroce-frame-header.h"
#include "ns3/metaroce-framing.h"
#include "ns3/metaroce-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/metaroce-transport-header.h"
#include "ns3/metaroce-wire.h"
#include "ns3/nstime.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <map>
#include <numeric>

using namespace ns3;
using metaroce::Transport;

namespace
{

constexpr uint32_t kSrcKey = 1;
constexpr uint32_t kDstKey = 2;
constexpr uint64_t kBytes = 200'000;

/// Two hosts, NICs back to back over `planes` links of 100 Gb/s, 1 us.
struct BackToBack
{
    BackToBack(uint32_t planes, bool realPayload)
        : src(kBytes)
        , dst(kBytes, 0)
    {
        nodes.Create(2);
        MetaRoceHelper rdma;
        rdma.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        rdma.SetChannelAttribute("Delay", StringValue("1us"));
        rdma.SetNicAttribute("RealPayload", BooleanValue(realPayload));
        rdma.SetNicAttribute("FlowsPerPort", UintegerValue(4));
        a = rdma.Install(nodes.Get(0));
        b = rdma.Install(nodes.Get(1));
        devices = rdma.ConnectBackToBack(a, b, planes);
        std::iota(src.begin(), src.end(), uint8_t{3});
        a->RegisterMemory(kSrcKey, 0x1000, kBytes, src.data());
        b->RegisterMemory(kDstKey, 0x1000, kBytes, dst.data());
    }

    /// The device of `nic` (0 = a, 1 = b) on `plane`.
    Ptr<MetaRoceNetDevice> Device(int nic, uint32_t plane) const
    {
        return DynamicCast<MetaRoceNetDevice>(devices.Get(2 * plane + nic));
    }

    NodeContainer nodes;
    Ptr<MetaRoceNic> a;
    Ptr<MetaRoceNic> b;
    NetDeviceContainer devices;
    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
};

/// Posts a WRITE of the first half and a SEND of the second half; checks both land.
class ByteExactTestCase : public TestCase
{
  public:
    explicit ByteExactTestCase(Transport t)
        : TestCase(std::string(metaroce::TransportName(t)) + " WRITE and SEND byte-exact")
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(2, true);
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, m_transport);
        qa->SetCompletionCallback(MakeCallback(&ByteExactTestCase::Completed, this));
        qb->SetCompletionCallback(MakeCallback(&ByteExactTestCase::Completed, this));
        auto& done = m_done;
        const uint64_t half = kBytes / 2;
        qb->PostRecv(0, half, 0x1000 + half, kDstKey);
        qa->PostWrite(0, half, 0x1000, kDstKey, 0x1000, kSrcKey);
        qa->PostSend(0, half, 0x1000 + half, kSrcKey);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done.size(), 3, "WRITE, SEND and RECV should complete");
        for (const auto& c : done)
        {
            NS_TEST_ASSERT_MSG_EQ(std::string(metaroce::CompletionStatusName(c.status)),
                                  "success",
                                  "wr " << c.wrId << " failed");
        }
        NS_TEST_ASSERT_MSG_EQ((net.src == net.dst), true, "bytes differ at the receiver");
        NS_TEST_ASSERT_MSG_EQ(qa->GetCounters().retransmittedPackets, 0, "no loss, no retx");
        Simulator::Destroy();
    }

    void Completed(Ptr<MetaRoceQueuePair>, const metaroce::Completion& c)
    {
        m_done.push_back(c);
    }

    Transport m_transport;
    std::vector<metaroce::Completion> m_done;
};

/// The receiver's plane-0 port loses its 10th packet.
class DeterministicLossTestCase : public TestCase
{
  public:
    explicit DeterministicLossTestCase(Transport t)
        : TestCase(std::string(metaroce::TransportName(t)) + " repairs one chosen loss")
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(1, false);
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({9});
        net.Device(1, 0)->SetReceiveErrorModel(em);
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, m_transport);
        qa->PostWrite(0, 1 << 20);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 1, "the WRITE did not complete");
        const uint64_t retx = qa->GetCounters().retransmittedPackets;
        if (m_transport == Transport::MetaRoce)
        {
            NS_TEST_ASSERT_MSG_EQ(retx, 1, "MetaRoCE retransmits exactly the missing packet");
            NS_TEST_ASSERT_MSG_EQ(qa->GetCounters().timeouts, 0, "a gap is not a timeout");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(retx, 1, "RoCEv2 goes back N: everything after the loss");
            // Go-back-N (spec 10.3, 10.4): the responder discards every packet behind the gap as
            // out of sequence, and the requester resends exactly the lost one and those. How
            // many were in flight depends on timing; that the counts match does not.
            NS_TEST_ASSERT_MSG_EQ(retx,
                                  1 + qb->GetCounters().Drops(metaroce::DropReason::OutOfSequence),
                                  "retransmitted = the lost packet + those discarded behind it");
        }
        Simulator::Destroy();
    }

    Transport m_transport;
};

/// The receiving NIC's CorruptionModel hits its 10th packet; with Mcrc on both ends the
/// MetaRoCE engine refuses it as bad-crc (counted, in the drop trace) and the WRITE completes
/// after one retransmission, byte-exact with real payloads (spec 4.1).
class McrcCorruptionTestCase : public TestCase
{
  public:
    explicit McrcCorruptionTestCase(bool realPayload)
        : TestCase(std::string("metaroce mCRC refuses a corrupted packet, ") +
                   (realPayload ? "real" : "virtual") + " payloads")
        , m_realPayload(realPayload)
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(1, m_realPayload);
        net.a->SetAttribute("Mcrc", BooleanValue(true));
        net.b->SetAttribute("Mcrc", BooleanValue(true));
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({9});
        net.b->SetAttribute("CorruptionModel", PointerValue(em));
        net.b->TraceConnectWithoutContext("Drop",
                                          MakeCallback(&McrcCorruptionTestCase::Dropped, this));
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        qa->PostWrite(0, kBytes, 0x1000, kDstKey, 0x1000, kSrcKey);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 1, "the WRITE did not complete");
        NS_TEST_ASSERT_MSG_EQ(qb->GetCounters().Drops(metaroce::DropReason::BadCrc),
                              1,
                              "the corrupted packet is refused as bad-crc");
        NS_TEST_ASSERT_MSG_EQ(qb->GetCounters().TotalDrops(), 1, "and nothing else");
        NS_TEST_ASSERT_MSG_EQ(m_drops["bad-crc"], 1, "the drop trace names it");
        NS_TEST_ASSERT_MSG_EQ(qa->GetCounters().retransmittedPackets, 1, "recovered as a loss");
        if (m_realPayload)
        {
            NS_TEST_ASSERT_MSG_EQ((net.src == net.dst), true, "bytes differ at the receiver");
        }
        Simulator::Destroy();
    }

    void Dropped(Ptr<const Packet>, uint32_t, std::string reason)
    {
        ++m_drops[reason];
    }

    bool m_realPayload;
    std::map<std::string, int> m_drops;
};

/// Plane 1's link dies 20 us into a 4 MiB WRITE; both NICs see their port go down.
class LinkFailureTestCase : public TestCase
{
  public:
    LinkFailureTestCase()
        : TestCase("metaroce completes on the remaining plane after a link failure")
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(2, false);
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        qa->PostWrite(0, 4 << 20);
        Ptr<RateErrorModel> blackhole = CreateObject<RateErrorModel>();
        blackhole->SetRate(1.0);
        blackhole->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        Simulator::Schedule(MicroSeconds(20), [&net, blackhole]() {
            net.Device(0, 1)->SetReceiveErrorModel(blackhole);
            net.Device(1, 1)->SetReceiveErrorModel(blackhole);
            net.a->SetPortUp(1, false);
            net.b->SetPortUp(1, false);
        });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 1, "the WRITE did not complete");
        const auto& engine = dynamic_cast<metaroce::MetaRoceConnection&>(qa->GetEngine());
        NS_TEST_ASSERT_MSG_EQ(engine.Requester().Flows().MadeCount(),
                              engine.Requester().Flows().Count(),
                              "every flow was used or taken down");
        for (const auto& flow : engine.Requester().Flows().Made())
        {
            NS_TEST_ASSERT_MSG_EQ((flow.health == metaroce::FlowHealth::Down),
                                  (flow.port == 1),
                                  "flow " << flow.id << " health");
        }
        Simulator::Destroy();
    }
};

/// A queue pair disposed 10 us into a 4 MiB WRITE: its NIC serves it no more (nothing is
/// delivered to it), and the NIC's other queue pair completes.
class DisposedQueuePairTestCase : public TestCase
{
  public:
    DisposedQueuePairTestCase()
        : TestCase("a queue pair disposed mid-transfer is served no more")
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(2, false);
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        auto [other, otherPeer] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        qa->PostWrite(0, 4 << 20);
        other->PostWrite(0, 1 << 20);
        Simulator::Schedule(MicroSeconds(10), [qa = qa]() { qa->Dispose(); });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetNic(), nullptr, "disposed");
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 0, "nothing delivered after disposal");
        NS_TEST_ASSERT_MSG_EQ(other->GetCompletedCount(), 1, "the other queue pair completes");
        Simulator::Destroy();
    }
};

/// One connection's packets use every flow of every plane.
class SprayTestCase : public TestCase
{
  public:
    SprayTestCase()
        : TestCase("metaroce sprays one connection over all flows and planes")
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(2, false);
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        qa->PostWrite(0, 8 << 20);
        Simulator::Run();
        const auto& engine = dynamic_cast<metaroce::MetaRoceConnection&>(qa->GetEngine());
        uint64_t total = 0;
        NS_TEST_ASSERT_MSG_EQ(engine.Requester().Flows().MadeCount(),
                              engine.Requester().Flows().Count(),
                              "a flow was never used");
        for (const auto& flow : engine.Requester().Flows().Made())
        {
            NS_TEST_ASSERT_MSG_GT(flow.packetsSent, 100, "flow " << flow.id << " barely used");
            total += flow.packetsSent;
        }
        // A lossless link: the 8 MiB WRITE is 2048 packets of the 4096-byte Mtu, each sent
        // once (no retransmission, no probe), so the flows carry exactly that many.
        NS_TEST_ASSERT_MSG_EQ(total, (8u << 20) / 4096, "every packet on exactly one flow");
        Simulator::Destroy();
    }
};

/// Writes every sniffed packet to the capture (PcapHelper's own sink is private).
void
WriteToPcap(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    file->Write(Simulator::Now(), packet);
}

/// Runs `command` and returns what it printed, or nullopt when it could not run.
std::optional<std::string>
Capture(const std::string& command)
{
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return std::nullopt;
    }
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr)
    {
        out += buf;
    }
    return pclose(pipe) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

/// A RoCEv2 transfer captured with the ordinary pcap sink decodes as InfiniBand in tshark.
class PcapDecodesTestCase : public TestCase
{
  public:
    PcapDecodesTestCase()
        : TestCase("a RoCEv2 capture decodes as InfiniBand BTH in tshark")
    {
    }

  private:
    void DoRun() override
    {
        if (!Capture("command -v tshark"))
        {
            std::cerr << "tshark not installed: capture decoding not checked\n";
            return;
        }
        const std::string file = CreateTempDirFilename("metaroce-rocev2.pcap");
        {
            BackToBack net(1, false);
            PcapHelper pcap;
            Ptr<PcapFileWrapper> wrapper =
                pcap.CreateFile(file, std::ios::out, PcapHelper::DLT_PPP);
            net.Device(0, 0)->TraceConnectWithoutContext("PromiscSniffer",
                                                         MakeBoundCallback(&WriteToPcap, wrapper));
            auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::RoceV2);
            qa->PostWrite(0, 3 * 4096);
            Simulator::Run();
            Simulator::Destroy();
        }
        const auto out = Capture("tshark -r '" + file +
                                 "' -T fields -e udp.dstport -e infiniband.bth.opcode "
                                 "-e infiniband.bth.destqp 2>/dev/null");
        NS_TEST_ASSERT_MSG_EQ(out.has_value(), true, "tshark could not read " << file);
        std::map<std::string, int> opcodes;
        std::istringstream lines(*out);
        for (std::string line; std::getline(lines, line);)
        {
            std::istringstream fields(line);
            std::string port;
            std::string opcode;
            fields >> port >> opcode;
            NS_TEST_ASSERT_MSG_EQ(port, "4791", "every packet is RoCEv2: " << line);
            ++opcodes[opcode];
        }
        // A 3-packet WRITE: RDMA WRITE First (6), Middle (7), Last (8); ACKs (17) come back.
        NS_TEST_ASSERT_MSG_EQ(opcodes["6"], 1, "WRITE First not decoded:\n" << *out);
        NS_TEST_ASSERT_MSG_EQ(opcodes["7"], 1, "WRITE Middle not decoded:\n" << *out);
        NS_TEST_ASSERT_MSG_EQ(opcodes["8"], 1, "WRITE Last not decoded:\n" << *out);
        NS_TEST_ASSERT_MSG_GT(opcodes["17"], 0, "no ACK decoded:\n" << *out);
    }
};

/**
 * The receiver's fair share (spec 8.3) divides its line rate among the queue pairs that
 * delivered data in the last FairShareWindow (20 us). Two senders of 8-byte SENDs - packets
 * shorter than an ACK - are both active: sender 1 at 0 us, sender 2 at 10 us, sender 1 again at
 * 25 us, when the share is recomputed with both inside the window.
 */
class ShortSendFairShareTestCase : public TestCase
{
  public:
    explicit ShortSendFairShareTestCase(Transport t)
        : TestCase(std::string(metaroce::TransportName(t)) +
                   " fair share counts senders of short SENDs")
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        BackToBack net(1, false);
        net.b->SetAttribute("FairShareWhenMarked", BooleanValue(false));
        auto [qa1, qb1] = MetaRoceNic::Connect(net.a, net.b, m_transport);
        auto [qa2, qb2] = MetaRoceNic::Connect(net.a, net.b, m_transport);
        constexpr uint64_t kShort = 8;
        qb1->PostRecv(0, kShort);
        qb1->PostRecv(0, kShort);
        qb2->PostRecv(0, kShort);
        Ptr<MetaRoceQueuePair> first = qa1;
        Ptr<MetaRoceQueuePair> second = qa2;
        Simulator::Schedule(MicroSeconds(0), [first]() { first->PostSend(0, kShort); });
        Simulator::Schedule(MicroSeconds(10), [second]() { second->PostSend(0, kShort); });
        Simulator::Schedule(MicroSeconds(25), [first]() { first->PostSend(0, kShort); });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qb1->GetCompletedCount(), 2, "both RECVs of sender 1 complete");
        NS_TEST_ASSERT_MSG_EQ(qb2->GetCompletedCount(), 1, "the RECV of sender 2 completes");
        NS_TEST_ASSERT_MSG_EQ(net.b->GetFairShare(),
                              50'000'000'000u,
                              "100 Gb/s shared by two active senders");
        Simulator::Destroy();
    }

    Transport m_transport;
};

/**
 * Receiver admission (spec 8.5): with AdmissionRtt 16 us the receiver's budget is what 100 Gb/s
 * delivers in 16 us, 200,000 bytes, split among its active senders. Sender 1's SEND arrives at
 * about 1 us (the whole budget is its share), sender 2's at about 6 us: both shares halve then,
 * not at the next recompute of the rate hint (20 us later). Each ACK carries the credit, which
 * grows from the unscheduled window by one packet per packet received (spec 8.5): with one
 * packet unscheduled, 2 x 4,160 bytes here; without an unscheduled limit the senders have sent
 * their windows' worth already, and the first credit is the share as it stood (the whole budget
 * for sender 1, half for sender 2).
 */
class AdmissionCreditTestCase : public TestCase
{
  public:
    AdmissionCreditTestCase()
        : TestCase("receiver admission splits the budget among senders as they join")
    {
    }

  private:
    static uint64_t Target(const Ptr<MetaRoceQueuePair>& qp)
    {
        return static_cast<const metaroce::MetaRoceConnection&>(qp->GetEngine())
            .Responder()
            .AdmissionTarget();
    }

    static uint64_t Limit(const Ptr<MetaRoceQueuePair>& qp)
    {
        return static_cast<const metaroce::MetaRoceConnection&>(qp->GetEngine())
            .Requester()
            .AdmissionLimit();
    }

    void DoRun() override
    {
        Scenario(4160, 2 * 4160, 2 * 4160);
        Scenario(0, 200'000, 100'000);
    }

    /// Both NICs with UnscheduledBytes `unscheduled`; the senders' limits expected at the end.
    void Scenario(uint64_t unscheduled, uint64_t limit1, uint64_t limit2)
    {
        BackToBack net(1, false);
        net.b->SetAttribute("AdmissionRtt", TimeValue(MicroSeconds(16)));
        for (const Ptr<MetaRoceNic>& nic : {net.a, net.b})
        {
            nic->SetAttribute("UnscheduledBytes", UintegerValue(unscheduled));
        }
        auto [qa1, qb1] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        auto [qa2, qb2] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        constexpr uint64_t kShort = 8;
        qb1->PostRecv(0, kShort);
        qb2->PostRecv(0, kShort);
        Ptr<MetaRoceQueuePair> first = qa1;
        Ptr<MetaRoceQueuePair> second = qa2;
        Simulator::Schedule(MicroSeconds(0), [first]() { first->PostSend(0, kShort); });
        Simulator::Schedule(MicroSeconds(5), [second]() { second->PostSend(0, kShort); });
        std::vector<uint64_t> seen;
        Ptr<MetaRoceQueuePair> r1 = qb1;
        Ptr<MetaRoceQueuePair> r2 = qb2;
        for (int us : {4, 9})
        {
            Simulator::Schedule(MicroSeconds(us), [&seen, r1, r2]() {
                seen.push_back(Target(r1));
                seen.push_back(Target(r2));
            });
        }
        Simulator::Run();
        // Expectations only (no assertion returns early): the simulator is destroyed below
        // before the next scenario runs.
        NS_TEST_EXPECT_MSG_EQ(seen.size(), 4, "two looks at the targets");
        seen.resize(4, 0);
        NS_TEST_EXPECT_MSG_EQ(seen[0], 200'000, "one sender: the whole budget");
        NS_TEST_EXPECT_MSG_EQ(seen[2], 100'000, "two senders: half each, at once");
        NS_TEST_EXPECT_MSG_EQ(seen[3], 100'000, "the second sender's share");
        NS_TEST_EXPECT_MSG_EQ(Limit(qa1), limit1, "sender 1 holds the credit of its ACK");
        NS_TEST_EXPECT_MSG_EQ(Limit(qa2), limit2, "sender 2 too");
        NS_TEST_EXPECT_MSG_EQ(qb2->GetCompletedCount(), 1, "the RECV of sender 2 completes");
        Simulator::Destroy();
    }
};

/**
 * ControlFirst: NIC b receives a WRITE from a while eight of its own queue pairs keep its one
 * port busy with WRITEs to a. Without it the ACKs of the receiving queue pair wait for their
 * turn in the port's round-robin, behind up to eight data packets (2.7 us at 100 Gb/s); with
 * it they leave as soon as the port is free. The sender's smoothed RTT shows the difference:
 * the ACKs of the first run are late by several packets, those of the second by under one.
 */
class ControlFirstTestCase : public TestCase
{
  public:
    ControlFirstTestCase()
        : TestCase("ControlFirst sends ACKs ahead of other queue pairs' data")
    {
    }

  private:
    /// The smoothed RTT of a's WRITE to b, averaged over the flows that have a sample (ns).
    static double SenderRtt(bool controlFirst)
    {
        BackToBack net(1, false);
        net.b->SetAttribute("ControlFirst", BooleanValue(controlFirst));
        BooleanValue set;
        net.b->GetAttribute("ControlFirst", set);
        NS_ASSERT(set.Get() == controlFirst);
        std::vector<uint8_t> back(kBytes);
        net.a->RegisterMemory(kDstKey, 0x1000, kBytes, back.data());
        net.b->RegisterMemory(kSrcKey, 0x1000, kBytes, back.data());
        auto [qa, qb] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
        qa->PostWrite(0, kBytes, 0x1000, kDstKey, 0x1000, kSrcKey);
        for (int i = 0; i < 8; ++i)
        {
            auto [peer, sender] = MetaRoceNic::Connect(net.a, net.b, Transport::MetaRoce);
            sender->PostWrite(0, kBytes, 0x1000, kDstKey, 0x1000, kSrcKey);
        }
        Simulator::Run();
        const auto& engine = static_cast<const metaroce::MetaRoceConnection&>(qa->GetEngine());
        double sum = 0;
        int flows = 0;
        for (const metaroce::Flow& flow : engine.Requester().Flows().Made())
        {
            if (flow.rtt.HasSample())
            {
                sum += static_cast<double>(flow.rtt.Smoothed());
                ++flows;
            }
        }
        Simulator::Destroy();
        NS_ASSERT_MSG(flows > 0, "the WRITE was acknowledged");
        return sum / flows;
    }

    void DoRun() override
    {
        const double roundRobin = SenderRtt(false);
        const double controlFirst = SenderRtt(true);
        NS_TEST_EXPECT_MSG_LT(controlFirst + 1000,
                              roundRobin,
                              "ACKs that wait for their turn behind eight queue pairs' data "
                              "make a longer round trip by more than a microsecond");
    }
};

/// The transport header takes an ACK's repeats from the packet's length (spec 5.3), and a
/// WRITE's header alone, however short its payload.
class TransportHeaderSizeTestCase : public TestCase
{
  public:
    TransportHeaderSizeTestCase()
        : TestCase("transport header: an ACK with repeats whole, a short WRITE without payload")
    {
    }

  private:
    uint32_t Removed(const metaroce::MrHeader& h, uint32_t payload)
    {
        metaroce::HeaderBytes bytes(h.Size());
        metaroce::MrSerialize(h, bytes.data());
        Ptr<Packet> p = Create<Packet>(payload);
        p->AddHeader(MetaRoceTransportHeader(bytes, metaroce::kMetaRoceUdpPort));
        MetaRoceTransportHeader read;
        read.SetUdpPort(metaroce::kMetaRoceUdpPort);
        const uint32_t size = p->RemoveHeader(read);
        NS_TEST_EXPECT_MSG_EQ(p->GetSize(), payload, "the payload is left");
        return size;
    }

    void DoRun() override
    {
        metaroce::MrHeader ack;
        ack.opcode = metaroce::MrOpcode::Ack;
        ack.repeatCount = 2;
        ack.repeats[0].flowId = 1;
        ack.repeats[1].flowId = 2;
        NS_TEST_EXPECT_MSG_EQ(Removed(ack, 0), 80, "an ACK with two repeats");
        metaroce::MrHeader write;
        write.opcode = metaroce::MrOpcode::Write;
        write.flags = metaroce::kMrFlagFirst | metaroce::kMrFlagLast;
        write.messageLength = 20;
        write.payloadLength = 20;
        NS_TEST_EXPECT_MSG_EQ(Removed(write, 20), 64, "a WRITE of 20 bytes");
    }
};

/// A frame's head (MetaRoceFrameHeader) is byte for byte what Ipv4Header, UdpHeader and the
/// transport header give when added one by one (MetaRoceFraming::FrameOneByOne, the frame of
/// packet printing); its fields are the NIC's; it reads back whole, a truncated one not at all.
class FrameHeaderTestCase : public TestCase
{
  public:
    FrameHeaderTestCase()
        : TestCase("framing: one frame header, the bytes of IPv4, UDP and transport headers")
    {
    }

  private:
    static std::vector<uint8_t> Bytes(Ptr<const Packet> p)
    {
        std::vector<uint8_t> b(p->GetSize());
        p->CopyData(b.data(), p->GetSize());
        return b;
    }

    void DoRun() override
    {
        const Ipv4Address s("10.0.3.1");
        const Ipv4Address d("10.1.250.7");
        metaroce::MrHeader write;
        write.opcode = metaroce::MrOpcode::Write;
        write.flags = metaroce::kMrFlagFirst;
        write.messageLength = 9000;
        write.payloadLength = 4096;
        metaroce::MrHeader ack;
        ack.opcode = metaroce::MrOpcode::Ack;
        ack.repeatCount = 2;
        for (const auto& [h, payload, control] :
             {std::tuple{write, 4096u, false}, std::tuple{ack, 0u, true}})
        {
            metaroce::OutPacket out;
            out.header.resize(h.Size());
            metaroce::MrSerialize(h, out.header.data());
            out.payloadSize = payload;
            out.udpSrcPort = 49152 + 777;
            out.udpDstPort = metaroce::kMetaRoceUdpPort;
            out.isControl = control;
            const Ptr<Packet> framed = MetaRoceFraming::Frame(out, s, d);
            NS_TEST_ASSERT_MSG_EQ(
                (Bytes(framed) == Bytes(MetaRoceFraming::FrameOneByOne(out, s, d))),
                true,
                "frame bytes differ, control " << control);

            Ipv4Header ip;
            ip.EnableChecksum();
            framed->PeekHeader(ip);
            NS_TEST_EXPECT_MSG_EQ(ip.IsChecksumOk(), true, "IPv4 checksum");
            NS_TEST_EXPECT_MSG_EQ(ip.GetDestination(), d, "destination");
            NS_TEST_EXPECT_MSG_EQ(ip.GetTtl(), 64, "TTL");
            NS_TEST_EXPECT_MSG_EQ(ip.GetEcn(), Ipv4Header::ECN_ECT0, "ECN-capable");
            NS_TEST_EXPECT_MSG_EQ(uint32_t(ip.GetDscp()),
                                  (control ? uint32_t(kMetaRoceControlDscp) : 0u),
                                  "ACKs in the CONTROL class, data not");
            NS_TEST_EXPECT_MSG_EQ(ip.GetPayloadSize(), 8 + h.Size() + payload, "IPv4 length");
            MetaRoceFrameHeader head;
            const uint32_t size = framed->PeekHeader(head);
            NS_TEST_EXPECT_MSG_EQ(size, 28 + h.Size(), "the whole head reads back");
            NS_TEST_EXPECT_MSG_EQ(head.GetSerializedSize(), size, "and serialises as long");
            std::ostringstream printed;
            head.Print(printed);
            NS_TEST_EXPECT_MSG_NE(printed.str().find("MetaRoCE"),
                                  std::string::npos,
                                  "printed: " << printed.str());

            const auto bytes = Bytes(framed);
            const Ptr<Packet> cut = Create<Packet>(bytes.data(), 24); // IPv4, half of UDP
            MetaRoceFrameHeader partial;
            NS_TEST_EXPECT_MSG_EQ(cut->PeekHeader(partial), 0, "a truncated head reads as none");
        }
    }
};

class MetaRoceNicTestSuite : public TestSuite
{
  public:
    MetaRoceNicTestSuite()
        : TestSuite("metaroce-nic", Type::UNIT)
    {
        for (Transport t : {Transport::MetaRoce, Transport::RoceV2})
        {
            AddTestCase(new ByteExactTestCase(t), MetaRoceTestDuration::QUICK);
            AddTestCase(new DeterministicLossTestCase(t), MetaRoceTestDuration::QUICK);
            AddTestCase(new ShortSendFairShareTestCase(t), MetaRoceTestDuration::QUICK);
        }
        AddTestCase(new LinkFailureTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new McrcCorruptionTestCase(false), MetaRoceTestDuration::QUICK);
        AddTestCase(new McrcCorruptionTestCase(true), MetaRoceTestDuration::QUICK);
        AddTestCase(new DisposedQueuePairTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new SprayTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PcapDecodesTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new AdmissionCreditTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new ControlFirstTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new TransportHeaderSizeTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FrameHeaderTestCase, MetaRoceTestDuration::QUICK);
    }
};

MetaRoceNicTestSuite g_metaRoceNicTestSuite;

} // namespace
