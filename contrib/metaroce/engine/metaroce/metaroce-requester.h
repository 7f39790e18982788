/*
 * The MetaRoCE requester (spec 5): the sending half of a connection.
 *
 * It segments WRITE and SEND work requests into MTU-sized packets, each carrying its own
 * placement (so the receiver needs no reorder buffer), sprays them over the connection's paths,
 * learns from per-path ACKs what arrived, retransmits exactly the packets a SACK gap or the
 * connection-wide time rule reveals as lost (under a fresh PSN, on whichever path has room),
 * probes a lost tail, falls back on a per-path retransmission timer with exponential backoff,
 * undoes what a spurious loss cost, moves paths to new routes after loss or persistent marks,
 * takes paths out after repeated timeouts or when their port goes down, probes them back, and
 * completes work requests in posting order per stream.
 */
#ifndef METAROCE_ENGINE_METAROCE_REQUESTER_H
#define METAROCE_ENGINE_METAROCE_REQUESTER_H

#include "../algorithms/congestion-control.h"
#include "../algorithms/path-selector.h"
#include "../common/engine-counters.h"
#include "../common/engine-memory.h"
#include "metaroce-config.h"
#include "metaroce-path.h"
#include "metaroce-wire.h"
#include "reorder-window.h"

#include <boost/dynamic_bitset.hpp>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

namespace metaroce
{

/// Sending half of a MetaRoCE connection.
class MetaRoceRequester
{
  public:
    MetaRoceRequester(const MetaRoceConfig& config,
                      MemoryRegistry* memory,
                      Counters& counters,
                      std::unique_ptr<CongestionControl> cc,
                      std::unique_ptr<PathSelector> selector);

    /// Queues a WRITE or SEND (already validated by the connection).
    void Post(const WorkRequest& wr, TimeNs now);

    /// Processes an ACK; returns false (and changes nothing) when it acknowledges PSNs never sent.
    bool OnAck(const MrHeader& ack, TimeNs now);

    /// Processes a NAK: the named message failed at the responder; the connection fails.
    void OnNak(const MrHeader& nak, TimeNs now);

    void OnTimeout(TimeNs now);
    void OnPortState(uint16_t port, bool up, TimeNs now);

    /// Next data or probe packet for `port`, if one may go now.
    std::optional<OutPacket> Pull(uint16_t port, TimeNs now);

    bool HasWork(uint16_t port) const;
    TimeNs NextTimeout() const;
    bool Idle() const;

    /// Moves finished completions into `out`.
    void TakeCompletions(std::vector<Completion>& out);

    const std::vector<Path>& Paths() const
    {
        return m_paths;
    }

    /// Sending rate the receiver's last rate hint allows (bits/s), 0 when none was received.
    uint64_t RateHintBps() const
    {
        return m_rateHintBps;
    }

    const WindowState& ConnectionWindow() const
    {
        return m_connectionWindow;
    }

  private:
    /// A posted WRITE/SEND and how much of it has been sent and acknowledged.
    struct Message
    {
        WorkRequest wr;
        uint32_t msn{0};
        uint32_t recvIndex{0};
        uint32_t packets{0};
        uint32_t nextPacket{0}; ///< segmentation cursor
        uint32_t ackedPackets{0};
        boost::dynamic_bitset<> acked;
        std::vector<uint16_t> transmissions; ///< per packet, to enforce maxRetransmissions
        bool finished{false};
        CompletionStatus status{CompletionStatus::Success};
    };

    /// A unit of data waiting to be (re)sent.
    struct PendingPacket
    {
        uint64_t message;
        uint32_t index;
    };

