/*
 * MetaRoceSocket under ns-3's own applications, over MetaRoCE and over RoCEv2: two hosts back
 * to back (two planes, 100 Gb/s, 1 us), a MetaRoceSocketFactory on each.
 *
 *  - BulkSendApplication (MaxBytes 10 MB) -> PacketSink receives exactly 10 MB, both ends see
 *    the close, and the run ends by itself (nothing left scheduled);
 *  - OnOffApplication at 10 Gb/s for 1 ms -> the sink receives rate x time within one packet;
 *  - connecting to a port nobody listens on, or to an address nobody owns, fails through the
 *    connection-failed callback with ERROR_NOTCONN / ERROR_NOROUTETOHOST;
 *  - the send buffer: Send() beyond GetTxAvailable() is -1 with ERROR_MSGSIZE and takes
 *    nothing, Send() before Connect is ERROR_NOTCONN, after Close ERROR_SHUTDOWN; a raw
 *    listening socket reads the stream with Recv(maxSize) fragments and sees the EOF.
 */
#include "ns3/applications-module.h"
#include "ns3/inet-socket-address.h"
#include "ns3/metaroce-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-queue-pair.h"
#include "ns3/metaroce-socket-factory.h"
#include "ns3/metaroce-socket.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using metaroce::Transport;

namespace
{

constexpr const char* kFactory = "ns3::MetaRoceSocketFactory";
constexpr uint16_t kPort = 9;
/// A safety net: every test's traffic is over long before; the run must end by itself.
const Time kWatchdog = Seconds(1);

/// Two hosts, NICs back to back over two planes of 100 Gb/s, 1 us; a socket factory on each.
struct SocketNet
{
    explicit SocketNet(Transport transport)
    {
        nodes.Create(2);
        MetaRoceHelper rdma;
        rdma.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        rdma.SetChannelAttribute("Delay", StringValue("1us"));
        Ptr<MetaRoceNic> a = rdma.Install(nodes.Get(0));
        Ptr<MetaRoceNic> b = rdma.Install(nodes.Get(1));
        rdma.ConnectBackToBack(a, b, 2);
        rdma.InstallSocketFactory(nodes.Get(0), transport);
        rdma.InstallSocketFactory(nodes.Get(1), transport);
    }

    /// Runs until nothing is left to do (or the watchdog); true if it ended by itself.
    static bool Run()
    {
        Simulator::Stop(kWatchdog);
        Simulator::Run();
        return Simulator::IsFinished();
    }

    NodeContainer nodes;
};

std::string
Name(Transport t, const std::string& what)
{
    return std::string(metaroce::TransportName(t)) + " " + what;
}

/// BulkSend of 10 MB into a PacketSink.
class BulkSendTestCase : public TestCase
{
  public:
    explicit BulkSendTestCase(Transport t)
        : TestCase(Name(t, "BulkSendApplication delivers exactly MaxBytes"))
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint64_t kBytes = 10'000'000;
        SocketNet net(m_transport);
        PacketSinkHelper sinkHelper(kFactory, InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApps = sinkHelper.Install(net.nodes.Get(1));
        // Plane 1's address: a RoCEv2 queue pair must then run on plane 1.
        BulkSendHelper bulk(kFactory, InetSocketAddress(Ipv4Address("10.2.0.2"), kPort));
        bulk.SetAttribute("MaxBytes", UintegerValue(kBytes));
        bulk.SetAttribute("SendSize", UintegerValue(1448));
        ApplicationContainer bulkApps = bulk.Install(net.nodes.Get(0));
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApps.Get(0));

        const bool ended = SocketNet::Run();
        NS_TEST_ASSERT_MSG_EQ(ended, true, "something was still scheduled after the transfer");
        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), kBytes, "the sink must get exactly MaxBytes");
        const std::list<Ptr<Socket>> accepted = sink->GetAcceptedSockets();
        NS_TEST_ASSERT_MSG_EQ(accepted.size(), 1, "one connection");
        Ptr<MetaRoceSocket> server = DynamicCast<MetaRoceSocket>(accepted.front());
        NS_TEST_ASSERT_MSG_NE(server, nullptr, "the sink's socket is a MetaRoceSocket");
        Ptr<MetaRoceQueuePair> qp = server->GetQueuePair();
        NS_TEST_ASSERT_MSG_EQ(qp->GetTransportName(),
                              metaroce::TransportName(m_transport),
                              "the factory's transport carries the connection");
        Address peer;
        server->GetPeerName(peer);
        NS_TEST_ASSERT_MSG_EQ(InetSocketAddress::ConvertFrom(peer).GetIpv4(),
                              Ipv4Address("10.2.0.1"),
                              "the client's address on the plane it connected on");
        // The sender closed after its last byte: its socket drained and closed.
        Ptr<MetaRoceSocket> client = DynamicCast<MetaRoceSocket>(
            DynamicCast<BulkSendApplication>(bulkApps.Get(0))->GetSocket());
        NS_TEST_ASSERT_MSG_EQ(std::string(MetaRoceSocket::StateName(client->GetState())),
                              "closed",
                              "the sender's socket should have drained and closed");
        NS_TEST_ASSERT_MSG_EQ(client->GetTxAvailable(), 1U << 20, "send buffer empty again");
        Simulator::Destroy();
    }

    Transport m_transport;
};

