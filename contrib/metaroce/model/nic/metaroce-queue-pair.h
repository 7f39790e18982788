/*
 * The user's handle on one end of a connection: a MetaRoCE connection or a RoCEv2 RC queue
 * pair, verbs-style. Work requests are posted here, completions come back through a callback
 * and the "Completion" trace source, in posting order per stream.
 *
 * The queue pair owns its protocol engine (libsoftmetaroce); the NIC it belongs to drives the
 * engine (its EngineDriver and what the NIC keeps per queue pair live on the NIC's side): it
 * transmits the packets when ports are free, hands the engine arriving packets, runs its timer
 * and hands completions back here (Deliver). Create queue pairs in connected pairs with
 * MetaRoceNic::Connect() (or MetaRoceHelper::Connect()), which initialises them (Init).
 */
#ifndef METAROCE_QUEUE_PAIR_H
#define METAROCE_QUEUE_PAIR_H

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/transport-engine.h"

#include <memory>

namespace ns3
{

class MetaRoceNic;

/**
 * \ingroup metaroce
 * \brief One end of a MetaRoCE connection or RoCEv2 queue pair.
 */
class MetaRoceQueuePair : public Object
{
  public:
    /// Called for each completion.
    using CompletionCallback = Callback<void, Ptr<MetaRoceQueuePair>, const metaroce::Completion&>;

    /// What the NIC gives a queue pair it creates (see Init()).
    struct Setup
    {
        MetaRoceNic* nic{nullptr}; ///< the owner; it outlives its queue pairs' use
        metaroce::Transport transport{metaroce::Transport::MetaRoce};
        uint32_t localId{0};  ///< connection id / QP number at this end
        uint32_t remoteId{0}; ///< ... and at the peer
        std::unique_ptr<metaroce::TransportEngine> engine;
        /// Called after each work request is posted to the engine: the NIC serves the engine
        /// (spec 1.3: Service after any call into the engine).
        Callback<void> posted;
    };

    static TypeId GetTypeId();
    MetaRoceQueuePair();
    ~MetaRoceQueuePair() override;

    /// Called once by the NIC that creates this queue pair (MetaRoceNic::Connect()).
    void Init(Setup setup);

    /// Hands a completion of the engine to the user (callback and trace); called by the NIC.
    void Deliver(const metaroce::Completion& c);

    /**
     * Posts an RDMA WRITE of `length` bytes on `stream` into the peer's region `remoteKey` at
     * `remoteAddr` (key 0: virtual, unchecked). With a non-zero `localKey` the bytes are read
     * from the NIC's registered memory and really travel. Returns the work request id.
     */
    uint64_t PostWrite(uint16_t stream,
                       uint64_t length,
                       uint64_t remoteAddr = 0,
                       uint32_t remoteKey = 0,
                       uint64_t localAddr = 0,
                       uint32_t localKey = 0);

    /// Posts a SEND, matched to the peer's next RECV on the same stream. Returns its id.
    uint64_t PostSend(uint16_t stream,
                      uint64_t length,
                      uint64_t localAddr = 0,
                      uint32_t localKey = 0);

    /// Posts a RECV buffer for a future SEND on `stream`. Returns its id.
    uint64_t PostRecv(uint16_t stream,
                      uint64_t length,
                      uint64_t localAddr = 0,
                      uint32_t localKey = 0);

    void SetCompletionCallback(CompletionCallback cb);

    /// "metaroce" or "rocev2".
    std::string GetTransportName() const;
    metaroce::Transport GetTransport() const;
    uint32_t GetLocalId() const;
    uint32_t GetRemoteId() const;
    Ptr<MetaRoceNic> GetNic() const;
    const metaroce::Counters& GetCounters() const;
    /// True when every posted WRITE/SEND has completed.
    bool IsIdle() const;
    /// Completions delivered so far.
    uint64_t GetCompletedCount() const;
    /// The engine, for inspection (flow state, windows) in tests and experiments.
    metaroce::TransportEngine& GetEngine() const;

  protected:
    void DoDispose() override;

  private:
    uint64_t Post(metaroce::Opcode op,
                  uint16_t stream,
                  uint64_t length,
                  uint64_t localAddr,
                  uint32_t localKey,
                  uint64_t remoteAddr,
                  uint32_t remoteKey);

    MetaRoceNic* m_nic{nullptr}; ///< owner; the NIC outlives its queue pairs' use
    metaroce::Transport m_transport{metaroce::Transport::MetaRoce};
    std::unique_ptr<metaroce::TransportEngine> m_engine;
    uint32_t m_localId{0};
    uint32_t m_remoteId{0};
    Callback<void> m_posted; ///< see Setup::posted
    uint64_t m_nextWrId{1};
    uint64_t m_completed{0};
    CompletionCallback m_completionCallback;
    TracedCallback<Ptr<MetaRoceQueuePair>, const metaroce::Completion&> m_completionTrace;
};

} // namespace ns3

#endif // METAROCE_QUEUE_PAIR_H
