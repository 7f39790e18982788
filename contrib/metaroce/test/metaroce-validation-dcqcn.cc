/*
 * 4. DCQCN against its fluid model (issue 59, doc/validation.md): N RoCEv2 flows with the DCQCN
 *    paper's reaction point (the variant the fluid model describes) share one 100 Gb/s link
 *    into a receiver. After a warm-up of several alpha time constants (tau'/g), over a
 *    measurement window:
 *     - the flows share fairly: Jain's index of their rates, and each flow within a stated
 *       tolerance of C/N;
 *     - the bottleneck's DATA queue, averaged over time, sits at the fixed point of the fluid
 *       model (metaroce-validation-dcqcn-fluid.h) for the model's own DCQCN parameters (read
 *       from the NIC's rate control) and the switch's RED profile: its default (Kmin 100 KB,
 *       Kmax 400 KB, Pmax 0.2) and the DCQCN paper's (5 KB, 200 KB, 1%).
 */
#include "metaroce-validation-dcqcn-fluid.h"
#include "metaroce-validation.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::validation;
using metaroce::Transport;

NS_LOG_COMPONENT_DEFINE("MetaRoceValidationDcqcn");

namespace
{

constexpr uint64_t kRateBps = 100'000'000'000ULL;
/// A full RoCEv2 WRITE MIDDLE packet: its UDP payload (BTH 12 + 4096 + ICRC 4), its bytes on
/// the link (IPv4 + UDP + link frame) and its bytes as DCQCN's pacing counts them (+46, spec
/// 10.5).
constexpr double kUdpPayload = 12 + 4096 + 4;
constexpr double kLinkBytes = kUdpPayload + kIpUdpBytes + kLinkFrameBytes;
constexpr double kPacedBytes = kUdpPayload + 46;

/**
 * The tolerances. Queue: the fluid model is a mean field - it spreads DCQCN's cuts (each takes
 * half of alpha*, 4-6% here, off one flow at once) into a continuous drift - so the queue swings
 * around its mean by about what one cut drains, Rc alpha* T (27 KB with 2 flows, 10 KB with
 * 8), and swings that reach below Kmin (no marks) or above Kmax (every packet marked) move the
 * mean off the fixed point: 25% of q*. Rates: CNPs are random per flow; over the window a flow
 * sees about 150-200 of them, whose count varies by about 1/sqrt(150), 8%: 10% of C/N.
 */
constexpr double kQueueTolerance = 0.25;
constexpr double kFlowTolerance = 0.10;

/// A RED profile of the switch.
struct RedProfile
{
    const char* name;
    uint64_t kmin;
    uint64_t kmax;
    double pmax;
};

/// What one run measured over its window.
struct Measured
{
    std::vector<double> flowGbps; ///< each sender's link rate (wire bytes)
    double meanQueueBytes{0};
    double markedFraction{0};  ///< packets marked CE over packets sent on the link
    uint64_t windowPackets{0}; ///< the queue pairs' go-back-N window
    DcqcnFluidModel model;     ///< the fluid model with the run's own parameters
};

/// The fluid model for `flows` flows with the NIC's resolved DCQCN parameters and `red`.
DcqcnFluidModel
ModelOf(const metaroce::DcqcnConfig& c, uint32_t flows, const RedProfile& red)
{
    DcqcnFluidModel m;
    m.capacityPps = kRateBps / 8.0 / kLinkBytes;
    m.flows = flows;
    m.cnpIntervalS = c.cnpIntervalNs * 1e-9;
    m.alphaTimerS = c.alphaTimerNs * 1e-9;
    m.rateTimerS = c.rateTimerNs * 1e-9;
    m.byteCounterPkts = c.byteCounterBytes / kUdpPayload;
    m.fastRecovery = c.fastRecoverySteps;
    m.additivePps = c.additiveIncreaseBps / 8.0 / kPacedBytes;
    m.kminBytes = red.kmin;
    m.kmaxBytes = red.kmax;
    m.pmax = red.pmax;
    return m;
}

/// N senders (hosts 1..N) into host 0 on one switch; flow i starts i x 100 us; measures from
/// `warmup` to `end`.
Measured
RunDcqcn(uint32_t flows, const RedProfile& red, Time warmup, Time end, const char* variant)
{
    MetaRoceFabricHelper f;
    f.SetHosts(flows + 1);
    f.SetPlanes(1);
    f.SetHostsPerLeaf(flows + 1);
    f.SetSpines(0);
    f.SetHostLink(DataRate(kRateBps), MicroSeconds(1));
    f.SetNicAttribute("RoceRateControl",
                      StringValue(std::string("ns3::MetaRoceDcqcn[Variant=") + variant + "]"));
    f.SetSwitchAttribute("EcnKmin", UintegerValue(red.kmin));
    f.SetSwitchAttribute("EcnKmax", UintegerValue(red.kmax));
    f.SetSwitchAttribute("EcnPmax", DoubleValue(red.pmax));
    f.SetSwitchAttribute("BufferSize", UintegerValue(64 << 20)); // no drop: the queue is free
    f.Build();
    f.AssignStreams(1);
    Measured m;
    m.model = ModelOf(f.GetNic(1)->GetRoceRateControl()->GetConfig().Resolved(), flows, red);
    UintegerValue roceWindow;
    f.GetNic(1)->GetAttribute("RoceWindow", roceWindow);
    m.windowPackets = roceWindow.Get();
    std::vector<uint64_t> bytes(flows, 0);
    for (uint32_t i = 0; i < flows; ++i)
    {
        auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(i + 1), f.GetNic(0), Transport::RoceV2);
        // More than the flow can send before `end`, even alone at line rate.
        const uint64_t messages =
            end.GetNanoSeconds() / 8 * (kRateBps / 1000000000) / (1 << 30) + 1;
        Simulator::Schedule(MicroSeconds(100 * i), [qa = qa, messages]() {
            for (uint64_t k = 0; k < messages; ++k)
            {
                qa->PostWrite(0, 1 << 30);
            }
        });
        f.GetNic(i + 1)->GetPort(0)->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>([&bytes, i, warmup](Ptr<const Packet> p) {
                bytes[i] += Simulator::Now() >= warmup ? p->GetSize() : 0;
            }));
    }
    Ptr<MetaRoceSwitch> sw = f.GetLeaf(0, 0);
    uint32_t port = 0;
    while (sw->GetPortDevice(port) != f.GetHostLink(0, 0).second)
    {
        ++port;
    }
    double queueSum = 0;
    uint64_t samples = 0;
    for (Time t = warmup; t < end; t += MicroSeconds(1))
    {
        Simulator::Schedule(t, [&, sw, port]() {
            queueSum += sw->GetQueueBytes(port, METAROCE_CLASS_DATA);
            ++samples;
        });
    }
    uint64_t marked0 = 0;
    uint64_t tx0 = 0;
    Simulator::Schedule(warmup, [&]() {
        marked0 = sw->GetPortCounters(port).ecnMarked;
        tx0 = sw->GetPortCounters(port).txPackets;
    });
    Simulator::Stop(end);
    Simulator::Run();
    m.markedFraction = double(sw->GetPortCounters(port).ecnMarked - marked0) /
                       double(sw->GetPortCounters(port).txPackets - tx0);
    const double window = (end - warmup).GetSeconds();
    for (uint64_t b : bytes)
    {
        m.flowGbps.push_back(b * 8 / window / 1e9);
    }
    m.meanQueueBytes = queueSum / samples;
    Simulator::Destroy();
    return m;
}

