/*
 * Validation on a fabric (issue 59, doc/validation.md): the statistics of ECMP and the
 * losslessness of PFC, each against what theory says.
 *
 *  2. ECMP spreads flows evenly over equal paths: 800 RoCEv2 queue pairs (distinct 5-tuples:
 *     each draws its UDP source port) from the 4 hosts of one leaf to the 4 of another, over 8
 *     spines. The flows each uplink carries are tested against the uniform distribution with
 *     Pearson's chi-square test at a 1% significance, for the data on the first leaf's uplinks
 *     and the ACKs on the second's (another switch, another seed); the p-value is computed
 *     here (regularised incomplete gamma), not read from a table. The run is deterministic:
 *     the same seeds give the same spread, another ECMP seed another one.
 *  3. PFC loses nothing: a 7-to-1 incast of RoCEv2 without rate control into a switch whose
 *     shared buffer is exactly what the PFC headroom rule asks for (per ingress: Xoff plus
 *     the bytes that can still arrive after the PAUSE is decided). Without PFC the same buffer
 *     drops; with it nothing is dropped, nothing is retransmitted, every byte arrives.
 */
#include "metaroce-validation.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-switch-pfc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace ns3::validation;
using metaroce::Transport;

NS_LOG_COMPONENT_DEFINE("MetaRoceValidationFabric");

namespace
{

/// P(a, x) or Q(a, x), the regularised incomplete gamma functions: the series
/// x^a e^-x / Gamma(a+1) sum x^n / ((a+1)...(a+n)) below x = a + 1, else the continued fraction
/// of Gamma(a, x) (modified Lentz), where each converges fast.
double
UpperRegularisedGamma(double a, double x)
{
    if (x <= 0)
    {
        return 1.0;
    }
    const double front = std::exp(-x + a * std::log(x) - std::lgamma(a));
    if (x < a + 1)
    {
        double term = 1.0 / a;
        double sum = term;
        for (int n = 1; n < 1000 && term > sum * 1e-16; ++n)
        {
            term *= x / (a + n);
            sum += term;
        }
        return 1.0 - front * sum;
    }
    constexpr double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 1000; ++i)
    {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = std::fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = std::fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1) < 1e-16)
        {
            break;
        }
    }
    return front * h;
}

/// The chi-square distribution's survival function: P(X >= x) with `dof` degrees of freedom.
double
ChiSquareSurvival(double x, uint32_t dof)
{
    return UpperRegularisedGamma(dof / 2.0, x / 2.0);
}

