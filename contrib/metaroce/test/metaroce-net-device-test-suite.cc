/*
 * metaroce-net-device: the fabric's device behaves as ns-3's PointToPointNetDevice where users
 * can see it (model/link/metaroce-net-device.h): frames take the stock device's time on the
 * wire, back to back through the queue, and a new DataRate applies at once; trace sinks and
 * error models get PPP frames (a RateErrorModel loses what it loses on a stock link); a lost frame
 * reaches PhyRxDrop and not the receiver; a protocol other than IPv4 is refused; the link helper's
 * pcap files are the stock helper's.
 */
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/mac48-address.h"
#include "ns3/metaroce-link-helper.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/node.h"
#include "ns3/pcap-file.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/trace-helper.h"

#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// Frame sizes of a fabric (ACK, full DATA, odd tails); 4182, 64, 77 and 90 fall in one set of
/// the device's two-way cache of transmission times, so some are evicted and computed again.
const std::vector<uint32_t> kSizes{122, 4182, 64, 77, 4182, 1001, 90, 64, 4182, 77};

/// Arrival times at the far end of a link, and the frames the receiver got.
struct Receiver
{
    std::vector<int64_t> times;
    std::vector<uint32_t> sizes;

    bool OnReceive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t protocol, const Address&)
    {
        times.push_back(Simulator::Now().GetTimeStep());
        sizes.push_back(protocol == 0x0800 ? p->GetSize() : 0);
        return true;
    }
};

/// Sends kSizes back to back from `from` (the device queues them).
void
SendAll(Ptr<NetDevice> from)
{
    for (const uint32_t size : kSizes)
    {
        from->Send(Create<Packet>(size), from->GetBroadcast(), 0x0800);
    }
}

class TimingTestCase : public TestCase
{
  public:
    TimingTestCase()
        : TestCase("net-device: frames arrive when they would on the stock point-to-point device "
                   "(frame header, queue, delay, a DataRate change)")
    {
    }

  private:
    /// Runs kSizes over a link made by `helper` twice (the second time at a quarter of the
    /// rate, set between the runs); returns the receiver's arrival times.
    template<typename Helper>
    std::vector<int64_t> Run(Helper& helper)
    {
        helper.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        helper.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer ends = helper.Install(CreateObject<Node>(), CreateObject<Node>());
        Receiver rx;
        ends.Get(1)->SetReceiveCallback(MakeCallback(&Receiver::OnReceive, &rx));
        Simulator::Schedule(MicroSeconds(1), &SendAll, ends.Get(0));
        Simulator::Schedule(MicroSeconds(100), [&ends]() {
            ends.Get(0)->SetAttribute("DataRate", StringValue("250Mbps"));
            SendAll(ends.Get(0));
        });
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(rx.sizes.size(), 2 * kSizes.size(), "every frame arrived");
        return rx.times;
    }

    void DoRun() override
    {
        PointToPointHelper stock;
        const std::vector<int64_t> expected = Run(stock);
        MetaRoceLinkHelper ours;
        const std::vector<int64_t> actual = Run(ours);
        NS_TEST_ASSERT_MSG_EQ(actual.size(), expected.size(), "as many arrivals as stock");
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(actual[i], expected[i], "arrival " << i << " as on stock");
        }
    }
};

/// Packets of the loss test.
constexpr uint32_t kLossPackets = 2000;

class LossTestCase : public TestCase
{
  public:
    LossTestCase()
        : TestCase("net-device: a RateErrorModel in packet, byte and bit units loses the same "
                   "frames as on the stock device with the same stream")
    {
    }

  private:
    /// Sends 2,000 small packets of varied sizes over a link made by `helper` whose receiving
    /// end has a RateErrorModel in `unit` at `rate` on stream 7; returns the sizes that arrived.
    /// Small packets and high rates make the frame's 2 bytes change some outcomes (about 15
    /// in the byte and bit runs): a model judging the bare packet would not match.
    template<typename Helper>
    std::vector<uint32_t> Run(Helper& helper, RateErrorModel::ErrorUnit unit, double rate)
    {
        helper.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        helper.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer ends = helper.Install(CreateObject<Node>(), CreateObject<Node>());
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(unit);
        em->SetRate(rate);
        em->AssignStreams(7);
        ends.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        Receiver rx;
        ends.Get(1)->SetReceiveCallback(MakeCallback(&Receiver::OnReceive, &rx));
        // One every 200 ns: a 162-byte frame takes 130 ns at 10 Gb/s, so the queue stays empty.
        for (uint32_t i = 0; i < kLossPackets; ++i)
        {
            Simulator::Schedule(NanoSeconds(200 * (i + 1)), [&ends, i]() {
                ends.Get(0)->Send(Create<Packet>(60 + i % 100),
                                  ends.Get(0)->GetBroadcast(),
                                  0x0800);
            });
        }
        Simulator::Run();
        Simulator::Destroy();
        return rx.sizes;
    }

