/*
 * 5. The collectives' ideal times (issue 59, doc/validation.md): on a lossless non-blocking
 *    fabric a collective can finish no sooner than its critical path allows, and a transport
 *    that fills the links finishes close to it. The ideal is computed here from the schedule's
 *    definition (metaroce-collective-schedule.h), the packet layouts of doc/spec.md and the
 *    links: each rank's NIC sends its step's wire bytes at its line rate times the planes; a
 *    message is there when its last packet has crossed the remaining hops (store and forward:
 *    serialisation and propagation at each); a rank enters its next step once its
 *    predecessor's message is there and its NIC is free, and has finished when its last
 *    message is there and the ACK of its own last SEND is back. No queueing, no control
 *    traffic: what the run adds beyond that is the ACKs' share of the links, scheduling and,
 *    across spines, spraying's imbalance.
 *
 *    Cases: a star (8 hosts on one switch: no spine, no ECMP) under MetaRoCE and RoCEv2, and a
 *    2-plane leaf-spine of 2 leaves and 4 spines per plane (1:1) under MetaRoCE; the ring
 *    all-reduce, the all-to-all and the permutation of 4 MiB per rank.
 */
#include "metaroce-validation.h"

#include "ns3/log.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::validation;

NS_LOG_COMPONENT_DEFINE("MetaRoceValidationCollectives");

namespace
{

constexpr uint64_t kRateBps = 100'000'000'000ULL;
constexpr int64_t kDelayNs = 1000;
constexpr uint32_t kHosts = 8;
constexpr uint64_t kBuffer = 4 << 20;
constexpr uint32_t kMtu = 4096;

/// The fabric and transport of one case.
struct Setup
{
    std::string transport; ///< "metaroce" or "rocev2"
    uint32_t planes;
    uint32_t hostsPerLeaf; ///< kHosts: a star
};

/// Wire bytes of a SEND of `bytes` (doc/spec.md 5.2: MetaRoCE SEND header 48; 8.2: RoCEv2 BTH
/// 12 + padding + ICRC 4), every packet with its IPv4/UDP headers and the link frame.
uint64_t
SendWireBytes(const Setup& s, uint64_t bytes)
{
    const uint64_t packets = (bytes + kMtu - 1) / kMtu;
    const uint64_t perPacket =
        kIpUdpBytes + kLinkFrameBytes + (s.transport == "metaroce" ? 48 : 16);
    const uint64_t padding = s.transport == "metaroce" ? 0 : (4 - bytes % 4) % 4;
    return bytes + packets * perPacket + padding;
}

/// The ideal-time model of one case (file comment), in nanoseconds.
class IdealTime
{
  public:
    explicit IdealTime(const Setup& s)
        : m_setup(s)
    {
    }

    /// Time for a rank's NIC to put `wireBytes` on its links (every plane).
    double SendNs(uint64_t wireBytes) const
    {
        return wireBytes * 8.0 * 1e9 / (kRateBps * m_setup.planes);
    }

    /// From the end of a packet's first serialisation until it is at `dst`: propagation on the
    /// host link, then store and forward over the leaf (and spine, leaf) - all links 100 Gb/s.
    double TailNs(uint32_t src, uint32_t dst, uint64_t packetWire) const
    {
        const bool across = src / m_setup.hostsPerLeaf != dst / m_setup.hostsPerLeaf;
        const double hop = static_cast<double>(SerialisationNs(packetWire, kRateBps) + kDelayNs);
        return kDelayNs + (across ? 3 : 1) * hop;
    }

    /// A full data packet's wire bytes, and an ACK's (MetaRoCE 64-byte ACK header, spec 5.3;
    /// RoCEv2 BTH + AETH + ICRC, 8.2).
    uint64_t FullPacket() const
    {
        return SendWireBytes(m_setup, kMtu);
    }

    uint64_t AckPacket() const
    {
        return kIpUdpBytes + kLinkFrameBytes + (m_setup.transport == "metaroce" ? 64 : 20);
    }

    /// A message sent by `src` whose serialisation ends at `sent` is there (at `dst`) at...
    double ArrivesNs(uint32_t src, uint32_t dst, double sent) const
    {
        return sent + TailNs(src, dst, FullPacket());
    }

    /// ...and its sender has the ACK of its last packet at:
    double AckedNs(uint32_t src, uint32_t dst, double sent) const
    {
        return ArrivesNs(src, dst, sent) + SendNs(AckPacket()) * m_setup.planes +
               TailNs(dst, src, AckPacket());
    }

