/*
 * metaroce-devices: the NIC and the switch on ns-3's own PointToPointNetDevice, and the same
 * results as on the module's MetaRoceNetDevice.
 *
 * A fabric built with either device (MetaRoceFabricHelper::SetDeviceType, the experiments'
 * --device) must give the same result files, byte for byte, for every transport, with loss,
 * with PFC and with a failure: both devices serialise for the same time, and on both a node
 * handles its arrivals of an instant before its other events of it (model/link/
 * metaroce-arrivals.h). A back-to-back case moves a message between two NICs whose ports are
 * PointToPointHelper's devices, and checks that the stock device's own traces and error model
 * apply.
 */
#include "ns3/error-model.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-transports.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <sstream>

using namespace ns3;

namespace
{

/// The JSON document and every CSV series of one run.
std::string
Results(const MetaRoceExperimentConfig& c)
{
    const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
    std::ostringstream os;
    os << r.ToJson();
    for (const auto& t : r.throughput)
    {
        os << t.startUs << ',' << t.deliveredBytes << '\n';
    }
    for (const auto& h : r.hostThroughput)
    {
        os << h.startUs << ',' << h.host << ',' << h.txBytes << ',' << h.deliveredBytes << '\n';
    }
    return os.str();
}

/// 4 hosts on 2 planes (2 leaves, 2 spines per plane), 64 KiB per rank, a plane failing at 6 us
/// and back at 12 us.
MetaRoceExperimentConfig
Small(const std::string& workload, const std::string& transport, double loss)
{
    MetaRoceExperimentConfig c;
    c.hosts = 4;
    c.planes = 2;
    c.hostsPerLeaf = 2;
    c.spines = 2;
    c.workload = workload;
    c.transport = transport;
    c.loss = loss;
    c.messageBytes = 64 << 10;
    c.failure = "plane";
    c.failurePlane = 1;
    c.failureAt = "6us";
    c.failureUntil = "12us";
    c.throughputInterval = "2us";
    return c;
}

/// One experiment on both devices: the results must be the same, byte for byte.
class SameResultsTestCase : public TestCase
{
  public:
    explicit SameResultsTestCase(const MetaRoceExperimentConfig& config)
        : TestCase("same results on both devices: " + config.workload + ", " + config.transport +
                   ", loss " + std::to_string(config.loss))
        , m_config(config)
    {
    }

  private:
    void DoRun() override
    {
        MetaRoceExperimentConfig fast = m_config;
        fast.device = "ns3::MetaRoceNetDevice";
        MetaRoceExperimentConfig stock = m_config;
        stock.device = "ns3::PointToPointNetDevice";
        const std::string reference = Results(fast);
        NS_TEST_EXPECT_MSG_EQ((Results(stock) == reference), true, "PointToPointNetDevice");
    }

    MetaRoceExperimentConfig m_config;
};

/// Two NICs on PointToPointHelper's devices move a message; the stock device's traces fire and
/// its ReceiveErrorModel drops what it is told to, which the transport repairs.
class BackToBackTestCase : public TestCase
{
  public:
    BackToBackTestCase()
        : TestCase("a message between NICs on PointToPointHelper's devices")
    {
    }

  private:
    void CountTx(Ptr<const Packet>)
    {
        ++m_txFrames;
    }

    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer devices = p2p.Install(nodes);
        MetaRoceHelper rdma;
        Ptr<MetaRoceNic> a = rdma.Install(nodes.Get(0));
        Ptr<MetaRoceNic> b = rdma.Install(nodes.Get(1));
        a->AddPort(devices.Get(0), Ipv4Address("10.1.0.1"));
        b->AddPort(devices.Get(1), Ipv4Address("10.1.0.2"));
        // The receiver loses the 4th and 8th frames it gets (ReceiveListErrorModel counts from 1).
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({4, 8});
        devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        uint32_t lost = 0;
        devices.Get(1)->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(+[](uint32_t* n, Ptr<const Packet>) { ++*n; }).Bind(&lost));
        devices.Get(0)->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&BackToBackTestCase::CountTx, this));
        auto [qa, qb] = MetaRoceNic::Connect(a, b, metaroce::Transport::MetaRoce);
        qa->PostWrite(0, 64 << 10);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(qb->GetCounters().placedBytes, 64 << 10, "every byte placed");
        NS_TEST_EXPECT_MSG_EQ(lost, 2, "the stock error model dropped two frames");
        NS_TEST_EXPECT_MSG_GT(m_txFrames, 16, "PhyTxBegin of the stock device fired");
        NS_TEST_EXPECT_MSG_EQ((DynamicCast<PointToPointNetDevice>(a->GetPort(0)) != nullptr),
                              true,
                              "the port is the stock device");
        Simulator::Destroy();
    }

    uint32_t m_txFrames{0};
};

class DevicesTestSuite : public TestSuite
{
  public:
    DevicesTestSuite()
        : TestSuite("metaroce-devices", Type::SYSTEM)
    {
        AddTestCase(new BackToBackTestCase, MetaRoceTestDuration::QUICK);
        // Every transport, lossless and lossy; rocev2-pfc and rocev2-meta400 run PFC.
        for (const MetaRoceTransportInfo& info : MetaRoceTransports())
        {
            const std::string transport = info.name;
            for (const double loss : {0.0, 0.01})
            {
                AddTestCase(new SameResultsTestCase(Small("alltoall", transport, loss)),
                            MetaRoceTestDuration::QUICK);
            }
        }
        AddTestCase(new SameResultsTestCase(Small("allreduce-ring", "metaroce", 0.01)),
                    MetaRoceTestDuration::QUICK);
        MetaRoceExperimentConfig incast = Small("incast", "rocev2-pfc", 0);
        incast.failure = "none";
        incast.failureUntil.clear();
        AddTestCase(new SameResultsTestCase(incast), MetaRoceTestDuration::QUICK);
    }
};

DevicesTestSuite g_devicesTestSuite;

} // namespace