    void DoRun() override
    {
        const std::vector<std::pair<RateErrorModel::ErrorUnit, double>> models{
            {RateErrorModel::ERROR_UNIT_PACKET, 0.2},
            {RateErrorModel::ERROR_UNIT_BYTE, 1e-2},
            {RateErrorModel::ERROR_UNIT_BIT, 1e-3}};
        for (const auto& [unit, rate] : models)
        {
            PointToPointHelper stock;
            const std::vector<uint32_t> expected = Run(stock, unit, rate);
            MetaRoceLinkHelper ours;
            const std::vector<uint32_t> actual = Run(ours, unit, rate);
            NS_TEST_EXPECT_MSG_GT(expected.size(), 0, "some arrive, unit " << unit);
            NS_TEST_EXPECT_MSG_LT(expected.size(), kLossPackets, "some are lost, unit " << unit);
            NS_TEST_EXPECT_MSG_EQ((actual == expected), true, "the stock losses, unit " << unit);
        }
    }
};

/// An error model that records the size of what it judges and loses every other frame.
class RecordingErrorModel : public ErrorModel
{
  public:
    std::vector<uint32_t> judged;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        judged.push_back(p->GetSize());
        return judged.size() % 2 == 0;
    }

    void DoReset() override
    {
    }
};

class FramesTestCase : public TestCase
{
  public:
    FramesTestCase()
        : TestCase("net-device: sniffers and error models see PPP frames; a lost frame reaches "
                   "PhyRxDrop only; non-IPv4 is refused at MacTxDrop")
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        link.SetChannelAttribute("Delay", StringValue("100ns"));
        NetDeviceContainer ends = link.Install(CreateObject<Node>(), CreateObject<Node>());
        Ptr<MetaRoceNetDevice> tx = DynamicCast<MetaRoceNetDevice>(ends.Get(0));
        Ptr<MetaRoceNetDevice> rx = DynamicCast<MetaRoceNetDevice>(ends.Get(1));
        Ptr<RecordingErrorModel> em = CreateObject<RecordingErrorModel>();
        rx->SetAttribute("ReceiveErrorModel", PointerValue(em));
        Receiver receiver;
        rx->SetReceiveCallback(MakeCallback(&Receiver::OnReceive, &receiver));

        std::vector<uint16_t> sniffed; // PPP protocol of each frame sniffed at the sender
        std::vector<uint32_t> sniffedSizes;
        tx->TraceConnectWithoutContext("PromiscSniffer",
                                       MakeCallback(+[](std::vector<uint16_t>* protocols,
                                                        std::vector<uint32_t>* sizes,
                                                        Ptr<const Packet> frame) {
                                           PppHeader ppp;
                                           frame->Copy()->RemoveHeader(ppp);
                                           protocols->push_back(ppp.GetProtocol());
                                           sizes->push_back(frame->GetSize());
                                       }).Bind(&sniffed, &sniffedSizes));
        uint32_t rxDrops = 0;
        rx->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(+[](uint32_t* n, Ptr<const Packet>) { ++*n; }).Bind(&rxDrops));
        uint32_t txDrops = 0;
        tx->TraceConnectWithoutContext(
            "MacTxDrop",
            MakeCallback(+[](uint32_t* n, Ptr<const Packet>) { ++*n; }).Bind(&txDrops));

        Simulator::Schedule(NanoSeconds(10), [this, tx]() {
            for (const uint32_t size : {100u, 200u, 300u, 400u})
            {
                tx->Send(Create<Packet>(size), tx->GetBroadcast(), 0x0800);
            }
            const bool ipv6 = tx->Send(Create<Packet>(500), tx->GetBroadcast(), 0x86DD);
            NS_TEST_EXPECT_MSG_EQ(ipv6, false, "IPv6 refused");
        });
        Simulator::Run();
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(txDrops, 1, "the IPv6 packet at MacTxDrop");
        NS_TEST_ASSERT_MSG_EQ(sniffed.size(), 4, "four frames sniffed");
        for (std::size_t i = 0; i < sniffed.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(sniffed[i], 0x0021, "PPP protocol IPv4");
            NS_TEST_EXPECT_MSG_EQ(sniffedSizes[i], 100 * (i + 1) + 2, "frame = packet + 2");
        }
        const std::vector<uint32_t> judged{102, 202, 302, 402};
        NS_TEST_EXPECT_MSG_EQ((em->judged == judged), true, "the error model judged frames");
        NS_TEST_EXPECT_MSG_EQ(rxDrops, 2, "every other frame lost");
        const std::vector<uint32_t> delivered{100, 300};
        NS_TEST_EXPECT_MSG_EQ((receiver.sizes == delivered),
                              true,
                              "the receiver got the intact packets, without the frame header");
    }
};