/// OnOff at a fixed rate for a fixed time into a PacketSink.
class OnOffTestCase : public TestCase
{
  public:
    explicit OnOffTestCase(Transport t)
        : TestCase(Name(t, "OnOffApplication delivers rate x time"))
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint32_t kPacket = 1000;
        SocketNet net(m_transport);
        PacketSinkHelper sinkHelper(kFactory, InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApps = sinkHelper.Install(net.nodes.Get(1));
        OnOffHelper onoff(kFactory, InetSocketAddress(Ipv4Address("10.1.0.2"), kPort));
        onoff.SetConstantRate(DataRate("10Gbps"), kPacket);
        ApplicationContainer onoffApps = onoff.Install(net.nodes.Get(0));
        onoffApps.Stop(MilliSeconds(1));

        const bool ended = SocketNet::Run();
        NS_TEST_ASSERT_MSG_EQ(ended, true, "something was still scheduled after the transfer");
        const double expected = 10e9 * 1e-3 / 8; // 1.25 MB
        const double got = DynamicCast<PacketSink>(sinkApps.Get(0))->GetTotalRx();
        NS_TEST_ASSERT_MSG_EQ_TOL(got, expected, kPacket, "rate x time, within one packet");
        Simulator::Destroy();
    }

    Transport m_transport;
};

/// Connections nobody accepts fail cleanly.
class ConnectFailureTestCase : public TestCase
{
  public:
    explicit ConnectFailureTestCase(Transport t)
        : TestCase(Name(t, "connecting where nobody listens fails cleanly"))
        , m_transport(t)
    {
    }

  private:
    void DoRun() override
    {
        SocketNet net(m_transport);
        const TypeId tid = TypeId::LookupByName(kFactory);
        // A listener on another port, so the node does accept connections in general.
        Ptr<Socket> listener = Socket::CreateSocket(net.nodes.Get(1), tid);
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
        listener->Listen();

        Ptr<Socket> noPort = Socket::CreateSocket(net.nodes.Get(0), tid);
        Ptr<Socket> noHost = Socket::CreateSocket(net.nodes.Get(0), tid);
        for (const Ptr<Socket>& s : {noPort, noHost})
        {
            s->SetConnectCallback(MakeCallback(&ConnectFailureTestCase::Succeeded, this),
                                  MakeCallback(&ConnectFailureTestCase::Failed, this));
        }
        NS_TEST_ASSERT_MSG_EQ(noPort->Connect(InetSocketAddress("10.1.0.2", kPort + 1)),
                              0,
                              "the failure is reported asynchronously");
        noHost->Connect(InetSocketAddress("10.9.9.9", kPort));
        // A BulkSend towards the closed port too: it must simply not send.
        BulkSendHelper bulk(kFactory, InetSocketAddress(Ipv4Address("10.1.0.2"), kPort + 2));
        bulk.Install(net.nodes.Get(0));

        const bool ended = SocketNet::Run();
        NS_TEST_ASSERT_MSG_EQ(ended, true, "a failed connection leaves nothing scheduled");
        NS_TEST_ASSERT_MSG_EQ(m_succeeded, 0, "no connection can succeed");
        NS_TEST_ASSERT_MSG_EQ(m_failed, 2, "both connections fail through the callback");
        NS_TEST_ASSERT_MSG_EQ(noPort->GetErrno(), Socket::ERROR_NOTCONN, "nobody listens");
        NS_TEST_ASSERT_MSG_EQ(noHost->GetErrno(), Socket::ERROR_NOROUTETOHOST, "nobody owns it");
        NS_TEST_ASSERT_MSG_EQ(noPort->Send(Create<Packet>(10), 0), -1, "no send after failure");
        NS_TEST_ASSERT_MSG_EQ(net.nodes.Get(0)->GetObject<MetaRoceNic>()->GetQueuePairs().size(),
                              0,
                              "no queue pair was created");
        Simulator::Destroy();
    }

    void Succeeded(Ptr<Socket>)
    {
        ++m_succeeded;
    }

    void Failed(Ptr<Socket>)
    {
        ++m_failed;
    }

    Transport m_transport;
    int m_succeeded{0};
    int m_failed{0};
};

/// Send-buffer limits and errors; a raw listening socket reads in fragments until EOF.
class SendBufferTestCase : public TestCase
{
  public:
    explicit SendBufferTestCase(Transport t)
        : TestCase(Name(t, "send buffer limits, Recv fragments, EOF"))
        , m_transport(t)
    {
    }

