/*
 * The fidelity cases of the claims suite (issue 16; metaroce-claims-test-suite.cc adds them):
 *
 *  - a lossless 16-host, 8-plane all-to-all retransmits nothing, ACKs ahead of data or not;
 *  - a lossless all-to-all through a 2:1 oversubscribed plane never times out (spec 4.5);
 *  - at 1% loss per path ACK repeats (spec 4.3) save the copies a lost ACK used to cost;
 *  - at 1% loss per path tail markers (spec 4.5) end the all-to-all sooner, and cost a lossless
 *    one no retransmission;
 *  - a lossless 2 MiB all-to-all copies nothing in its first round with a reorder floor of three
 *    quarters of the minimum RTT (spec 4.6, A45, A47), where one quarter copies;
 *  - EXTENSIVE: a 16-host ring all-reduce at 10% loss per link end takes four times as long
 *    for four times the data (no path closes, spec 4.5);
 *  - EXTENSIVE: at 64 hosts, a lossless 32 MiB ring all-reduce retransmits nothing, and 64 MiB per
 * rank keeps at least 92% (ring) and 90% (all-to-all) at 1% loss per path and 50% at 10%.
 */
#include "metaroce-claims-fabrics.h"

#include <map>
#include <string>
#include <utility>

using namespace ns3;
using namespace ns3::claims;

namespace
{

/// An all-to-all of `messageBytes` per rank on the fabric of `c`, at its loss (none unless
/// set), with the NIC attributes `nicAttributes` on top of the defaults.
MetaRoceExperimentResults
AllToAll(MetaRoceExperimentConfig c, const std::string& nicAttributes, uint64_t messageBytes)
{
    c.workload = "alltoall";
    c.messageBytes = messageBytes;
    c.stopTime = "3ms";
    c.nicAttributes = nicAttributes;
    return MetaRoceExperiment(c).Run();
}

/// The same of 2 MiB per rank.
MetaRoceExperimentResults
AllToAllOf2MiB(const MetaRoceExperimentConfig& c, const std::string& nicAttributes)
{
    return AllToAll(c, nicAttributes, 2 << 20);
}

/// Two lossless all-to-alls of the same fabric and size: with the NIC attributes of a rule and
/// without it (a setting that turns it off).
struct WithAndWithout
{
    MetaRoceExperimentResults with;
    MetaRoceExperimentResults without;

    bool BothFinish() const
    {
        return with.complete && without.complete;
    }
};

WithAndWithout
AllToAllsWithAndWithout(const MetaRoceExperimentConfig& c,
                        uint64_t messageBytes,
                        const std::string& with,
                        const std::string& without)
{
    return {AllToAll(c, with, messageBytes), AllToAll(c, without, messageBytes)};
}

/// The 16-host, 8-plane all-to-all of 2 MiB per rank at 1% loss per path, with the defaults
/// and `both`, and with `off` (a setting that turns a mechanism off) on top.
std::pair<MetaRoceExperimentResults, MetaRoceExperimentResults>
LossyAllToAllWithAndWithout(const std::string& both, const std::string& off)
{
    MetaRoceExperimentConfig lossy = LeafSpine(16, 8, "400Gbps", 8);
    lossy.loss = 0.0025;
    return {AllToAllOf2MiB(lossy, both),
            AllToAllOf2MiB(lossy, both.empty() ? off : both + ";" + off)};
}

class LosslessFidelityTestCase : public TestCase
{
  public:
    LosslessFidelityTestCase()
        : TestCase("fidelity: a lossless all-to-all retransmits nothing with ACKs ahead of data "
                   "(the default), and is no slower than with ACKs behind data")
    {
    }