/// Two nodes joined by a 10 Gb/s MetaRoceLinkHelper link.
NetDeviceContainer
TenGigLink()
{
    MetaRoceLinkHelper link;
    link.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    return link.Install(CreateObject<Node>(), CreateObject<Node>());
}

/// Counts the frames a trace sink gets.
void
CountFrame(uint32_t* n, Ptr<const Packet>)
{
    ++*n;
}

class TraceSinksTestCase : public TestCase
{
  public:
    TraceSinksTestCase()
        : TestCase("net-device: a trace fires while it has sinks, with or without context, and "
                   "stops once they disconnect; callbacks get the peer's current address")
    {
    }

  private:
    void DoRun() override
    {
        NetDeviceContainer ends = TenGigLink();
        Ptr<NetDevice> tx = ends.Get(0);
        Ptr<NetDevice> rx = ends.Get(1);
        std::vector<Mac48Address> from; // the promiscuous callback's source per frame
        rx->SetPromiscReceiveCallback(MakeCallback(+[](std::vector<Mac48Address>* seen,
                                                       Ptr<NetDevice>,
                                                       Ptr<const Packet>,
                                                       uint16_t,
                                                       const Address& source,
                                                       const Address&,
                                                       NetDevice::PacketType) {
                                          seen->push_back(Mac48Address::ConvertFrom(source));
                                          return true;
                                      }).Bind(&from));
        uint32_t plain = 0;
        uint32_t withContext = 0;
        const Callback<void, Ptr<const Packet>> countPlain = MakeBoundCallback(&CountFrame, &plain);
        const Callback<void, std::string, Ptr<const Packet>> countWithContext =
            MakeCallback(+[](uint32_t* n, std::string, Ptr<const Packet>) {
                ++*n;
            }).Bind(&withContext);
        const auto send = [tx]() { tx->Send(Create<Packet>(100), tx->GetBroadcast(), 0x0800); };

        tx->TraceConnectWithoutContext("MacTx", countPlain);
        tx->TraceConnect("PhyTxEnd", "ctx", countWithContext);
        Simulator::Schedule(NanoSeconds(10), send);
        Simulator::Schedule(NanoSeconds(500), [&]() {
            tx->TraceDisconnectWithoutContext("MacTx", countPlain);
            tx->TraceDisconnect("PhyTxEnd", "ctx", countWithContext);
            tx->SetAttribute("Address", Mac48AddressValue(Mac48Address("00:00:00:00:00:42")));
        });
        Simulator::Schedule(NanoSeconds(1000), send);
        Simulator::Run();
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(plain, 1, "MacTx fired once while connected");
        NS_TEST_EXPECT_MSG_EQ(withContext, 1, "PhyTxEnd fired once while connected");
        NS_TEST_ASSERT_MSG_EQ(from.size(), 2, "two frames received");
        NS_TEST_EXPECT_MSG_EQ(from[1],
                              Mac48Address("00:00:00:00:00:42"),
                              "the second frame comes from the sender's new address");
        NS_TEST_EXPECT_MSG_NE(from[0], from[1], "the first came from the old one");
    }
};

/// A frame sink that records the port and size of what it gets.
class RecordingSink : public MetaRoceFrameSink
{
  public:
    void ReceiveFrame(uint32_t port, Ptr<Packet> packet) override
    {
        got.emplace_back(port, packet->GetSize());
    }

    std::vector<std::pair<uint32_t, uint32_t>> got;
};

class FrameSinkTestCase : public TestCase
{
  public:
    FrameSinkTestCase()
        : TestCase("net-device: a frame sink gets arrivals with its port instead of the receive "
                   "callback, until a receive callback is set again")
    {
    }