  private:
    static constexpr uint32_t kSndBuf = 100'000;
    static constexpr uint32_t kReadSize = 1500;

    void DoRun() override
    {
        SocketNet net(m_transport);
        const TypeId tid = TypeId::LookupByName(kFactory);
        Ptr<Socket> listener = Socket::CreateSocket(net.nodes.Get(1), tid);
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&SendBufferTestCase::Accepted, this));
        NS_TEST_ASSERT_MSG_EQ(listener->Bind6(), -1, "IPv6 is not supported");
        NS_TEST_ASSERT_MSG_EQ(listener->GetErrno(), Socket::ERROR_AFNOSUPPORT, "errno");
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
        listener->Listen();

        m_client = Socket::CreateSocket(net.nodes.Get(0), tid);
        m_client->SetAttribute("SndBufSize", UintegerValue(kSndBuf));
        NS_TEST_ASSERT_MSG_EQ(m_client->Send(Create<Packet>(100), 0), -1, "not connected");
        NS_TEST_ASSERT_MSG_EQ(m_client->GetErrno(), Socket::ERROR_NOTCONN, "errno");
        m_client->SetConnectCallback(MakeCallback(&SendBufferTestCase::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_client->Connect(InetSocketAddress("10.1.0.2", kPort));

        const bool ended = SocketNet::Run();
        NS_TEST_ASSERT_MSG_EQ(ended, true, "something was still scheduled after the transfer");
        NS_TEST_ASSERT_MSG_EQ(m_tooBig, -1, "a Send larger than the free space fails");
        NS_TEST_ASSERT_MSG_EQ(m_tooBigErrno, Socket::ERROR_MSGSIZE, "TcpSocketBase's errno");
        NS_TEST_ASSERT_MSG_EQ(m_fill, static_cast<int>(kSndBuf), "the whole buffer fits");
        NS_TEST_ASSERT_MSG_EQ(m_overflow, -1, "a full buffer takes nothing more");
        NS_TEST_ASSERT_MSG_EQ(m_afterClose, -1, "no Send after Close");
        NS_TEST_ASSERT_MSG_EQ(m_afterCloseErrno, Socket::ERROR_SHUTDOWN, "errno after Close");
        NS_TEST_ASSERT_MSG_EQ(m_received, kSndBuf, "every accepted byte arrives, once");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(m_largestRead, kReadSize, "Recv respects maxSize");
        NS_TEST_ASSERT_MSG_EQ(m_eof, true, "the reader saw the end of stream");
        Simulator::Destroy();
        m_client = nullptr;
    }

    void Connected(Ptr<Socket> s)
    {
        m_tooBig = s->Send(Create<Packet>(kSndBuf + 1), 0);
        m_tooBigErrno = s->GetErrno();
        m_fill = s->Send(Create<Packet>(s->GetTxAvailable()), 0);
        m_overflow = s->Send(Create<Packet>(1), 0);
        s->Close();
        m_afterClose = s->Send(Create<Packet>(1), 0);
        m_afterCloseErrno = s->GetErrno();
    }

    void Accepted(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&SendBufferTestCase::Read, this));
        s->SetCloseCallbacks(MakeCallback(&SendBufferTestCase::Read, this),
                             MakeNullCallback<void, Ptr<Socket>>());
    }

    void Read(Ptr<Socket> s)
    {
        Address from;
        while (Ptr<Packet> p = s->RecvFrom(kReadSize, 0, from))
        {
            if (p->GetSize() == 0)
            {
                m_eof = true;
                break;
            }
            m_received += p->GetSize();
            m_largestRead = std::max(m_largestRead, p->GetSize());
        }
    }

    Transport m_transport;
    Ptr<Socket> m_client;
    int m_tooBig{0};
    Socket::SocketErrno m_tooBigErrno{Socket::ERROR_NOTERROR};
    int m_fill{0};
    int m_overflow{0};
    int m_afterClose{0};
    Socket::SocketErrno m_afterCloseErrno{Socket::ERROR_NOTERROR};
    uint32_t m_received{0};
    uint32_t m_largestRead{0};
    bool m_eof{false};
};

class MetaRoceSocketTestSuite : public TestSuite
{
  public:
    MetaRoceSocketTestSuite()
        : TestSuite("metaroce-socket", Type::UNIT)
    {
        for (Transport t : {Transport::MetaRoce, Transport::RoceV2})
        {
            AddTestCase(new BulkSendTestCase(t), MetaRoceTestDuration::QUICK);
            AddTestCase(new OnOffTestCase(t), MetaRoceTestDuration::QUICK);
            AddTestCase(new ConnectFailureTestCase(t), MetaRoceTestDuration::QUICK);
            AddTestCase(new SendBufferTestCase(t), MetaRoceTestDuration::QUICK);
        }
    }
};

MetaRoceSocketTestSuite g_metaRoceSocketTestSuite;

} // namespace
