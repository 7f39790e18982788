/*
 * A MetaRoCE connection end (spec 1.3): many ordered streams above, many flows below, one
 * congestion controller, behind the TransportEngine interface.
 *
 * It parses and validates every packet once (a refused packet is counted under its reason and
 * changes nothing), routes data and probes to the responder and ACKs/NAKs to the requester,
 * serves each port's pulls with feedback first (ACKs are small and unblock the peer), then
 * probes and data. Its state grows with flows and with messages in flight, never with the
 * number of streams in use by the application beyond the configured stream count.
 *
 * The requester and the responder are made at their first use: an end of a one-way flow uses
 * one of them (in a 64-host all-to-all, 1,248 of the 1,824 bytes a connection end took with
 * both; doc/performance.md). A half not yet made answers every question as a new one would.
 */
#ifndef METAROCE_ENGINE_METAROCE_CONNECTION_H
#define METAROCE_ENGINE_METAROCE_CONNECTION_H

#include "../algorithms/congestion-control.h"
#include "../common/deadline-cached.h"
#include "../common/engine-memory.h"
#include "metaroce-config.h"
#include "metaroce-requester.h"
#include "metaroce-responder.h"

#include <bitset>
#include <memory>

namespace metaroce
{

/// One end of a MetaRoCE connection.
class MetaRoceConnection : public TransportEngine
{
  public:
    /**
     * \param config validated here; throws std::invalid_argument naming a bad field
     * \param memory the NIC's registered memory (may be null: virtual buffers only)
     * \param cc congestion control (default: AIMD built from config)
     * \param selector flow selection (default: spraying)
     */
    explicit MetaRoceConnection(const MetaRoceConfig& config,
                                MemoryRegistry* memory = nullptr,
                                std::unique_ptr<CongestionControl> cc = nullptr,
                                std::unique_ptr<FlowSelector> selector = nullptr);

    /**
     * A connection that refers to `shared`, a configuration other connections may refer to as
     * well (a NIC's: 272 bytes less per connection, and one copy in the cache for all of
     * them), under its own `ids`; `shared`'s identity fields are not read.
     * \param shared validated here; throws std::invalid_argument naming a bad field, or when null
     */
    MetaRoceConnection(std::shared_ptr<const MetaRoceConfig> shared,
                       const ConnectionIds& ids,
                       MemoryRegistry* memory = nullptr,
                       std::unique_ptr<CongestionControl> cc = nullptr,
                       std::unique_ptr<FlowSelector> selector = nullptr);

    // Its halves refer to its configuration and counters: it stays where it was made.
    MetaRoceConnection(const MetaRoceConnection&) = delete;
    MetaRoceConnection& operator=(const MetaRoceConnection&) = delete;
    ~MetaRoceConnection() override;

    const char* Name() const override;
    void PostSend(const WorkRequest& wr, TimeNs now) override;
    void PostRecv(const WorkRequest& wr) override;
    RxResult OnPacket(const RxPacket& pkt) override;
    void OnTimeout(TimeNs now) override;
    void OnPortState(uint16_t port, bool up, TimeNs now) override;
    std::optional<OutPacket> PullPacket(uint16_t port, TimeNs now) override;
    std::optional<OutPacket> PullControlPacket(uint16_t port, TimeNs now) override;
    std::optional<OutPacket> PullRecoveryPacket(uint16_t port, TimeNs now) override;
    bool HasWork(uint16_t port) const override;
    bool HasControlWork(uint16_t port) const override;
    bool HasRecoveryWork(uint16_t port) const override;
    bool ContinuesBurst(uint16_t port) const override;
    PortWork WorkOnPorts(uint16_t ports) const override;
    TimeNs NextTimeout() const override;
    std::vector<Completion> TakeCompletions() override;
    bool Idle() const override;
    const Counters& GetCounters() const override;

    /// The receiver's fair share advertised to the peer in every ACK (bits/s).
    void SetFairShare(uint64_t bps);