    /**
     * The ring all-reduce: 2(n-1) steps, each a block of S/(c n) on each of the c channels (one
     * per plane), which run the schedule independently over the same NIC. Two bounds, the
     * larger is the ideal: a channel's chain (rank r enters step s + 1 once its predecessor's
     * step-s block is there and its own step-s block has left; max-plus over the ring, the
     * tails across leaves included), and the NIC's (every block of every channel serialised
     * back to back, then the last tail and ACK). With one channel they coincide up to the tails;
     * with several, the other channels' blocks fill the NIC while one channel waits for its
     * tail, so the NIC's bound is the one reached.
     */
    double RingNs() const
    {
        const uint32_t c = m_setup.planes;
        const uint32_t steps = 2 * (kHosts - 1);
        const double block = SendNs(SendWireBytes(m_setup, kBuffer / c / kHosts));
        std::vector<double> start(kHosts, 0);
        std::vector<double> arrived(kHosts, 0); // the predecessor's block of this step
        double chain = 0;
        double nic = 0;
        for (uint32_t s = 0; s < steps; ++s)
        {
            for (uint32_t r = 0; r < kHosts; ++r)
            {
                arrived[(r + 1) % kHosts] = ArrivesNs(r, (r + 1) % kHosts, start[r] + block);
            }
            for (uint32_t r = 0; r < kHosts; ++r)
            {
                const uint32_t next = (r + 1) % kHosts;
                if (s + 1 == steps)
                {
                    chain = std::max({chain, arrived[r], AckedNs(r, next, start[r] + block)});
                    nic = std::max(nic, AckedNs(r, next, steps * c * block));
                }
                start[r] = std::max(arrived[r], start[r] + block);
            }
        }
        return std::max(chain, nic);
    }

    /// The all-to-all: S/n to each of the n - 1 others at once (per channel S/(c n)); the last
    /// packets go to every peer at the end (round-robin), the farthest peer sets the tail.
    double AllToAllNs() const
    {
        const uint32_t c = m_setup.planes;
        const double sent = SendNs((kHosts - 1) * c * SendWireBytes(m_setup, kBuffer / c / kHosts));
        return AckedNs(0, kHosts - 1, sent);
    }

    /// The permutation: S from rank r to r + n/2 (per channel S/c).
    double PermutationNs() const
    {
        const uint32_t c = m_setup.planes;
        const double sent = SendNs(c * SendWireBytes(m_setup, kBuffer / c));
        return AckedNs(0, kHosts / 2, sent);
    }

  private:
    Setup m_setup;
};

/**
 * How far above the ideal a run may finish: the share of its links the ACKs take (at most one
 * per data packet for MetaRoCE, whose receiver acknowledges lone and urgent packets at once, an
 * ACK of 64 bytes plus 2 repeats of 8, spec 5.3 and 4.2; one per 4 for RoCEv2, ackEveryPackets,
 * spec 10.4), half a percent for the NIC's and switches' scheduling, and across spines the
 * imbalance of spraying over 4 equal paths per plane, whose bound the claims suite sets at 10%
 * of the ideal for a permutation (metaroce-claims-test-suite.cc).
 */
double
Tolerance(const Setup& s)
{
    const bool metaroce = s.transport == "metaroce";
    const double ack = kIpUdpBytes + kLinkFrameBytes + (metaroce ? 64 + 2 * 8 : 20);
    const double ackShare = ack / (metaroce ? 1 : 4) / SendWireBytes(s, kMtu);
    const double spraying = s.hostsPerLeaf == kHosts ? 0 : 0.075;
    return ackShare + 0.005 + spraying;
}

class CollectiveIdealTestCase : public TestCase
{
  public:
    CollectiveIdealTestCase(Setup s, std::string workload)
        : TestCase(Name(s, workload))
        , m_setup(std::move(s))
        , m_workload(std::move(workload))
    {
    }

  private:
    static std::string Name(const Setup& s, const std::string& workload)
    {
        std::ostringstream os;
        os << "ideal time: " << workload << " on "
           << (s.hostsPerLeaf == kHosts ? "a star" : "a 2-leaf, 4-spine leaf-spine") << ", "
           << s.planes << " plane(s), " << s.transport << ", at most "
           << std::round(Tolerance(s) * 1000) / 10 << "% above the critical path";
        return os.str();
    }

    void DoRun() override
    {
        MetaRoceExperimentConfig c;
        c.hosts = kHosts;
        c.planes = m_setup.planes;
        c.hostsPerLeaf = m_setup.hostsPerLeaf;
        c.spines = m_setup.hostsPerLeaf == kHosts ? 0 : 4;
        c.transport = m_setup.transport;
        c.workload = m_workload;
        c.messageBytes = kBuffer;
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "the collective completes");
        const IdealTime ideal(m_setup);
        const double idealUs = (m_workload == "allreduce-ring" ? ideal.RingNs()
                                : m_workload == "alltoall"     ? ideal.AllToAllNs()
                                                               : ideal.PermutationNs()) /
                               1e3;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.durationUs, idealUs, "no faster than the critical path");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.durationUs,
                                    idealUs * (1 + Tolerance(m_setup)),
                                    "the run (us) against the ideal " << idealUs << " us");
        NS_LOG_INFO(GetName() << ": run " << r.durationUs << " us, ideal " << idealUs
                              << " us, ratio " << r.durationUs / idealUs);
    }

    Setup m_setup;
    std::string m_workload;
};

} // namespace

namespace ns3
{
namespace validation
{

Cases
CollectiveTestCases()
{
    Cases cases;
    for (const Setup& setup :
         {Setup{"metaroce", 1, kHosts}, Setup{"rocev2", 1, kHosts}, Setup{"metaroce", 2, 4}})
    {
        for (const char* workload : {"allreduce-ring", "alltoall", "permutation"})
        {
            cases.emplace_back(new CollectiveIdealTestCase(setup, workload),
                               MetaRoceTestDuration::QUICK);
        }
    }
    return cases;
}

} // namespace validation
} // namespace ns3
