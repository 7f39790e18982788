#include "metaroce-config.h"

#include "metaroce-wire.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

/// Longest duration any timer of the model accepts: 1000 s.
constexpr double kMaxNs = 1e12;
/// Largest window in bytes: 1 TiB.
constexpr double kMaxWindowBytes = 1099511627776.0;

void
Require(bool ok, const char* field, const std::string& why)
{
    if (!ok)
    {
        throw std::invalid_argument(std::string("MetaRoceConfig.") + field + ": " + why);
    }
}

} // namespace

namespace
{

// One table row per field reads better than one argument per line.
// clang-format off

/// The shape of a connection (spec 6.1, 7.1, 8.2) and its sender's windows and pacing (7).
ConfigFields<MetaRoceConfig>
SenderFields()
{
    using C = MetaRoceConfig;
    return {
        METAROCE_FIELD(C, flowsPerPort, "FlowsPerPort", Count, 1, 1024, "6.1",
                       "Logical flows per plane, each with its own FSN sequence and entropy."),
        METAROCE_FIELD(C, entropyRecycling, "EntropyRecycling", Flag, 0, 1, "6.2",
                       "true: spray first over the flows whose packets came back without a "
                       "CE mark, one packet per packet acknowledged clean, then round-robin; "
                       "false: round-robin over all flows. True steers traffic off marked routes "
                       "and spreads it less evenly over the rest."),
        METAROCE_FIELD(C, sprayBurstPackets, "SprayBurstPackets", Count, 1, kSackBits, "6.2",
                       "Packets a connection sends back to back on one flow of a plane (the NIC "
                       "pulls the port again while the burst goes on) before spraying on: a "
                       "burst of ackEveryPackets comes back in one ACK. A burst starts only on "
                       "a flow with an RTT sample (one packet at a time until then). Longer "
                       "bursts mean fewer ACKs and less per-packet work, and a spray over fewer "
                       "routes at a time, so more queueing on each (1: spray every packet)."),
        METAROCE_FIELD(C, streams, "Streams", Count, 1, 65535, "8.2",
                       "Ordered streams multiplexed on one connection."),
        METAROCE_FIELD(C, mtu, "Mtu", Bytes, 256, 9000, "2.3",
                       "Payload bytes per data packet (RoCEv2 also needs 256, 512, 1024, 2048 or "
                       "4096)."),
        METAROCE_FIELD(C, initialFlowWindowPackets, "InitialFlowWindow", Count, 1, kSackBits, "9.1",
                       "Starting window of a flow, in packets."),
        METAROCE_FIELD(C, maxFlowWindowPackets, "MaxFlowWindow", Count, 1, kSackBits, "9.1",
                       "Largest flow window, in packets: the 256-bit SACK bitvector bounds it."),
        METAROCE_FIELD(C, initialConnectionWindowBytes, "InitialConnectionWindow", Bytes,
                       1, kMaxWindowBytes, "9.1",
                       "Starting window of the connection."),
        METAROCE_FIELD(C, maxConnectionWindowBytes, "MaxConnectionWindow", Bytes,
                       1, kMaxWindowBytes, "9.1",
                       "Largest connection window."),
        METAROCE_FIELD(C, honourRateHint, "HonourRateHint", Flag, 0, 1, "9.4",
                       "Pace the sender at the receiver's fair-share rate hint."),
        METAROCE_FIELD(C, nicInjectionControl, "NicInjectionControl", Flag, 0, 1, "9.7",
                       "The NIC sends DATA at a share of its line rate that DCTCP's control law "
                       "sets from the CE marks of all its connections' ACKs together, once per "
                       "NIC round trip: for wide collectives, whose connections send too few "
                       "packets for their windows to bind. Marks on one connection (an incast) "
                       "slow all the NIC's connections."),
        METAROCE_FIELD(C, unscheduledBytes, "UnscheduledBytes", Bytes, 0, kMaxWindowBytes, "9.1",
                       "Bytes a connection may have in flight before its first ACK, the "
                       "unscheduled window of receiver admission (0: no limit but the windows)."),
    };
}

/// The sender's loss detection (spec 4.6).
ConfigFields<MetaRoceConfig>
LossDetectionFields()
{
    using C = MetaRoceConfig;
    return {
        METAROCE_FIELD(C, reorderTolerancePackets, "ReorderTolerance", Count,
                       0, kSackBits - 1, "4.6",
                       "SACK gap, in packets, that counts as loss (0: any gap, per-flow order)."),
        METAROCE_FIELD(C, reorderFloorRttQuarters, "ReorderFloorRttQuarters", Count, 0, 64, "4.6",
                       "Floor of the time rule's reorder window beyond the ACK delay, in quarters "
                       "of the minimum RTT (RFC 8985's reo_wnd_mult), while a connection of the "
                       "NIC has proven a loss within LossMemory: more tells a packet deep in a "
                       "first-round queue from a lost one, and finds every loss that much later."),
        METAROCE_FIELD(C, quietReorderFloorRttQuarters, "QuietReorderFloorRttQuarters", Count,
                       0, 64, "4.6",
                       "The same floor while no connection of the NIC has proven a loss (a later "
                       "packet of the same route acknowledged) within LossMemory. Above "
                       "ReorderFloorRttQuarters, a late packet on a fabric that drops nothing is "
                       "not copied needlessly, and a first loss is found that much later; equal "
                       "to it, one floor always."),
        METAROCE_FIELD(C, lossMemoryNs, "LossMemory", Nanoseconds, 0, kMaxNs, "4.6",
                       "How long a loss proven by any connection of the NIC keeps its connections "
                       "on ReorderFloorRttQuarters, and keeps SpuriousWindowSrttHalves off "
                       "(0: never). Longer finds the losses of a lossy fabric sooner for longer, "
                       "and copies more late packets after a rare loss."),
        METAROCE_FIELD(C, spuriousWindowSrttHalves, "SpuriousWindowSrttHalves", Count, 0, 16,
                       "4.6",
                       "While a connection of the NIC has found a loss of the time rule spurious "
                       "and none has proven a loss within LossMemory, the time rule's reorder "
                       "window is at least this many halves of the smoothed RTT (0: never). More "
                       "spares needless copies of packets on routes through standing queues "
                       "(oversubscribed fabrics), and finds a real loss there that much later."),
        METAROCE_FIELD(C, judgeByNicRtt, "JudgeByNicRtt", Flag, 0, 1, "4.5",
                       "While no connection of the NIC has proven a loss within LossMemory, a "
                       "connection judges late packets (the time rule's window, the tail-loss "
                       "probe's wait, the RTO's floor) by the NIC's RTT estimate, from every "
                       "connection's ACKs, where it is longer than its own: a connection that "
                       "hears from its peer rarely (a wide all-to-all) has a stale one."),
    };
}

/// The sender's loss recovery and flow management (spec 4.5, 4.6, 6.3, 6.4, 7).
ConfigFields<MetaRoceConfig>
RecoveryFields()
{
    using C = MetaRoceConfig;
    return {
        METAROCE_FIELD(C, rtoMinNs, "RtoMin", Nanoseconds, 1, kMaxNs, "4.5",
                       "Floor of the per-flow retransmission timeout (srtt + 4 rttvar)."),
        METAROCE_FIELD(C, rtoMaxNs, "RtoMax", Nanoseconds, 1, kMaxNs, "4.5",
                       "Ceiling of the per-flow retransmission timeout, backoff included."),
        METAROCE_FIELD(C, initialRttNs, "InitialRtt", Nanoseconds, 1, kMaxNs, "4.5",
                       "RTT assumed before the first sample."),
        METAROCE_FIELD(C, initialRtoNs, "InitialRto", Nanoseconds, 1, kMaxNs, "4.5",
                       "Retransmission timeout of a flow before its first RTT sample."),
        METAROCE_FIELD(C, maxRetransmissions, "MaxRetransmissions", Count, 1, 1000, "7.4",
                       "Transmissions of one packet beyond its first before the connection fails, "
                       "once its message's first loss is RtoMax old."),
        METAROCE_FIELD(C, retransmitCopies, "RetransmitCopies", Count, 1, 4, "7.3",
                       "Copies sent of each retransmission, each on the flow the next pull "
                       "picks: a lost retransmission then rarely costs a second recovery."),
        METAROCE_FIELD(C, retransmitOtherPlane, "RetransmitOtherPlane", Flag, 0, 1, "7.3",
                       "true: a retransmission of a packet lost more than once leaves the plane "
                       "of its last loss to the connection's other planes while one of them is "
                       "up; false: the next pull of any port takes it. True keeps retransmissions "
                       "off a plane whose link is dead; false sends each one sooner, on whichever "
                       "plane is free first, and lets a failing plane's flows time out until "
                       "they are taken down."),
        METAROCE_FIELD(C, tailRetransmitCopies, "TailRetransmitCopies", Count, 1, 4, "7.3",
                       "Copies sent of a retransmission (at least RetransmitCopies) when the "
                       "connection has no new data left to send: a lost retransmission is then a "
                       "tail, and the collective waits for its second recovery."),
        METAROCE_FIELD(C, flowSuspectTimeouts, "FlowSuspectTimeouts", Count, 1, 1e6, "6.3",
                       "Consecutive timeouts before a flow is suspect."),
        METAROCE_FIELD(C, flowDownTimeouts, "FlowDownTimeouts", Count, 1, 1e6, "6.3",
                       "Consecutive timeouts before a flow is taken down."),
        METAROCE_FIELD(C, tailProbeMinNs, "TailProbeMin", Nanoseconds, 1, kMaxNs, "4.5",
                       "Floor of the tail-loss probe wait (max(rack.rtt + reorder window, srtt + 4 rttvar, "
                       "this); without srtt + 4 rttvar while a loss proven on the NIC is recent)."),
        METAROCE_FIELD(C, maxTailProbes, "MaxTailProbes", Count, 0, 64, "4.5",
                       "Tail-loss probes without progress: the first two one probe wait apart, "
                       "each further one twice the wait of the one before; 0: none."),
        METAROCE_FIELD(C, tailMarkers, "TailMarkers", Flag, 0, 1, "4.5",
                       "Send a small PROBE in the data class right behind every DATA packet after "
                       "which nothing is left to send, on its flow, and on every other flow whose "
                       "newest packet is DATA still in flight: the PROBE's ACK exposes that "
                       "packet's loss one round trip after it left; repeated once when the tail's ACK "
                       "is overdue by the time rule's wait. Costs a PROBE per flow of a "
                       "connection's tail on the wire; without it a lost tail waits for the "
                       "tail-loss probe."),
        METAROCE_FIELD(C, probeIntervalNs, "ProbeInterval", Nanoseconds, 1, kMaxNs, "6.3",
                       "How often a down flow is probed."),
        METAROCE_FIELD(C, entropyRedrawMarks, "EntropyRedrawMarks", Count, 1, 1e6, "6.4",
                       "Consecutive ACK rounds echoing CE that move a flow to new entropy."),
        METAROCE_FIELD(C, entropyBase, "EntropyBase", Count, 1, 65535, "6.1",
                       "Lowest UDP source port drawn as flow entropy."),
        METAROCE_FIELD(C, entropyCount, "EntropyCount", Count, 1, 65535, "6.1",
                       "Number of UDP source ports entropy is drawn from, from EntropyBase on."),
    };
}

/// The receiver's tunables (spec 8).
ConfigFields<MetaRoceConfig>
ReceiverFields()
{
    using C = MetaRoceConfig;
    return {
        METAROCE_FIELD(C, ackEveryPackets, "AckEveryPackets", Count, 1, kSackBits, "4.2",
                       "Packets of one plane, over all its flows, that one ACK acknowledges: "
                       "the ACK leaves when this many wait (1: an ACK per packet)."),
        METAROCE_FIELD(C, ackDelayNs, "AckDelay", Nanoseconds, 1, kMaxNs, "4.2",
                       "Longest a packet waits for its ACK while fewer than AckEveryPackets "
                       "of its plane wait."),
        METAROCE_FIELD(C, ackRepeats, "AckRepeats", Count, 0, kMrMaxAckRepeats, "4.3",
                       "Latest ACKs of the connection's other flows that every ACK repeats "
                       "(8 bytes each) beyond the flows it covers: a lost ACK then costs "
                       "nothing while a later one arrives."),
        METAROCE_FIELD(C, compactAcks, "CompactAcks", Flag, 0, 1, "5.3",
                       "true: an ACK whose SACK is empty leaves it out (flag NOSACK, 32 bytes "
                       "instead of 64 before the repeats); false: every ACK carries the 256-bit "
                       "SACK, the one ACK form a receiver that does not read NOSACK accepts. "
                       "True spends fewer bytes on the wire per ACK."),
        METAROCE_FIELD(C, mcrc, "Mcrc", Flag, 0, 1, "4.1",
                       "Carry the mCRC, a 4-byte CRC-32C trailer over header and payload, on "
                       "every packet, and refuse a received packet whose trailer is wrong or "
                       "that the link corrupted (drop reason bad-crc). Both ends must agree."),
        METAROCE_FIELD(C, maxMessagesInFlight, "MaxMessagesInFlight", Count, 1, 1 << 30, "3.4",
                       "Receive window of a stream, in messages."),
        METAROCE_FIELD(C, completionOrder, "CompletionOrder", Count, 0, 1, "3.3",
                       "When this end's completions are released: 0, per stream in posting "
                       "order; 1, each message as soon as it finishes (all its packets "
                       "acknowledged, or placed for a RECV), whatever earlier messages of its "
                       "stream are doing. With 1 a SEND may not follow an unfinished WRITE of "
                       "its stream: PostSend refuses it."),
    };
}

// clang-format on

} // namespace