    std::optional<PendingPacket> NextData();
    uint32_t PacketBytes(const Message& m, uint32_t index) const;
    OutPacket BuildData(Path& path,
                        uint64_t id,
                        const Message& m,
                        uint32_t index,
                        bool retx,
                        TimeNs now);
    /// Addresses `out` to `path` and records it there as sent (a fresh PSN, in flight).
    void RecordSent(Path& path, OutPacket& out, uint64_t message, uint32_t index, TimeNs now);
    /// A PROBE on `path`. A probe of a Down path gives up on what is still in flight; a
    /// tail-loss probe does not: its only job is to put a later packet behind a lost tail
    /// (spec 5.5).
    OutPacket BuildProbe(Path& path, TimeNs now, bool abandonInFlight);
    /// The tail-loss probe for `path`: its newest unacknowledged data again, else a PROBE.
    OutPacket TailProbe(Path& path, TimeNs now);
    /// When the connection's tail-loss probe is due, or kNever (spec 5.5).
    TimeNs TailProbeAt() const;
    /// The path whose newest in-flight packet was sent last (not Down), or nullptr.
    const Path* TailPath() const;
    /// Reorder window of the time rule (spec 5.3).
    TimeNs ReorderWindowNs() const;
    /// When the time rule may next declare a packet of `path` lost, or kNever.
    TimeNs LossCheckAt(const Path& path, TimeNs reorderWindow) const;
    /// `byRule`: declared by loss detection (5.3), as opposed to a timeout or take-down.
    void MarkLost(Path& path, std::size_t index, TimeNs now, bool byRule);
    void AckData(const SentPacket& sent, TimeNs now);
    /// Feeds the reorder window with how late `p` was acknowledged behind `rack` (5.3).
    void SampleLateness(const SentPacket& p,
                        const MrHeader& ack,
                        const RackState& rack,
                        TimeNs now);
    /// Settles the path's recently lost packets against an ACK: spurious or not (spec 5.7).
    void SettleLosses(Path& path,
                      const MrHeader& ack,
                      uint64_t cumulative,
                      const RackState& rackBefore,
                      TimeNs now);
    void RunLossDetection(Path& path, TimeNs now);
    void OnPathTimeout(Path& path, TimeNs now);
    void MaybeRedraw(Path& path, TimeNs now);
    void TakeDown(Path& path, TimeNs now);
    void CompleteInOrder(uint16_t stream, TimeNs now);
    void Fail(CompletionStatus status, uint64_t culprit, TimeNs now);
    TimeNs PathRto(const Path& path) const;
    /// NextTimeout() computed from scratch: a scan of every path.
    TimeNs ScanNextTimeout() const;
    uint64_t PacingRateBps() const;
    uint16_t DrawEntropy();

    const MetaRoceConfig m_config;
    MemoryRegistry* m_memory;
    Counters& m_counters;
    std::unique_ptr<CongestionControl> m_cc;
    std::unique_ptr<PathSelector> m_selector;
    std::mt19937_64 m_rng;

    std::vector<Path> m_paths;
    RttEstimator m_connectionRtt; ///< all paths' samples: the RTO of paths without their own
    RackState m_rack;             ///< newest acknowledged transmission, all paths (5.3)
    ReorderWindow m_reorder;      ///< reorder window of the time rule (5.3)
    uint64_t m_nextTxSeq{0};      ///< transmission order over all paths
    TimeNs m_tailProbeBase{0};    ///< last send or acknowledgement of new data (5.5)
    uint32_t m_tailProbes{0};     ///< tail-loss probes since data was last acknowledged
    int m_tailProbePath{-1};      ///< path the due tail-loss probe goes out on, -1: none
    std::vector<std::vector<uint16_t>> m_pathsByPort;
    std::vector<bool> m_portUp;
    WindowState m_connectionWindow;
    uint64_t m_inflightBytes{0};
    uint64_t m_rateHintBps{0};
    TimeNs m_nextSendAt{0};
    bool m_paced{false};                   ///< the last data packet was paced (7.4)
    bool m_pacingBlocked{false};           ///< the last Pull() was held back by pacing
    mutable TimeNs m_timeoutCache{kNever}; ///< NextTimeout() of the current state, when cached
    mutable bool m_timeoutCached{false};   ///< cleared by every public non-const member
    TimeNs m_now{0};                       ///< latest time the engine was given

    uint64_t m_nextMessageId{0};
    std::unordered_map<uint64_t, Message> m_messages;
    Deque<uint64_t> m_unsent;             ///< messages with packets never sent, FIFO
    Deque<PendingPacket> m_retransmit;    ///< lost packets, FIFO
    std::vector<Deque<uint64_t>> m_order; ///< per stream, message ids in posting order
    std::vector<uint32_t> m_nextMsn;
    std::vector<uint32_t> m_nextRecvIndex;
    std::vector<TimeNs> m_lastRedraw;
    std::vector<Completion> m_completions;
    bool m_failed{false};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_REQUESTER_H