  private:
    void DoRun() override
    {
        // ACKs wait behind the other queue pairs' data without ControlFirst (spec A38), so
        // their RTT samples come late; with ACKs of lone packets asked for at once (A48) they
        // still come early enough that the time rule copies nothing here.
        const MetaRoceExperimentConfig nonBlocking = LeafSpine(16, 8, "400Gbps", 8);
        const MetaRoceExperimentResults defaults = AllToAllOf2MiB(nonBlocking, "");
        NS_TEST_ASSERT_MSG_EQ(defaults.complete, true, "the all-to-all finishes");
        NS_TEST_EXPECT_MSG_EQ(defaults.retransmitted, 0, "retransmissions, defaults");
        const MetaRoceExperimentResults late = AllToAllOf2MiB(nonBlocking, "ControlFirst=false");
        NS_TEST_ASSERT_MSG_EQ(late.complete, true, "the all-to-all finishes, ACKs late");
        NS_TEST_EXPECT_MSG_EQ(late.retransmitted, 0, "retransmissions, ACKs late");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(defaults.durationUs,
                                    late.durationUs * 1.01,
                                    "prompt ACKs do not slow a lossless run");
    }
};

class OversubscribedTimeoutTestCase : public TestCase
{
  public:
    OversubscribedTimeoutTestCase()
        : TestCase("fidelity: a lossless all-to-all through a 2:1 oversubscribed plane never "
                   "times out, as its timers wait for the time rule or the connection's "
                   "progress")
    {
    }

  private:
    void DoRun() override
    {
        // Queues of a few hundred kB hold packets longer than the 60 us RTO floor (spec 4.5,
        // doc/results.md section 11).
        const MetaRoceExperimentConfig twoToOne = LeafSpine(32, 8, "100Gbps", 1);
        const MetaRoceExperimentResults deferred = AllToAllOf2MiB(twoToOne, "");
        NS_TEST_ASSERT_MSG_EQ(deferred.complete, true, "the all-to-all finishes");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(deferred), true, "lossless");
        NS_TEST_EXPECT_MSG_EQ(deferred.timeouts, 0, "timeouts with the timers deferred");
        NS_TEST_EXPECT_MSG_GT(deferred.rtoDeferrals, 0, "timers came due and were deferred");
    }
};

class AckRepeatTestCase : public TestCase
{
  public:
    AckRepeatTestCase()
        : TestCase("fidelity: at 1% loss per path ACK repeats cut the retransmissions by a third "
                   "and the needless copies by two thirds; without them a lost ACK cost a copy")
    {
    }

  private:
    void DoRun() override
    {
        // Measured (16 hosts, seed 1; 64 hosts in doc/results.md section 12): 121 retransmissions
        // of which 72 needless without repeats, 61 and 12 with two.
        // One copy of each retransmission: the tail's copies (spec 7.3) are needless by
        // construction and would hide what the repeats save.
        const auto [with, without] =
            LossyAllToAllWithAndWithout("TailRetransmitCopies=1", "AckRepeats=0");
        NS_TEST_ASSERT_MSG_EQ(with.complete && without.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_GT(with.ackRepeatHits, 0, "repeats stood in for lost ACKs");
        // Without repeats the hits are the waiting paths an ACK covers (spec 4.3).
        NS_TEST_EXPECT_MSG_GT(with.ackRepeatHits,
                              without.ackRepeatHits,
                              "fewer without repeats (" << without.ackRepeatHits << ")");
        NS_TEST_EXPECT_MSG_LT(with.retransmitted * 3,
                              without.retransmitted * 2,
                              "a third fewer retransmissions");
        NS_TEST_EXPECT_MSG_LT(with.SpuriousRetransmissions() * 3,
                              without.SpuriousRetransmissions(),
                              "two thirds fewer needless copies");
    }
};

class TailMarkerTestCase : public TestCase
{
  public:
    TailMarkerTestCase()
        : TestCase("fidelity: at 1% loss per path tail markers find lost tails a round trip after "
                   "they left and the all-to-all ends sooner; lossless, they cost no copy")
    {
    }

