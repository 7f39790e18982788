/*
 * Configuration of one MetaRoCE connection end. The public description of MetaRoCE gives no
 * constants (no AIMD gains, timers or encodings), so each value below is an assumption of this
 * model, named in the spec (doc/spec.md, section 11 "Assumptions"). The defaults are the member
 * initialisers; range, unit, attribute name and meaning of each tunable are its row in
 * MetaRoceConfigFields() (config-field.h), from which the NIC's ns-3 attributes and the
 * compliance suite's settings are made. Validate() refuses impossible values with a message
 * naming the field.
 */
#ifndef METAROCE_ENGINE_METAROCE_CONFIG_H
#define METAROCE_ENGINE_METAROCE_CONFIG_H

#include "../algorithms/congestion-control.h"
#include "../common/config-field.h"
#include "../common/engine-types.h"

#include <cstdint>

namespace metaroce
{

/// Most NIC ports (planes) a connection may use: per-port state is kept in 64-bit words.
constexpr uint16_t kMaxPorts = 64;

/// When a connection end releases its completions (MetaRoceConfig::completionOrder, spec 3.3).
enum class CompletionOrder : uint8_t
{
    /// Per stream in posting order: a completion implies every earlier message of its stream
    /// finished (the requester) or landed (the responder's RECV completions).
    Posting = 0,
    /// Each message as soon as it finishes: all its packets acknowledged (the requester) or
    /// placed (the responder), whatever earlier messages of its stream are doing. A SEND may
    /// not follow an unfinished WRITE of its stream (MetaRoceConnection::PostSend refuses it).
    Finish = 1,
};

/// All tunables of a MetaRoCE connection (defaults: 100 Gb/s ports, ~8 us fabric RTT).
struct MetaRoceConfig
{
    // Identity.
    uint32_t localConnection{1};  ///< our connection id: peers put it in their packets
    uint32_t remoteConnection{1}; ///< the peer's connection id
    uint64_t seed{1};             ///< seeds entropy draws; same seed -> same packets
    /// FSN at which each of this end's flows starts sending (spec 2.5): 0 in the simulator, drawn
    /// at random per connection where packets from strangers can arrive (the UDP runtime).
    uint32_t initialFsn{0};
    uint32_t remoteInitialFsn{
        0}; ///< the peer's initialFsn: where each flow's receive window starts

