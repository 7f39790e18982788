/*
 * What the validation suite's files share (issue 59, doc/validation.md): the cases each file
 * adds, and the first principles more than one check computes with - the bytes a packet puts
 * on the wire, its serialisation time at the simulator's resolution, Jain's index.
 *
 * Every expected value in the suite is computed here or in the check itself from the packet
 * layouts of doc/spec.md, the link rates and delays a test sets, and the algorithms' published
 * equations; none is a number copied from a run.
 */
#ifndef METAROCE_VALIDATION_H
#define METAROCE_VALIDATION_H

#include "ns3/metaroce-ns3-compat.h"
#include "ns3/nstime.h"
#include "ns3/test.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{
namespace validation
{

/// The cases of one file of the suite, each with its duration.
using Cases = std::vector<std::pair<TestCase*, MetaRoceTestDuration>>;

Cases TimingTestCases();     ///< metaroce-validation-test-suite.cc: hop latency
Cases EcmpPfcTestCases();    ///< metaroce-validation-fabric.cc: ECMP spreading, PFC incast
Cases DcqcnTestCases();      ///< metaroce-validation-dcqcn.cc: DCQCN against its fluid model
Cases CollectiveTestCases(); ///< metaroce-validation-collectives.cc: ideal collective times

/// IPv4 (20 bytes, no options) and UDP (8 bytes) in front of every transport header.
constexpr uint32_t kIpUdpBytes = 20 + 8;
/// The point-to-point frame header the links serialise with every IPv4 packet (ns-3's PPP
/// header, 2 bytes, as the stock PointToPointNetDevice; MetaRoceNetDevice counts it).
constexpr uint32_t kLinkFrameBytes = 2;

/**
 * IPv4 bytes of a RoCEv2 packet carrying `payload` bytes (doc/spec.md 10.2): BTH 12, RETH 16 on
 * a WRITE FIRST or ONLY (`reth`), the payload padded to a multiple of 4, ICRC 4.
 */
inline uint32_t
RoceV2PacketBytes(uint32_t payload, bool reth)
{
    const uint32_t padded = (payload + 3) / 4 * 4;
    return kIpUdpBytes + 12 + (reth ? 16 : 0) + padded + 4;
}

/// IPv4 bytes of a MetaRoCE WRITE packet carrying `payload` bytes (doc/spec.md 5.1, 5.2: the
/// WRITE header is 64 bytes, no trailer).
inline uint32_t
MetaRoceWritePacketBytes(uint32_t payload)
{
    return kIpUdpBytes + 64 + payload;
}

/**
 * The time a link of `rateBps` takes to serialise `wireBytes`, at the simulator's 1 ns
 * resolution: ns-3's DataRate computes bits / rate exactly (int64x64) and Time rounds it to the
 * nearest step, halves up. Integer arithmetic here, so nothing of the model's is reused.
 */
inline int64_t
SerialisationNs(uint64_t wireBytes, uint64_t rateBps)
{
    const uint64_t bitNs = wireBytes * 8 * 1000000000ULL; // bits x 10^9, exact below 2^64
    return static_cast<int64_t>((2 * bitNs + rateBps) / (2 * rateBps));
}

/// Jain's fairness index of `x` (1 when all equal, 1/n when one takes everything).
inline double
JainIndex(const std::vector<double>& x)
{
    double sum = 0;
    double squares = 0;
    for (double v : x)
    {
        sum += v;
        squares += v * v;
    }
    return squares > 0 ? sum * sum / (static_cast<double>(x.size()) * squares) : 0.0;
}

} // namespace validation
} // namespace ns3

#endif // METAROCE_VALIDATION_H