  private:
    void DoRun() override
    {
        // Measured (16 hosts, seed 1; 64 hosts in doc/results.md section 12): 46.2 us with
        // markers, 53.1 us without (seeds 2 and 3: 41.8 against 42.0, 41.0 against 44.7).
        const auto [with, without] = LossyAllToAllWithAndWithout("", "TailMarkers=false");
        NS_TEST_ASSERT_MSG_EQ(with.complete && without.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_GT(with.tailMarkers, 0, "markers behind the tails");
        NS_TEST_EXPECT_MSG_EQ(without.tailMarkers, 0, "none when off");
        NS_TEST_EXPECT_MSG_LT(with.durationUs * 1.1, without.durationUs, "10% sooner done");
        const MetaRoceExperimentResults clean = AllToAllOf2MiB(LeafSpine(16, 8, "400Gbps", 8), "");
        NS_TEST_EXPECT_MSG_EQ(clean.retransmitted, 0, "no copy on a lossless fabric");
        NS_TEST_EXPECT_MSG_GT(clean.tailMarkers, 0, "though markers went");
    }
};

class TailRecoveryTestCase : public TestCase
{
  public:
    TailRecoveryTestCase()
        : TestCase("fidelity: at 1% loss per path copies of a tail's retransmission and "
                   "recovery ahead of new data end the all-to-all sooner; lossless, recovery at "
                   "the tail copies nothing")
    {
    }

  private:
    void DoRun() override
    {
        // Without copies of a tail's retransmission and with recovery in turn, a lost
        // retransmission at the tail costs a second recovery (64 hosts in doc/results.md
        // section 12). Measured (16 hosts, seed 1): 37.5 us against 38.2.
        const std::string without = "TailRetransmitCopies=1;RecoveryFirst=false";
        const auto [with, plain] = LossyAllToAllWithAndWithout("", without);
        NS_TEST_ASSERT_MSG_EQ(with.complete && plain.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_LT(with.durationUs, plain.durationUs, "sooner done");
        const MetaRoceExperimentResults clean = AllToAllOf2MiB(LeafSpine(16, 8, "400Gbps", 8), "");
        NS_TEST_EXPECT_MSG_EQ(clean.retransmitted, 0, "no copy on a lossless fabric");
    }
};

class CompactAckTestCase : public TestCase
{
  public:
    CompactAckTestCase()
        : TestCase("fidelity: a lossless all-to-all's ACKs leave their empty SACK out, so the "
                   "hosts put fewer bytes on the wire for the same packets and schedule")
    {
    }

  private:
    void DoRun() override
    {
        // Measured (16 hosts, seed 1; 64 hosts and 64 MiB in doc/results.md section 13): the
        // hosts' bytes over the payload 1.054 with compact ACKs, 1.065 with full ones; 72,928
        // and 72,922 packet-hops (timing moves a marker or two); 29.5 and 29.6 us. With 32
        // recycled paths per plane (A13, A52) 71,966 and 71,844 packet-hops: a connection has
        // more paths whose tails get a marker, and timing moves a few more of them.
        const MetaRoceExperimentConfig fabric = LeafSpine(16, 8, "400Gbps", 8);
        const MetaRoceExperimentResults compact = AllToAllOf2MiB(fabric, "");
        const MetaRoceExperimentResults full = AllToAllOf2MiB(fabric, "CompactAcks=false");
        NS_TEST_ASSERT_MSG_EQ(compact.complete && full.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_LT(double(compact.packetHops), full.packetHops * 1.003, "same packets");
        NS_TEST_EXPECT_MSG_GT(compact.HostWireBytes(), compact.bytesDelivered, "headers count");
        const double compactRatio = double(compact.HostWireBytes()) / compact.bytesDelivered;
        const double fullRatio = double(full.HostWireBytes()) / full.bytesDelivered;
        NS_TEST_EXPECT_MSG_LT(compactRatio + 0.005, fullRatio, "fewer bytes per payload byte");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(compact.durationUs, full.durationUs * 1.01, "no slower");
    }
};

class SprayBurstTestCase : public TestCase
{
  public:
    SprayBurstTestCase()
        : TestCase("fidelity: with bursts of two packets on one path (SprayBurstPackets=2) a "
                   "lossless all-to-all gets one ACK per burst: a fifth fewer packet-hops and "
                   "fewer bytes on the wire, in the same time, no copies on one plane and a few "
                   "at most on 8, since bursts wait for timed paths")
    {
    }