    // Shape.
    uint16_t ports{1};         ///< NIC ports = planes this connection may use
    uint16_t flowsPerPort{32}; ///< logical flows per plane (spec 6.1, A13)
    uint16_t streams{16};      ///< ordered streams multiplexed on the connection (spec 8)
    uint32_t mtu{4096};        ///< payload bytes per data packet
    uint64_t portRateBps{100'000'000'000}; ///< line rate of each port

    /// Entropy recycling (6.2, A52): the spraying selector reuses first the flows whose packets
    /// came back without a mark, one packet per packet acknowledged clean; false: round-robin.
    bool entropyRecycling{true};
    /// Consecutive packets a connection sends on one flow of a port before the selector moves on
    /// (6.2): packets that arrive together are acknowledged together (4.2, ackEveryPackets).
    uint32_t sprayBurstPackets{1};

    // Windows and congestion control (spec 9).
    uint32_t initialFlowWindowPackets{1};           ///< starting flow window (A15)
    uint32_t maxFlowWindowPackets{256};             ///< never above the SACK bitvector width
    uint64_t initialConnectionWindowBytes{1 << 20}; ///< starting connection window
    uint64_t maxConnectionWindowBytes{16 << 20};    ///< connection window ceiling
    bool honourRateHint{true};                      ///< pace at the receiver's fair-share hint
    /// The NIC paces its DATA at a share of its line rate cut on its connections' CE marks
    /// together (9.7, A58; off: at the line rate, windows and rate hints alone limit it).
    bool nicInjectionControl{false};
    /// Bytes in flight before the connection's first ACK (0: the windows alone decide); with a
    /// receiver that grants admission credit (spec 8.5), the unscheduled first window.
    uint64_t unscheduledBytes{0};
    /// Parameters of the default congestion control (used when none is given).
    AimdConfig aimd;

    // Loss recovery (spec 7).
    uint32_t reorderTolerancePackets{0}; ///< gap size that is loss; 0 = any gap (per-flow order)
    uint32_t reorderFloorRttQuarters{1}; ///< reorder window floor: ACK delay + this * minRtt / 4,
                                         ///< while the NIC has proven a loss recently (4.6)
    uint32_t quietReorderFloorRttQuarters{3}; ///< the floor's quarters while it has not (A47)
    TimeNs lossMemoryNs{1'000'000}; ///< how long a proven loss keeps the narrow floor (4.6)
    /// While the NIC found a loss spurious and proved none within lossMemoryNs: the time rule's
    /// window is at least this many halves of the smoothed RTT (0: never; 5.3, A49).
    uint32_t spuriousWindowSrttHalves{3};
    /// While no connection of the NIC proved a loss within lossMemoryNs, judge late packets by
    /// the NIC's RTT estimate where it is the longer (4.5, A57; off: the connection's own).
    bool judgeByNicRtt{false};
    TimeNs rtoMinNs{60'000};
    TimeNs rtoMaxNs{10'000'000};
    TimeNs initialRttNs{8'000};       ///< RTT assumed before the first sample
    TimeNs initialRtoNs{500'000};     ///< RTO before the first sample: a first window may sit
                                      ///< in an incast queue for hundreds of microseconds
    uint32_t maxRetransmissions{32};  ///< per packet; beyond it, once its message's first loss
                                      ///< is rtoMaxNs old, the connection fails (7.4, A19)
    uint32_t retransmitCopies{1};     ///< copies of each retransmission (7.3); 1: no extra
    bool retransmitOtherPlane{true};  ///< a retransmission avoids the plane of its loss (7.3, A54)
    uint32_t tailRetransmitCopies{2}; ///< at least this many once no new data is left (7.3)
    uint32_t flowSuspectTimeouts{1};  ///< consecutive RTOs before a flow is suspect
    uint32_t flowDownTimeouts{3};     ///< consecutive RTOs before a flow is taken down
    TimeNs tailProbeMinNs{5'000};     ///< floor of the tail-loss probe timeout (spec 4.5)
    uint32_t maxTailProbes{6};        ///< tail-loss probes without progress; the first two
                                      ///< one wait apart, then doubling (0: none)
    bool tailMarkers{true};           ///< a data-class PROBE behind the last packet (4.5)
    TimeNs probeIntervalNs{100'000};  ///< how often a down flow is probed
    uint32_t entropyRedrawMarks{3};   ///< consecutive CE-echo ACK rounds that move a flow
    uint16_t entropyBase{49152};      ///< UDP source ports are drawn from
    uint16_t entropyCount{16384};     ///<   [entropyBase, entropyBase + entropyCount)

    // Receiver (spec 8).
    uint32_t ackEveryPackets{2};        ///< packets of a plane, over its flows, per ACK (4.2)
    TimeNs ackDelayNs{2'000};           ///< longest a packet waits for its ACK
    uint32_t ackRepeats{2};             ///< earlier ACKs of other flows each ACK repeats
    bool compactAcks{true};             ///< leave an empty SACK out of the ACK (5.3)
    bool mcrc{false};                   ///< mCRC trailer on every packet, checked (4.1)
    uint32_t maxMessagesInFlight{1024}; ///< per stream: receive window in messages
    /// CompletionOrder of this end's completions (0: posting order, 1: as messages finish; 6.8).
    uint8_t completionOrder{0};

    /// The completion order completionOrder names.
    CompletionOrder Completions() const
    {
        return static_cast<CompletionOrder>(completionOrder);
    }

    /// Throws std::invalid_argument naming the first field that is out of range, or the first
    /// pair of fields that contradict each other.
    void Validate() const;

    /// Bytes of the connection's aggregate line rate over `ns` nanoseconds.
    uint64_t BytesAtLineRate(TimeNs ns) const;
};

/**
 * What tells a connection from the others of its NIC, kept apart from the configuration they
 * share: a NIC's connections refer to one configuration (a million of them in a 1,024-host
 * all-to-all; doc/performance.md "The fast path").
 */
struct ConnectionIds
{
    uint32_t local{1};            ///< MetaRoceConfig::localConnection
    uint32_t remote{1};           ///< MetaRoceConfig::remoteConnection
    uint64_t seed{1};             ///< MetaRoceConfig::seed
    uint32_t initialFsn{0};       ///< MetaRoceConfig::initialFsn
    uint32_t remoteInitialFsn{0}; ///< MetaRoceConfig::remoteInitialFsn
};

/// The identity fields of `config`.
inline ConnectionIds
IdsOf(const MetaRoceConfig& config)
{
    return ConnectionIds{config.localConnection,
                         config.remoteConnection,
                         config.seed,
                         config.initialFsn,
                         config.remoteInitialFsn};
}

/**
 * True when `a` and `b` have the same tunables (every row of MetaRoceConfigFields()) and shape
 * (ports, portRateBps), whatever their identity: connections made from either behave alike.
 */
bool SameTunablesAndShape(const MetaRoceConfig& a, const MetaRoceConfig& b);

/**
 * The tunables of MetaRoceConfig, one row each. Not in it: the identity (connection ids,
 * seed) and the shape the NIC dictates (ports, portRateBps).
 */
const ConfigFields<MetaRoceConfig>& MetaRoceConfigFields();

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_CONFIG_H
