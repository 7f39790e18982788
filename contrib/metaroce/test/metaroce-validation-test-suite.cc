/*
 * The validation suite (issue 59; doc/validation.md has the tables): the model's numbers
 * checked against what theory says they must be, each expected value computed in the test
 * from first principles.
 *
 *  1. hop latency (this file): a packet's time over one hop (host -> leaf -> host) and over
 *     several (host -> leaf -> spine -> leaf -> host), hop by hop, to the nanosecond:
 *     serialisation of its exact wire bytes at each link's rate, propagation, and the switch's
 *     forwarding time (zero: the model's switch is output-queued with no processing delay);
 *  2. ECMP spreading, 3. PFC in an incast (metaroce-validation-fabric.cc);
 *  4. DCQCN against its fluid model (metaroce-validation-dcqcn.cc);
 *  5. the collectives' ideal times (metaroce-validation-collectives.cc).
 */
#include "metaroce-validation.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <map>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::validation;
using metaroce::Transport;

NS_LOG_COMPONENT_DEFINE("MetaRoceValidation");

namespace
{

/// Payload of the one-packet WRITE timed: odd, so that RoCEv2 pads it (3 bytes).
constexpr uint32_t kPayload = 1001;
/// Packets at least this long are the WRITE (ACKs and CNPs are under 100 bytes).
constexpr uint32_t kDataAtLeast = 500;

/// The links of the timed fabric: rates and delays chosen so that no serialisation is a whole
/// number of nanoseconds and every term shows in the sum.
constexpr uint64_t kHostRateBps = 100'000'000'000ULL;
constexpr int64_t kHostDelayNs = 730;
constexpr uint64_t kFabricRateBps = 400'000'000'000ULL;
constexpr int64_t kFabricDelayNs = 1190;

/// When the data packet was seen at each point of its way, by name ("tx", "leaf0 in", ...).
using Sightings = std::map<std::string, std::vector<int64_t>>;

/// Records, under `name`, the time of every packet of at least kDataAtLeast bytes.
Callback<void, Ptr<const Packet>>
Recorder(Sightings& s, const std::string& name, std::vector<uint32_t>* sizes = nullptr)
{
    return Callback<void, Ptr<const Packet>>([&s, name, sizes](Ptr<const Packet> p) {
        if (p->GetSize() >= kDataAtLeast)
        {
            s[name].push_back(Simulator::Now().GetNanoSeconds());
            if (sizes != nullptr)
            {
                sizes->push_back(p->GetSize());
            }
        }
    });
}

/// The same for a switch's (packet, port, class) traces.
Callback<void, Ptr<const Packet>, uint32_t, uint32_t>
SwitchRecorder(Sightings& s, const std::string& name)
{
    return Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
        [&s, name](Ptr<const Packet> p, uint32_t, uint32_t) {
            if (p->GetSize() >= kDataAtLeast)
            {
                s[name].push_back(Simulator::Now().GetNanoSeconds());
            }
        });
}

class HopLatencyTestCase : public TestCase
{
  public:
    explicit HopLatencyTestCase(Transport t)
        : TestCase(std::string("hop latency to the nanosecond, ") + metaroce::TransportName(t) +
                   ": serialisation of the wire bytes at each rate + propagation + switch (0)")
        , m_transport(t)
    {
    }

  private:
    /// The fabric: 4 hosts, 2 per leaf, 2 spines, one plane; sightings hooked.
    void Build(MetaRoceFabricHelper& f, Sightings& s, std::vector<uint32_t>& sizes)
    {
        f.SetHosts(4);
        f.SetPlanes(1);
        f.SetHostsPerLeaf(2);
        f.SetSpines(2);
        f.SetHostLink(DataRate(kHostRateBps), NanoSeconds(kHostDelayNs));
        f.SetFabricLink(DataRate(kFabricRateBps), NanoSeconds(kFabricDelayNs));
        f.Build();
        f.GetNic(0)->GetPort(0)->TraceConnectWithoutContext("PhyTxBegin",
                                                            Recorder(s, "tx", &sizes));
        for (uint32_t h = 1; h < 4; ++h)
        {
            f.GetNic(h)->TraceConnectWithoutContext(
                "Rx",
                Callback<void, Ptr<const Packet>, uint32_t>(
                    [cb = Recorder(s, "rx")](Ptr<const Packet> p, uint32_t) { cb(p); }));
        }
        const std::vector<std::pair<std::string, Ptr<MetaRoceSwitch>>> switches = {
            {"leaf0", f.GetLeaf(0, 0)},
            {"leaf1", f.GetLeaf(0, 1)},
            {"spine", f.GetSpine(0, 0)},
            {"spine", f.GetSpine(0, 1)}};
        for (const auto& [name, sw] : switches)
        {
            sw->TraceConnectWithoutContext("Enqueue", SwitchRecorder(s, name + " in"));
            sw->TraceConnectWithoutContext("Dequeue", SwitchRecorder(s, name + " out"));
        }
    }