  private:
    void DoRun() override
    {
        // Measured (16 hosts, one plane, 4 MiB, one channel; 64 hosts and 8 planes in
        // doc/results.md at 939551b, sections 18 and 22), bursts on timed paths only: 90,192
        // against 115,392 packet-hops, the hosts' bytes over the payload 1.031 against 1.039, 340.6
        // against 337.6 us, no copies (bursts from a path's first packet: 86,906 hops and 2
        // copies).
        MetaRoceExperimentConfig fabric = LeafSpine(16, 4, "100Gbps", 1);
        fabric.channels = 1;
        const MetaRoceExperimentResults pairs = AllToAll(fabric, "SprayBurstPackets=2", 4 << 20);
        const MetaRoceExperimentResults single = AllToAll(fabric, "", 4 << 20);
        NS_TEST_ASSERT_MSG_EQ(pairs.complete && single.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(pairs), true, "lossless");
        NS_TEST_EXPECT_MSG_LT(double(pairs.packetHops), single.packetHops * 0.8, "fewer ACKs");
        const double pairsRatio = double(pairs.HostWireBytes()) / pairs.bytesDelivered;
        const double singleRatio = double(single.HostWireBytes()) / single.bytesDelivered;
        NS_TEST_EXPECT_MSG_LT(pairsRatio + 0.005, singleRatio, "fewer bytes per payload byte");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(pairs.durationUs, single.durationUs * 1.01, "no slower");
        NS_TEST_EXPECT_MSG_EQ(pairs.retransmitted, 0, "no copies: bursts wait for timed paths");
        // Eight non-blocking planes, 16 MiB (65,536 packets): bursts on untimed paths copied 3-10
        // packets of the collective's first round (doc/results.md at 939551b, sections 19-21); on
        // timed paths a few or none by seed, out of 65,536 packets (seeds 1-3: 8, 1 and 0 with
        // bursts, 0, 0 and 2 without; with the plane's ACK count over its paths, spec 4.2, a
        // burst's second packet no longer decides its ACK alone).
        MetaRoceExperimentConfig planes = LeafSpine(16, 4, "100Gbps", 8);
        planes.channels = 1;
        const MetaRoceExperimentResults eight = AllToAll(planes, "SprayBurstPackets=2", 16 << 20);
        NS_TEST_ASSERT_MSG_EQ(eight.complete && NoFabricDrop(eight), true, "8 planes: lossless");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(eight.retransmitted, 10, "8 planes: a few copies at most");
    }
};

/// A lossless all-to-all on 16 hosts (4 per leaf, 100 Gb/s, 8 non-blocking planes, one channel:
/// many paths, one connection's view of them) that a rule keeps from copying anything.
class LosslessCopiesTestCase : public TestCase
{
  protected:
    using TestCase::TestCase;

    /// With the NIC attributes `rule` the all-to-all of `bytes` per rank retransmits at most
    /// `copiesWith` packets and is no slower than with `without`, which copies more than
    /// `copiesWithout`.
    void Check(uint64_t bytes,
               const std::string& rule,
               const std::string& without,
               int copiesWith,
               int copiesWithout)
    {
        MetaRoceExperimentConfig c = LeafSpine(16, 4, "100Gbps", 8);
        c.channels = 1;
        // Measured with 8 paths per plane of 4 packets each,
        // round-robin (A13, A15, A52). With 32 recycled paths per plane of one packet a
        // connection has fewer samples per path, and the 8 MiB run with the path-RTT rule and one
        // floor copies 4 packets.
        const std::string shape = "FlowsPerPort=8;InitialFlowWindow=4;EntropyRecycling=false;";
        const WithAndWithout r = AllToAllsWithAndWithout(c, bytes, shape + rule, shape + without);
        NS_TEST_ASSERT_MSG_EQ(r.BothFinish(), true, "both finish");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(r.with), true, "lossless");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.with.retransmitted,
                                    copiesWith,
                                    "retransmissions with " + rule);
        NS_TEST_EXPECT_MSG_GT(r.without.SpuriousRetransmissions(), copiesWithout, "copies without");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.with.durationUs, r.without.durationUs * 1.01, "no slower");
    }
};

class LossEvidenceFloorTestCase : public LosslessCopiesTestCase
{
  public:
    LossEvidenceFloorTestCase()
        : LosslessCopiesTestCase("fidelity: a lossless 2 MiB all-to-all on non-blocking planes "
                                 "retransmits nothing, as no NIC has proven a loss and the "
                                 "reorder floor stays at three quarters of the minimum RTT; with "
                                 "one quarter whatever the evidence it copies first-round "
                                 "packets")
    {
    }