  private:
    void DoRun() override
    {
        NetDeviceContainer ends = TenGigLink();
        Ptr<NetDevice> tx = ends.Get(0);
        Ptr<MetaRoceNetDevice> rx = DynamicCast<MetaRoceNetDevice>(ends.Get(1));
        Receiver receiver;
        RecordingSink sink;
        rx->SetReceiveCallback(MakeCallback(&Receiver::OnReceive, &receiver));
        rx->SetFrameSink(&sink, 7);
        Simulator::Schedule(NanoSeconds(10),
                            [tx]() { tx->Send(Create<Packet>(100), tx->GetBroadcast(), 0x0800); });
        Simulator::Schedule(NanoSeconds(500), [&]() {
            rx->SetReceiveCallback(MakeCallback(&Receiver::OnReceive, &receiver));
        });
        Simulator::Schedule(NanoSeconds(1000),
                            [tx]() { tx->Send(Create<Packet>(200), tx->GetBroadcast(), 0x0800); });
        Simulator::Run();
        Simulator::Destroy();

        const std::vector<std::pair<uint32_t, uint32_t>> toSink{{7, 100}};
        NS_TEST_EXPECT_MSG_EQ((sink.got == toSink), true, "the sink got the first packet, port 7");
        const std::vector<uint32_t> toCallback{200};
        NS_TEST_EXPECT_MSG_EQ((receiver.sizes == toCallback),
                              true,
                              "the receive callback got only the second");
    }
};

class PcapTestCase : public TestCase
{
  public:
    PcapTestCase()
        : TestCase("net-device: MetaRoceLinkHelper::EnablePcap writes DLT_PPP frames, sent and "
                   "received, as PointToPointHelper does")
    {
    }

  private:
    /// Sends two packets over a link captured at both ends into a and b.
    static void Capture(const std::string& a, const std::string& b)
    {
        MetaRoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        link.SetChannelAttribute("Delay", StringValue("100ns"));
        NetDeviceContainer ends = link.Install(CreateObject<Node>(), CreateObject<Node>());
        ends.Get(1)->SetReceiveCallback(MakeCallback(
            +[](Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&) { return true; }));
        link.EnablePcap(a, ends.Get(0), false, true);
        link.EnablePcap(b, ends.Get(1), false, true);
        Simulator::Schedule(NanoSeconds(10), [&ends]() {
            ends.Get(0)->Send(Create<Packet>(60), ends.Get(0)->GetBroadcast(), 0x0800);
            ends.Get(0)->Send(Create<Packet>(70), ends.Get(0)->GetBroadcast(), 0x0800);
        });
        Simulator::Run();
        // The files are complete once the devices, which hold them, are gone.
        Simulator::Destroy();
    }

    void DoRun() override
    {
        const std::string a = CreateTempDirFilename("metaroce-net-device-a.pcap");
        const std::string b = CreateTempDirFilename("metaroce-net-device-b.pcap");
        Capture(a, b);
        for (const std::string& name : {a, b})
        {
            PcapFile file;
            file.Open(name, std::ios::in);
            NS_TEST_ASSERT_MSG_EQ(file.Fail(), false, "opened " << name);
            NS_TEST_EXPECT_MSG_EQ(file.GetDataLinkType(), PcapHelper::DLT_PPP, "DLT_PPP");
            for (const uint32_t size : {62u, 72u})
            {
                uint8_t data[128];
                uint32_t sec = 0;
                uint32_t usec = 0;
                uint32_t inclLen = 0;
                uint32_t origLen = 0;
                uint32_t readLen = 0;
                file.Read(data, sizeof(data), sec, usec, inclLen, origLen, readLen);
                NS_TEST_ASSERT_MSG_EQ(file.Fail(), false, "a record in " << name);
                NS_TEST_EXPECT_MSG_EQ(origLen, size, "the frame: packet + PPP header");
                NS_TEST_EXPECT_MSG_EQ((data[0] << 8 | data[1]), 0x0021, "PPP protocol IPv4");
            }
            file.Close();
        }
    }
};

class NetDeviceTestSuite : public TestSuite
{
  public:
    NetDeviceTestSuite()
        : TestSuite("metaroce-net-device", Type::UNIT)
    {
        AddTestCase(new TimingTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new LossTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FramesTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new TraceSinksTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new FrameSinkTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new PcapTestCase, MetaRoceTestDuration::QUICK);
    }
};

NetDeviceTestSuite g_netDeviceTestSuite;

} // namespace