/// The critical value at significance `alpha`: the x with P(X >= x) = alpha (bisection).
double
ChiSquareCritical(double alpha, uint32_t dof)
{
    double lo = 0;
    double hi = 1000;
    for (int i = 0; i < 200; ++i)
    {
        const double mid = (lo + hi) / 2;
        (ChiSquareSurvival(mid, dof) > alpha ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

/// Pearson's statistic of `counts` against equal expected counts.
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

/// A flow's 5-tuple (the protocol is always UDP).
using FiveTuple = std::tuple<uint32_t, uint32_t, uint16_t, uint16_t>;

FiveTuple
TupleOf(Ptr<const Packet> p)
{
    Ipv4Header ip;
    p->PeekHeader(ip);
    uint8_t head[28];
    p->CopyData(head, sizeof(head));
    return {ip.GetSource().Get(),
            ip.GetDestination().Get(),
            uint16_t((head[20] << 8) | head[21]),
            uint16_t((head[22] << 8) | head[23])};
}

constexpr uint32_t kEcmpSpines = 8;
constexpr uint32_t kQpsPerHostPair = 50; ///< x 16 host pairs = 800 flows
constexpr double kSignificance = 0.01;

/// The distinct 5-tuples a leaf sent up to each spine, for one run.
struct Spread
{
    std::vector<std::set<FiveTuple>> dataUp; ///< leaf 0's uplinks: the WRITEs
    std::vector<std::set<FiveTuple>> acksUp; ///< leaf 1's uplinks: their ACKs
    uint64_t completed{0};
};

/// Records every packet `leaf` queues on an uplink, by spine, in `bySpine`.
void
HookUplinks(MetaRoceFabricHelper& f, uint32_t leaf, std::vector<std::set<FiveTuple>>& bySpine)
{
    Ptr<MetaRoceSwitch> sw = f.GetLeaf(0, leaf);
    std::map<uint32_t, uint32_t> spineOfPort;
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        for (uint32_t s = 0; s < kEcmpSpines; ++s)
        {
            if (sw->GetPortDevice(port) == f.GetFabricLink(0, leaf, s).first)
            {
                spineOfPort[port] = s;
            }
        }
    }
    bySpine.assign(kEcmpSpines, {});
    sw->TraceConnectWithoutContext(
        "Enqueue",
        Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
            [&bySpine, spineOfPort](Ptr<const Packet> p, uint32_t port, uint32_t) {
                auto it = spineOfPort.find(port);
                if (it != spineOfPort.end())
                {
                    bySpine[it->second].insert(TupleOf(p));
                }
            }));
}

/// 8 hosts, 4 per leaf, 8 spines; every host of leaf 0 opens kQpsPerHostPair queue pairs to
/// every host of leaf 1, each WRITEs one packet.
Spread
RunEcmp(uint32_t ecmpSeed, int64_t stream)
{
    MetaRoceFabricHelper f;
    f.SetHosts(8);
    f.SetPlanes(1);
    f.SetHostsPerLeaf(4);
    f.SetSpines(kEcmpSpines);
    f.SetEcmpSeed(ecmpSeed);
    f.Build();
    f.AssignStreams(stream);
    Spread s;
    HookUplinks(f, 0, s.dataUp);
    HookUplinks(f, 1, s.acksUp);
    std::vector<Ptr<MetaRoceQueuePair>> qps;
    for (uint32_t a = 0; a < 4; ++a)
    {
        for (uint32_t b = 4; b < 8; ++b)
        {
            for (uint32_t k = 0; k < kQpsPerHostPair; ++k)
            {
                auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(a), f.GetNic(b), Transport::RoceV2);
                qa->PostWrite(0, 1000);
                qps.push_back(qa);
            }
        }
    }
    Simulator::Run();
    for (const auto& qp : qps)
    {
        s.completed += qp->GetCompletedCount();
    }
    Simulator::Destroy();
    return s;
}

/// Flows per spine; every 5-tuple counted once (two queue pairs drawing the same source port
/// between the same hosts are one flow to the hash).
std::vector<uint32_t>
FlowsPerSpine(const std::vector<std::set<FiveTuple>>& bySpine, uint32_t& flows, bool& split)
{
    std::vector<uint32_t> counts;
    std::set<FiveTuple> all;
    size_t sum = 0;
    for (const auto& tuples : bySpine)
    {
        counts.push_back(tuples.size());
        all.insert(tuples.begin(), tuples.end());
        sum += tuples.size();
    }
    flows = all.size();
    split = sum != all.size();
    return counts;
}

class EcmpChiSquareTestCase : public TestCase
{
  public:
    EcmpChiSquareTestCase()
        : TestCase("ECMP: 800 flows over 8 spines fit the uniform distribution (chi-square, "
                   "1% significance), deterministically with the seed")
    {
    }

  private:
    /// The goodness-of-fit test of one leaf's uplinks; returns the flows per spine.
    std::vector<uint32_t> Fit(const std::vector<std::set<FiveTuple>>& bySpine, const char* what)
    {
        uint32_t flows = 0;
        bool split = false;
        const std::vector<uint32_t> counts = FlowsPerSpine(bySpine, flows, split);
        NS_TEST_EXPECT_MSG_EQ(split, false, what << ": a flow never takes two spines");
        NS_TEST_EXPECT_MSG_GT(flows, 16 * kQpsPerHostPair * 95 / 100, what << ": flows seen");
        const double chi2 = ChiSquare(counts);
        const double pValue = ChiSquareSurvival(chi2, kEcmpSpines - 1);
        NS_TEST_EXPECT_MSG_GT(pValue,
                              kSignificance,
                              what << ": chi2 " << chi2 << " over " << flows << " flows");
        std::ostringstream spread;
        for (uint32_t c : counts)
        {
            spread << " " << c;
        }
        NS_LOG_INFO(what << ": flows per spine" << spread.str() << "; chi2 " << chi2 << ", p-value "
                         << pValue << " (critical value at 1%: "
                         << ChiSquareCritical(kSignificance, kEcmpSpines - 1) << ")");
        return counts;
    }