  private:
    void DoRun() override
    {
        // In the first round no ACK has yet shown how much deeper one plane's queue runs than
        // another's, so only the floor stands between a late packet and a copy (spec 4.6, A45,
        // A47; doc/results.md at 939551b, sections 17 and 19). Measured: 0 copies by default, 2
        // with one quarter throughout.
        Check(2 << 20, "", "QuietReorderFloorRttQuarters=1", 0, 0);
    }
};

class SpuriousWindowTestCase : public TestCase
{
  public:
    SpuriousWindowTestCase()
        : TestCase("fidelity: a lossless all-to-all through a 2:1 oversubscribed plane copies a "
                   "sixth as many packets or fewer once its NICs widen the time rule's window "
                   "after a needless copy; with the window as measured it copied 388")
    {
    }

  private:
    void DoRun() override
    {
        // Standing queues of uneven depth make some routes return their packets later than
        // the measured window allows; a needless copy anywhere on the NIC, and no proven loss,
        // is the evidence (spec 4.6, A49; doc/results.md at 939551b, section 21). Measured (32
        // hosts, one plane, 2 MiB): 36 copies in 296.4 us against 685 in 299.2 us, with the
        // spraying of the time, 8 paths per plane of 4 packets each, round-robin (A13, A15, A52).
        // With 32 recycled paths per plane of one packet: 32 copies against 181. Both with the
        // connections made in rank order, every rank sending to rank 0 first; nearest on the ring
        // first (the collective helper's order), 8 paths of 4: 45 copies against 388.
        const MetaRoceExperimentConfig twoToOne = LeafSpine(32, 8, "100Gbps", 1);
        const std::string shape = "FlowsPerPort=8;InitialFlowWindow=4;EntropyRecycling=false";
        const WithAndWithout r = AllToAllsWithAndWithout(twoToOne,
                                                         2 << 20,
                                                         shape,
                                                         shape + ";SpuriousWindowSrttHalves=0");
        NS_TEST_ASSERT_MSG_EQ(r.BothFinish(), true, "both finish");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(r.with), true, "lossless");
        NS_TEST_EXPECT_MSG_GT(r.without.SpuriousRetransmissions(), 300, "copies without");
        NS_TEST_EXPECT_MSG_LT(r.with.SpuriousRetransmissions() * 6,
                              r.without.SpuriousRetransmissions(),
                              "a sixth as many copies with");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.with.durationUs, r.without.durationUs, "and no slower");
    }
};

class ConnectionRtoFloorTestCase : public TestCase
{
  public:
    ConnectionRtoFloorTestCase()
        : TestCase("fidelity: a lossless all-to-all of 64 hosts on one 2:1 oversubscribed plane "
                   "never times out, as a path's due RTO waits for the connection's")
    {
    }

  private:
    void DoRun() override
    {
        // A path's samples lag a queue that grows; every ACK of the connection samples it
        // (spec 4.5, A50; doc/results.md at 939551b, section 21), with 8 paths per plane of 4
        // packets each, round-robin (A13, A15, A52): the shape whose paths' samples are sparsest.
        const MetaRoceExperimentConfig onePlane = LeafSpine(64, 8, "100Gbps", 1);
        const std::string shape = "FlowsPerPort=8;InitialFlowWindow=4;EntropyRecycling=false";
        const MetaRoceExperimentResults r = AllToAll(onePlane, shape, 2 << 20);
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "the all-to-all finishes");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(r), true, "lossless");
        NS_TEST_EXPECT_MSG_EQ(r.timeouts, 0, "timeouts with the connection's RTO");
    }
};

class SpuriousWindowFullScaleTestCase : public TestCase
{
  public:
    SpuriousWindowFullScaleTestCase()
        : TestCase("fidelity at 64 hosts: a lossless 16 MiB all-to-all through 2:1 "
                   "oversubscribed planes copies next to nothing and never times out; with the "
                   "window as measured after copies it copies over a thousand packets")
    {
    }