    /// One WRITE from host 0 to `dst`; checks each sighting against the hops' sum.
    void TimeOnePacket(uint32_t dst)
    {
        MetaRoceFabricHelper f;
        Sightings s;
        std::vector<uint32_t> sizes;
        Build(f, s, sizes);
        auto [qa, qb] = MetaRoceNic::Connect(f.GetNic(0), f.GetNic(dst), m_transport);
        Simulator::Schedule(MicroSeconds(10), [qa = qa]() { qa->PostWrite(0, kPayload); });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qa->GetCompletedCount(), 1, "the WRITE completes");
        NS_TEST_ASSERT_MSG_EQ(s["tx"].size(), 1, "one data packet sent");
        NS_TEST_ASSERT_MSG_EQ(s["rx"].size(), 1, "one data packet received");

        // The exact wire bytes: the packet layout of doc/spec.md plus the link's frame header.
        const uint32_t ip = m_transport == Transport::RoceV2 ? RoceV2PacketBytes(kPayload, true)
                                                             : MetaRoceWritePacketBytes(kPayload);
        const uint64_t wire = ip + kLinkFrameBytes;
        NS_TEST_EXPECT_MSG_EQ(sizes.front(), wire, "bytes on the wire");
        const int64_t host = SerialisationNs(wire, kHostRateBps) + kHostDelayNs;
        const int64_t fabric = SerialisationNs(wire, kFabricRateBps) + kFabricDelayNs;

        // Store and forward, hop by hop: each switch starts sending the instant the packet is
        // in (its port is idle), so it leaves when it arrived.
        const int64_t t0 = s["tx"].front();
        std::vector<std::pair<std::string, int64_t>> expected = {{"leaf0 in", t0 + host},
                                                                 {"leaf0 out", t0 + host}};
        int64_t end = t0 + host + host;
        if (dst >= 2)
        {
            expected.emplace_back("spine in", t0 + host + fabric);
            expected.emplace_back("spine out", t0 + host + fabric);
            expected.emplace_back("leaf1 in", t0 + host + 2 * fabric);
            expected.emplace_back("leaf1 out", t0 + host + 2 * fabric);
            end = t0 + 2 * host + 2 * fabric;
        }
        for (const auto& [where, at] : expected)
        {
            NS_TEST_ASSERT_MSG_EQ(s[where].size(), 1, where << ": seen once");
            NS_TEST_EXPECT_MSG_EQ(s[where].front(), at, where << " (ns)");
        }
        NS_TEST_EXPECT_MSG_EQ(s["rx"].front() - t0, end - t0, "one-way latency to host " << dst);
        NS_LOG_INFO(GetName() << ", host 0 -> " << dst << ": " << wire << " wire bytes, one-way "
                              << s["rx"].front() - t0 << " ns, expected " << end - t0 << " ns");
        Simulator::Destroy();
    }

    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Time::GetResolution(), Time::NS, "serialisation rounds to 1 ns");
        TimeOnePacket(1); // host -> leaf -> host
        TimeOnePacket(2); // host -> leaf -> spine -> leaf -> host
    }

    Transport m_transport;
};

class MetaRoceValidationTestSuite : public TestSuite
{
  public:
    MetaRoceValidationTestSuite()
        : TestSuite("metaroce-validation", Type::SYSTEM)
    {
        for (const Cases& cases :
             {TimingTestCases(), EcmpPfcTestCases(), CollectiveTestCases(), DcqcnTestCases()})
        {
            for (const auto& [c, duration] : cases)
            {
                AddTestCase(c, duration);
            }
        }
    }
};

MetaRoceValidationTestSuite g_metaRoceValidationTestSuite;

} // namespace

namespace ns3
{
namespace validation
{

Cases
TimingTestCases()
{
    return {{new HopLatencyTestCase(Transport::RoceV2), MetaRoceTestDuration::QUICK},
            {new HopLatencyTestCase(Transport::MetaRoce), MetaRoceTestDuration::QUICK}};
}

} // namespace validation
} // namespace ns3