const ConfigFields<MetaRoceConfig>&
MetaRoceConfigFields()
{
    static const ConfigFields<MetaRoceConfig> fields = [] {
        ConfigFields<MetaRoceConfig> all = SenderFields();
        for (const ConfigFields<MetaRoceConfig>& more :
             {LossDetectionFields(), RecoveryFields(), ReceiverFields()})
        {
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }();
    return fields;
}

void
MetaRoceConfig::Validate() const
{
    Require(ports >= 1 && ports <= kMaxPorts,
            "ports",
            "must be in [1, " + std::to_string(kMaxPorts) + "]");
    Require(portRateBps >= 1'000'000, "portRateBps", "must be at least 1 Mb/s");
    ValidateFields(*this, MetaRoceConfigFields(), "MetaRoceConfig");
    aimd.Validate("MetaRoceConfig.aimd");
    Require(uint32_t{ports} * flowsPerPort <= 65535,
            "flowsPerPort",
            "ports * flowsPerPort must fit the 16-bit flow id");
    Require(initialFlowWindowPackets <= maxFlowWindowPackets,
            "initialFlowWindowPackets",
            "must be in [1, maxFlowWindowPackets]");
    // The connection window never goes below one full packet per port (spec 9.1).
    const uint64_t minWindow = uint64_t{ports} * (mtu + kMrMaxDataHeaderSize);
    Require(initialConnectionWindowBytes >= minWindow,
            "initialConnectionWindowBytes",
            "must hold at least one packet (MTU + 64 bytes of header) per port");
    Require(maxConnectionWindowBytes >= initialConnectionWindowBytes,
            "maxConnectionWindowBytes",
            "must be >= initialConnectionWindowBytes");
    Require(sprayBurstPackets <= maxFlowWindowPackets,
            "sprayBurstPackets",
            "must be <= maxFlowWindowPackets");
    Require(rtoMaxNs >= rtoMinNs, "rtoMaxNs", "must be >= rtoMinNs");
    Require(initialRtoNs >= rtoMinNs && initialRtoNs <= rtoMaxNs,
            "initialRtoNs",
            "must be in [rtoMinNs, rtoMaxNs]");
    Require(flowDownTimeouts >= flowSuspectTimeouts,
            "flowDownTimeouts",
            "must be >= flowSuspectTimeouts");
    Require(uint32_t{entropyBase} + entropyCount <= 65536,
            "entropyCount",
            "entropyBase + entropyCount must stay within the UDP port space");
}

uint64_t
MetaRoceConfig::BytesAtLineRate(TimeNs ns) const
{
    const long double bits = static_cast<long double>(portRateBps) * ports * ns / 1e9L;
    return static_cast<uint64_t>(bits / 8);
}

bool
SameTunablesAndShape(const MetaRoceConfig& a, const MetaRoceConfig& b)
{
    if (a.ports != b.ports || a.portRateBps != b.portRateBps)
    {
        return false;
    }
    const ConfigFields<MetaRoceConfig>& fields = MetaRoceConfigFields();
    return std::all_of(fields.begin(), fields.end(), [&](const ConfigField<MetaRoceConfig>& f) {
        return f.get(a) == f.get(b);
    });
}

} // namespace metaroce