/// "min-max" of `v`.
std::string
MinMax(const std::vector<double>& v)
{
    std::ostringstream os;
    os << *std::min_element(v.begin(), v.end()) << "-" << *std::max_element(v.begin(), v.end());
    return os.str();
}

class DcqcnFluidTestCase : public TestCase
{
  public:
    DcqcnFluidTestCase(uint32_t flows, RedProfile red)
        : TestCase(Name(flows, red))
        , m_flows(flows)
        , m_red(red)
    {
    }

  private:
    static std::string Name(uint32_t flows, const RedProfile& red)
    {
        std::ostringstream os;
        os << "DCQCN (paper variant) vs its fluid model: " << flows
           << " flows into one link converge to C over N, the queue at the fixed point (RED "
           << red.name << ")";
        return os.str();
    }

    void DoRun() override
    {
        const Measured m = RunDcqcn(m_flows, m_red, MilliSeconds(100), MilliSeconds(200), "paper");
        const DcqcnFixedPoint fp = SolveDcqcnFixedPoint(m.model);
        const double fairGbps = kRateBps / 1e9 / m_flows;
        double total = 0;
        for (uint32_t i = 0; i < m_flows; ++i)
        {
            total += m.flowGbps[i];
            NS_TEST_EXPECT_MSG_EQ_TOL(m.flowGbps[i],
                                      fairGbps,
                                      fairGbps * kFlowTolerance,
                                      "flow " << i << "'s rate (Gb/s) against C/N");
        }
        const double jain = JainIndex(m.flowGbps);
        NS_TEST_EXPECT_MSG_GT(jain, 0.99, "Jain's index");
        NS_TEST_EXPECT_MSG_GT(total, kRateBps / 1e9 * 0.98, "the link stays busy (Gb/s)");
        NS_TEST_EXPECT_MSG_EQ_TOL(m.meanQueueBytes,
                                  fp.queueBytes,
                                  fp.queueBytes * kQueueTolerance,
                                  "mean queue (bytes) against the fixed point");
        // The queue one cut drains before fast recovery closes the deficit (doc/validation.md).
        const double swing = fp.ratePps * kLinkBytes * fp.alpha * m.model.rateTimerS;
        NS_LOG_INFO(GetName() << ": p* " << fp.p << ", alpha* " << fp.alpha << ", q* "
                              << fp.queueBytes << " B; mean queue " << m.meanQueueBytes
                              << " B; one cut's swing " << swing << " B; marked share "
                              << m.markedFraction << "; flows " << MinMax(m.flowGbps)
                              << " Gb/s, total " << total << ", Jain " << jain);
    }