  private:
    void DoRun() override
    {
        // Of 262,144 data packets (seed 1, one channel per plane), with the window widened
        // after copies: next to none; as measured: 3,613 copies (7,042 before the connection's
        // RTO bounded the flows' timers; doc/results.md at 939551b, section 21).
        const MetaRoceExperimentConfig twoToOne = LeafSpine(64, 8, "100Gbps", 8);
        const WithAndWithout r =
            AllToAllsWithAndWithout(twoToOne, 16 << 20, "", "SpuriousWindowSrttHalves=0");
        NS_TEST_ASSERT_MSG_EQ(r.BothFinish(), true, "both finish");
        NS_TEST_EXPECT_MSG_EQ(NoFabricDrop(r.with), true, "lossless");
        NS_TEST_EXPECT_MSG_EQ(r.with.timeouts, 0, "timeouts");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.with.retransmitted, 100, "copies with the window");
        NS_TEST_EXPECT_MSG_GT(r.without.SpuriousRetransmissions(), 1000, "copies without");
        NS_TEST_EXPECT_MSG_LT(r.with.durationUs, r.without.durationUs, "and sooner done");
    }
};

class SustainedLossTestCase : public TestCase
{
  public:
    SustainedLossTestCase()
        : TestCase("fidelity: at a third of all packets lost, a ring all-reduce four times the "
                   "size takes about four times as long: no path closes along the way")
    {
    }

  private:
    /// A 16-host, 8-plane ring all-reduce of `bytes` per rank at 10% loss per link end.
    static MetaRoceExperimentResults Ring(uint64_t bytes)
    {
        MetaRoceExperimentConfig c = LeafSpine(16, 8, "400Gbps", 8);
        c.workload = "allreduce-ring";
        c.messageBytes = bytes;
        c.loss = 0.1;
        c.stopTime = "50ms";
        return MetaRoceExperiment(c).Run();
    }

    void DoRun() override
    {
        // Lost tail markers used to hold their paths' floors for good once the paths had
        // re-drawn their routes (spec 4.5), so paths closed one by one and a long run slowed
        // as it went: 1265.4 and 6667.6 us for 16 and 64 MiB (5.3x); 1268.2 and 4954.0 (3.9x)
        // since lost markers are given up.
        const MetaRoceExperimentResults small = Ring(16 << 20);
        const MetaRoceExperimentResults large = Ring(64 << 20);
        NS_TEST_ASSERT_MSG_EQ(small.complete && large.complete, true, "both finish");
        NS_TEST_EXPECT_MSG_LT(large.durationUs, 4.4 * small.durationUs, "time linear in size");
    }
};

class FidelityFullScaleTestCase : public TestCase
{
  public:
    FidelityFullScaleTestCase()
        : TestCase("fidelity at 64 hosts: no copy on a lossless all-to-all with the plane time "
                   "rule or on a lossless 32 MiB ring all-reduce; the 2 MiB all-to-all keeps "
                   ">= 75% at 1% loss per path; 64 MiB collectives keep >= 92% (ring) and 90% at "
                   "1% loss per path, >= 50% at 10%")
    {
    }

  private:
    /// Bus bandwidth kept at `lossPerLinkEnd` against the lossless run, 64 MiB per rank.
    double Kept(const std::string& workload, double lossPerLinkEnd, double lossless)
    {
        MetaRoceExperimentConfig c = SixtyFourHosts(8);
        c.workload = workload;
        c.messageBytes = uint64_t{64} << 20;
        c.stopTime = "100ms";
        c.loss = lossPerLinkEnd;
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        return r.complete ? r.collective.busBwGBps / lossless : 0.0;
    }