    void DoRun() override
    {
        // The test's own statistics first: with 2 degrees of freedom the survival function is
        // exp(-x/2) exactly; the tabled 1% critical value for 7 is 18.475 (any statistics
        // textbook's chi-square table).
        for (double x : {0.5, 3.0, 9.21, 40.0})
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(ChiSquareSurvival(x, 2), std::exp(-x / 2), 1e-12, x);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(ChiSquareCritical(kSignificance, 7), 18.475, 1e-3, "table");

        const Spread a = RunEcmp(1, 1);
        NS_TEST_ASSERT_MSG_EQ(a.completed, 16 * kQpsPerHostPair, "every WRITE completes");
        const std::vector<uint32_t> data = Fit(a.dataUp, "leaf 0 (data)");
        const std::vector<uint32_t> acks = Fit(a.acksUp, "leaf 1 (ACKs)");

        const Spread again = RunEcmp(1, 1);
        NS_TEST_EXPECT_MSG_EQ((again.dataUp == a.dataUp && again.acksUp == a.acksUp),
                              true,
                              "the same seeds, the same spread");
        const Spread other = RunEcmp(2, 1);
        uint32_t moved = 0;
        for (uint32_t s = 0; s < kEcmpSpines; ++s)
        {
            for (const FiveTuple& t : a.dataUp[s])
            {
                moved += other.dataUp[s].count(t) == 0;
            }
        }
        // A flow keeps its spine under another seed with probability 1/8 if the hashes are
        // independent: 700 of 800 are expected to move.
        NS_TEST_EXPECT_MSG_GT(moved, 600, "another ECMP seed, another spread");
        NS_LOG_INFO("ECMP seed 2 moved " << moved << " of the flows");
        Fit(other.dataUp, "leaf 0 (data), ECMP seed 2");
    }
};

/// The 7-to-1 incast: 8 hosts on one switch, RoCEv2 without DCQCN, 1 MiB from each of hosts
/// 1..7 to host 0; the switch's buffer from the PFC headroom rule.
class PfcIncastTestCase : public TestCase
{
  public:
    PfcIncastTestCase()
        : TestCase("PFC: a 7-to-1 incast into the headroom rule's buffer loses nothing with PFC "
                   "and drops without")
    {
    }

  private:
    static constexpr uint32_t kSenders = 7;
    static constexpr uint64_t kBytes = 1 << 20;
    static constexpr uint64_t kRateBps = 100'000'000'000ULL;
    static constexpr int64_t kDelayNs = 1000;
    static constexpr uint64_t kXoff = 32 * 1024;
    static constexpr uint64_t kXon = 16 * 1024;

    /**
     * Bytes an ingress may still bring after its count crosses Xoff (the switch then queues a
     * PAUSE): the PAUSE waits for the frame the port is sending (one full frame) and takes its
     * own serialisation; it flies one link delay; the sender finishes the frame it is sending
     * (one more); and what was on the wire meanwhile arrives - two link delays of line rate.
     * The buffer the switch counts is IPv4 bytes, so full frames count without the link header.
     */
    static uint64_t Headroom()
    {
        const uint64_t frame = RoceV2PacketBytes(4096, true);
        const uint64_t pause = MakePfcFrame(METAROCE_CLASS_DATA, true)->GetSize();
        const uint64_t wire = 2 * kDelayNs * kRateBps / 8 / 1000000000ULL;
        return 2 * frame + pause + wire;
    }