    uint32_t m_flows;
    RedProfile m_red;
};

const RedProfile kDefaultRed{"default: 100 KB, 400 KB, 0.2", 100000, 400000, 0.2};
const RedProfile kPaperRed{"DCQCN paper: 5 KB, 200 KB, 1%", 5000, 200000, 0.01};

/**
 * The nic variant with its defaults: the fluid model has no fixed point at 100 Gb/s (the byte
 * counter's increases outrun what one CNP per 50 us can cut, metaroce-validation-dcqcn-fluid.h),
 * so the queue is bounded by the go-back-N windows alone: N W packets in flight, of which
 * C x the base RTT are on the wires and in the NICs, the rest queued at the bottleneck.
 */
class DcqcnNicNoFixedPointTestCase : public TestCase
{
  public:
    DcqcnNicNoFixedPointTestCase()
        : TestCase("DCQCN (nic variant, defaults) vs its fluid model: no fixed point for 2 flows "
                   "at 100 Gbps, the queue is the windows' excess over the pipe")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t flows = 2;
        const Measured m = RunDcqcn(flows, kDefaultRed, MilliSeconds(5), MilliSeconds(10), "nic");
        const double linePps = kRateBps / 8.0 / kPacedBytes;
        const DcqcnNicBalance b = SolveDcqcnNicBalance(m.model, linePps);
        NS_TEST_ASSERT_MSG_EQ(b.fixedPoint, false, "the fluid model has a fixed point");
        NS_TEST_EXPECT_MSG_GT(b.ratePps * flows, m.model.capacityPps, "demand beyond C");
        // The base RTT: a full packet and an ACK (RoCEv2, 48 IPv4 bytes) over both links.
        const double ackWire = kIpUdpBytes + kLinkFrameBytes + 20;
        const double rttNs = 2 * (SerialisationNs(kLinkBytes, kRateBps) + 1000) +
                             2 * (SerialisationNs(ackWire, kRateBps) + 1000);
        const double ipBytes = kLinkBytes - kLinkFrameBytes;
        const double queue =
            (flows * m.windowPackets - m.model.capacityPps * rttNs * 1e-9) * ipBytes;
        NS_TEST_EXPECT_MSG_GT(m.meanQueueBytes, kDefaultRed.kmax, "the queue passes Kmax");
        NS_TEST_EXPECT_MSG_EQ_TOL(m.meanQueueBytes, queue, queue * 0.03, "mean queue (bytes)");
        double total = 0;
        for (double g : m.flowGbps)
        {
            total += g;
        }
        NS_TEST_EXPECT_MSG_GT(JainIndex(m.flowGbps), 0.99, "Jain's index");
        // The bottleneck never idles, so the senders together send what it serialises: full
        // frames back to back, each rounded to the nanosecond (331 ns for 331.36 at 100 Gb/s).
        const double busyGbps = kLinkBytes * 8 / SerialisationNs(kLinkBytes, kRateBps);
        NS_TEST_EXPECT_MSG_EQ_TOL(total, busyGbps, busyGbps * 2e-4, "senders' total (Gb/s)");
        NS_LOG_INFO(
            GetName() << ": alpha lambda needed " << b.neededPerS << "/s, most " << b.mostPerS
                      << "/s; mean queue " << m.meanQueueBytes << " B, windows' excess " << queue
                      << " B; marked share " << m.markedFraction << "; flows " << MinMax(m.flowGbps)
                      << " Gb/s, total " << total << " (the busy link: " << busyGbps << ")");
    }
};

} // namespace

namespace ns3
{
namespace validation
{

Cases
DcqcnTestCases()
{
    return {{new DcqcnFluidTestCase(2, kDefaultRed), MetaRoceTestDuration::QUICK},
            {new DcqcnFluidTestCase(2, kPaperRed), MetaRoceTestDuration::QUICK},
            {new DcqcnFluidTestCase(8, kPaperRed), MetaRoceTestDuration::QUICK},
            {new DcqcnNicNoFixedPointTestCase, MetaRoceTestDuration::QUICK}};
}

} // namespace validation
} // namespace ns3