    void DoRun() override
    {
        // Published (doc/results.md at 939551b, section 11): no copy in seeds 1-3; 47 and 37 in
        // seeds 1 and 2 while tail markers asked for an ACK at once, one too many behind each
        // tail's own (spec 4.5).
        MetaRoceExperimentConfig ring = SixtyFourHosts(8);
        ring.workload = "allreduce-ring";
        ring.messageBytes = 32 << 20;
        const MetaRoceExperimentResults steady = MetaRoceExperiment(ring).Run();
        NS_TEST_ASSERT_MSG_EQ(steady.complete, true, "the ring all-reduce finishes");
        NS_TEST_EXPECT_MSG_EQ(steady.retransmitted, 0, "retransmissions, lossless 32 MiB ring");

        // Published (doc/results.md at 939551b, sections 13, 14): 79.3% over seeds 1-8, 78.0% over
        // seeds 1-3 (a seed alone spreads 74-81%, so three are judged together); 69.7% before
        // recovery at the tail, 43% when issue 16 was filed.
        MetaRoceExperimentConfig a2a = SixtyFourHosts(8);
        a2a.workload = "alltoall";
        a2a.messageBytes = 2 << 20;
        double cleanUs = 0;
        double lossyUs = 0;
        for (uint32_t seed = 1; seed <= 3; ++seed)
        {
            a2a.seed = seed;
            a2a.loss = 0;
            const MetaRoceExperimentResults clean = MetaRoceExperiment(a2a).Run();
            a2a.loss = 0.0025;
            const MetaRoceExperimentResults lossy = MetaRoceExperiment(a2a).Run();
            NS_TEST_ASSERT_MSG_EQ(clean.complete && lossy.complete, true, "the all-to-alls finish");
            // Published (doc/results.md at 939551b, section 19): no copy in seeds 1-8 since the
            // floor follows the evidence (A47); 0-6 per seed before.
            NS_TEST_EXPECT_MSG_EQ(clean.retransmitted, 0, "retransmissions, lossless 2 MiB");
            cleanUs += clean.durationUs;
            lossyUs += lossy.durationUs;
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(cleanUs / lossyUs,
                                    0.75,
                                    "2 MiB all-to-all kept at 1% loss per path, seeds 1-3");

        // Published (doc/results.md at 939551b, section 6): ring 97.9% and 75.6%, all-to-all 95.6%
        // and 81.7% at 1% and 10% per path (0.25% and 2.6% per link end).
        const std::map<std::string, std::pair<double, double>> targets = {
            {"allreduce-ring", {0.92, 0.50}},
            {"alltoall", {0.90, 0.50}}};
        for (const auto& [workload, target] : targets)
        {
            MetaRoceExperimentConfig c = SixtyFourHosts(8);
            c.workload = workload;
            c.messageBytes = uint64_t{64} << 20;
            c.stopTime = "100ms";
            const double lossless = MetaRoceExperiment(c).Run().collective.busBwGBps;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(Kept(workload, 0.0025, lossless),
                                        target.first,
                                        workload << " at 1% loss per path");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(Kept(workload, 0.026, lossless),
                                        target.second,
                                        workload << " at 10% loss per path");
        }
    }
};

} // namespace

std::vector<std::pair<TestCase*, MetaRoceTestDuration>>
ns3::claims::FidelityTestCases()
{
    return {{new LosslessFidelityTestCase, MetaRoceTestDuration::QUICK},
            {new OversubscribedTimeoutTestCase, MetaRoceTestDuration::QUICK},
            {new AckRepeatTestCase, MetaRoceTestDuration::QUICK},
            {new TailMarkerTestCase, MetaRoceTestDuration::QUICK},
            {new TailRecoveryTestCase, MetaRoceTestDuration::QUICK},
            {new CompactAckTestCase, MetaRoceTestDuration::QUICK},
            {new SprayBurstTestCase, MetaRoceTestDuration::QUICK},
            {new LossEvidenceFloorTestCase, MetaRoceTestDuration::QUICK},
            {new SpuriousWindowTestCase, MetaRoceTestDuration::QUICK},
            {new ConnectionRtoFloorTestCase, MetaRoceTestDuration::QUICK},
            {new SpuriousWindowFullScaleTestCase, MetaRoceTestDuration::EXTENSIVE},
            {new SustainedLossTestCase, MetaRoceTestDuration::EXTENSIVE},
            {new FidelityFullScaleTestCase, MetaRoceTestDuration::EXTENSIVE}};
}