    /// This sender's share of the receiver's admission budget, granted as credit in the ACKs
    /// (bytes; 0: no admission, spec 8.5).
    void SetAdmissionTarget(uint64_t bytes);

    /// Reads the fair share and the admission target from the NIC's `hints` (null: none) once
    /// the NIC sets them after this call (receiver-hints.h); they take precedence over
    /// SetFairShare() and SetAdmissionTarget(). `hints` must outlive the calls that read it.
    void ShareReceiverHints(const ReceiverHints* hints);

    /// Records the losses this connection proves in, and takes its reorder floor from, the
    /// NIC's `evidence` shared by all its connections (spec 4.6, A47) instead of its own;
    /// `evidence` must outlive the connection.
    void ShareLossEvidence(LossEvidence& evidence);

    /// The configuration, perhaps shared: its identity fields may be another connection's or
    /// none; Ids() tells this connection's.
    const MetaRoceConfig& Config() const
    {
        return *m_config;
    }

    /// This connection's identity: its and its peer's connection ids, its seed.
    const ConnectionIds& Ids() const
    {
        return m_ids;
    }

    /// The requester (made now if it never was, as a new one: for tests and the harness).
    const MetaRoceRequester& Requester() const
    {
        return SendHalf().Get();
    }

    /// The responder (made now if it never was, as a new one).
    const MetaRoceResponder& Responder() const
    {
        return ReceiveHalf();
    }

  private:
    /// PullPacket, PullControlPacket or PullRecoveryPacket, by `kind`.
    std::optional<OutPacket> Pull(uint16_t port, TimeNs now, PullKind kind);
    void ValidateWorkRequest(const WorkRequest& wr, bool recv) const;
    RxResult Refuse(DropReason reason);
    /// The requester, made on the first call. Const so that the accessors can make it: a new
    /// half behaves as an absent one, and a connection is never itself const (it is driven
    /// by calls that change it), so the cast in the definition is defined behaviour.
    DeadlineCached<MetaRoceRequester>& SendHalf() const;
    /// The responder, made on the first call (reading the NIC's hints if shared).
    MetaRoceResponder& ReceiveHalf() const;

    // What every event reads first - the two halves, the ports' state, the completions - shares
    // the vtable pointer's cache line: a connection of a large fabric is cold at each of its
    // events, and each further line is a miss (doc/performance.md). The halves refer to members
    // declared after them, so the destructor destroys them first.

    /// Every call that may change the requester goes through Mutate(), which forgets the
    /// remembered NextTimeout() (most events leave the requester alone: no rescan then).
    mutable std::unique_ptr<DeadlineCached<MetaRoceRequester>> m_requester; ///< SendHalf()
    mutable std::unique_ptr<MetaRoceResponder> m_responder;                 ///< ReceiveHalf()
    std::bitset<kMaxPorts> m_portUp; ///< in the object: asked on every pull of every port
    /// The requester's finished work requests, drained by TakeCompletions(): outside the
    /// requester, so taking them keeps its cached deadline.
    std::vector<Completion> m_sendCompletions;
    std::shared_ptr<const MetaRoceConfig> m_config; ///< perhaps shared with other connections
    ConnectionIds m_ids;
    MemoryRegistry* m_memory;
    Counters m_counters;
    mutable std::unique_ptr<CongestionControl> m_cc;  ///< the requester's, until it is made
    mutable std::unique_ptr<FlowSelector> m_selector; ///< the requester's, until it is made
    ReceiverHintsView m_hints;                        ///< ShareReceiverHints(), for a new responder
    LossEvidence m_ownEvidence;                       ///< its own, until the NIC shares one
    LossEvidence* m_evidence{&m_ownEvidence};         ///< ShareLossEvidence(), for the requester
};

} // namespace metaroce

#endif // METAROCE_ENGINE_METAROCE_CONNECTION_H