    struct Outcome
    {
        uint64_t drops{0};
        uint64_t pauses{0};
        uint64_t delivered{0};
        uint64_t retransmitted{0};
        uint64_t completed{0};
    };

    Outcome Run(bool pfc, uint64_t buffer)
    {
        MetaRoceFabricHelper f;
        f.SetHosts(kSenders + 1);
        f.SetPlanes(1);
        f.SetHostsPerLeaf(kSenders + 1);
        f.SetSpines(0);
        f.SetHostLink(DataRate(kRateBps), NanoSeconds(kDelayNs));
        f.SetNicAttribute("RoceRateControl", StringValue("ns3::MetaRoceDcqcn[Enabled=false]"));
        f.SetSwitchAttribute("BufferSize", UintegerValue(buffer));
        f.SetSwitchAttribute("PfcEnabled", BooleanValue(pfc));
        f.SetSwitchAttribute("PfcXoff", UintegerValue(kXoff));
        f.SetSwitchAttribute("PfcXon", UintegerValue(kXon));
        f.Build();
        std::vector<Ptr<MetaRoceQueuePair>> senders;
        std::vector<Ptr<MetaRoceQueuePair>> receivers;
        for (uint32_t h = 1; h <= kSenders; ++h)
        {
            auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(h), f.GetNic(0), Transport::RoceV2);
            qa->PostWrite(0, kBytes);
            senders.push_back(qa);
            receivers.push_back(qb);
        }
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        Outcome o;
        Ptr<MetaRoceSwitch> sw = f.GetLeaf(0, 0);
        o.drops = sw->GetDropped();
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            o.pauses += sw->GetPortCounters(port).pauseSent;
        }
        for (uint32_t i = 0; i < kSenders; ++i)
        {
            o.completed += senders[i]->GetCompletedCount();
            o.retransmitted += senders[i]->GetCounters().retransmittedPackets;
            o.delivered += receivers[i]->GetCounters().placedBytes;
        }
        Simulator::Destroy();
        return o;
    }

    void DoRun() override
    {
        const uint64_t buffer = kSenders * (kXoff + Headroom());
        // Without PFC the incast's excess, 6/7 of 7 MiB, far exceeds the buffer.
        NS_TEST_ASSERT_MSG_LT(buffer, (kSenders - 1) * kBytes, "the buffer is small");
        const Outcome lossy = Run(false, buffer);
        NS_TEST_EXPECT_MSG_GT(lossy.drops, 0, "without PFC the switch drops");
        NS_TEST_EXPECT_MSG_EQ(lossy.pauses, 0, "and sends no PAUSE");
        const Outcome lossless = Run(true, buffer);
        NS_TEST_EXPECT_MSG_EQ(lossless.drops, 0, "with PFC nothing is dropped");
        NS_TEST_EXPECT_MSG_GT(lossless.pauses, 0, "PFC paused the senders");
        NS_TEST_EXPECT_MSG_EQ(lossless.retransmitted, 0, "nothing is sent twice");
        NS_TEST_EXPECT_MSG_EQ(lossless.completed, kSenders, "every WRITE completes");
        NS_TEST_EXPECT_MSG_EQ(lossless.delivered, kSenders * kBytes, "every byte arrives");
        NS_LOG_INFO("buffer " << buffer << " B (headroom " << Headroom() << " B per ingress); "
                              << "without PFC " << lossy.drops << " drops; with PFC "
                              << lossless.drops << " drops, " << lossless.pauses << " PAUSEs, "
                              << lossless.delivered << " of " << kSenders * kBytes
                              << " bytes delivered");
    }
};

} // namespace

namespace ns3
{
namespace validation
{

Cases
EcmpPfcTestCases()
{
    return {{new EcmpChiSquareTestCase, MetaRoceTestDuration::QUICK},
            {new PfcIncastTestCase, MetaRoceTestDuration::QUICK}};
}

} // namespace validation
} // namespace ns3
