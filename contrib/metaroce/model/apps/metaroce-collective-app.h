/*
 * One rank of a collective: an ns-3 Application on a host that plays its part of a
 * MetaRoceSchedule over queue pairs (SEND/RECV, so the receiver learns of every arrival).
 *
 * A collective runs on one or more channels, as NCCL's do: each channel is an independent copy
 * of the schedule over its share of the buffer, with its own queue pairs (RoCEv2: one QP per
 * peer and channel, on plane channel mod planes) or its own stream of a shared connection
 * (MetaRoCE: one connection per peer, stream = channel, sprayed over every plane).
 *
 * Per channel, the rank enters step s by posting the step's SENDs, and leaves it when every
 * message the step expects has arrived; RECVs for every step and repetition are posted at start,
 * in schedule order, so per stream the k-th RECV completion is the k-th expected message (spec
 * 3.3: completions in posting order per stream). The rank has finished when every channel
 * has left its last step and every SEND has completed.
 *
 * Channels may also be lanes of one channel that progress independently (the tree all-reduce's
 * reduce and broadcast, MetaRoceCollectivePlan). Lanes added with the same barrier group enter
 * each repetition together: a lane that has finished repetition i waits until every lane of
 * its group has, so a rank starts its next collective only when it has finished the last one.
 * A straggler (attribute StartDelay) posts its RECVs when it starts, as NCCL's connection
 * buffers are ready before a late rank's kernel runs, so its peers' first messages can land;
 * its own part - its first SENDs and every step after - begins StartDelay later.
 */
#ifndef METAROCE_COLLECTIVE_APP_H
#define METAROCE_COLLECTIVE_APP_H

#include "ns3/application.h"
#include "ns3/engine-types.h"
#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-queue-pair.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief One rank of a collective (or traffic pattern) run over MetaRoCE or RoCEv2.
 */
class MetaRoceCollectiveApp : public Application
{
  public:
    /// Message: source rank, destination rank, bytes, posted, completed (the SEND's completion).
    typedef void (*MessageTracedCallback)(uint32_t src,
                                          uint32_t dst,
                                          uint64_t bytes,
                                          Time posted,
                                          Time completed);
    /// Finished: the rank, the time it finished.
    typedef void (*FinishedTracedCallback)(uint32_t rank, Time at);

    static TypeId GetTypeId();
    MetaRoceCollectiveApp();
    ~MetaRoceCollectiveApp() override;

    /// Sets this application's rank (its index in the schedule).
    void SetRank(uint32_t rank);
    uint32_t GetRank() const;

    /// No repetition barrier: the channel repeats on its own.
    static constexpr uint32_t kNoBarrier = 0xffffffff;

    /**
     * Adds a channel: this rank's `steps`, and for every peer the steps name, the queue pair and
     * stream to reach it; channels with the same `barrierGroup` enter each repetition together.
     * Aborts if a peer has no queue pair or a queue pair is not this node's.
     */
    void AddChannel(const std::vector<MetaRoceCollectiveStep>& steps,
                    const std::map<uint32_t, std::pair<Ptr<MetaRoceQueuePair>, uint16_t>>& peers,
                    uint32_t barrierGroup = kNoBarrier);

    bool IsFinished() const;
    /// When the rank finished (every step left, every SEND completed); -1 s before.
    Time GetFinishTime() const;
    /// When the rank left the last step of each repetition (over all channels).
    std::vector<Time> GetRepetitionEnds() const;
    uint64_t GetMessagesPosted() const; ///< SENDs posted so far
    uint64_t GetBytesSent() const;      ///< bytes of completed SENDs
    uint64_t GetBytesReceived() const;  ///< bytes of completed RECVs
    /// Completions with an error status, or RECVs whose length differed from the schedule's.
    uint64_t GetErrors() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    /// StartApplication()'s work, after the node's arrivals of the instant: every RECV posted,
    /// then Begin() at once or after the start delay.
    void Prepare();
    void StopApplication() override;

    /// A message in flight on one (queue pair, stream).
    struct Pending
    {
        uint32_t peer;
        uint64_t bytes;
        uint32_t channel;
        uint32_t step; ///< global step index (repetition x steps + step)
        Time posted;
    };

    /// One channel's progress.
    struct Channel
    {
        std::vector<MetaRoceCollectiveStep> steps;
        std::map<uint32_t, std::pair<Ptr<MetaRoceQueuePair>, uint16_t>> peers;
        std::vector<uint32_t> remaining; ///< per global step: messages still expected
        uint32_t current{0};             ///< the global step the channel is in
        std::vector<Time> repetitionEnds;
        uint32_t barrierGroup{kNoBarrier};
        bool waiting{false}; ///< at a repetition's start, held by its barrier group
    };

    /// Posts every channel's first SENDs and enters the steps whose messages have arrived.
    void Begin();
    /// Enters global steps from the current one on while their messages have all arrived.
    void Advance(uint32_t channel);
    /// Posts the SENDs of the channel's current global step.
    void PostSends(uint32_t channel);
    /// True when the channel may enter repetition `repetition`: every lane of its barrier group
    /// has finished the one before (lanes without steps never hold it).
    bool BarrierOpen(uint32_t channel, uint32_t repetition) const;
    /// Lets the lanes of `group` waiting at a repetition's start go on.
    void ReleaseBarrier(uint32_t group);
    void OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c);
    void CheckFinished();

    uint32_t m_rank{0};
    uint32_t m_repetitions{1};
    std::vector<Channel> m_channels;

    /// Messages in posting order per queue pair id and stream. A NIC deals its queue pair ids
    /// densely, so two indexations find a queue: every completion looks one up among a rank's
    /// peers times channels (a tree and then a hash of them cost 1-2% of a 64-host
    /// all-to-all's CPU time, doc/performance.md).
    class PendingByStream
    {
      public:
        /// The queue of (queue pair `id`, `stream`), made empty on first use.
        metaroce::Ring<Pending>& At(uint32_t id, uint16_t stream)
        {
            if (id >= m_queues.size())
            {
                m_queues.resize(id + 1);
            }
            std::vector<metaroce::Ring<Pending>>& streams = m_queues[id];
            if (stream >= streams.size())
            {
                streams.resize(stream + 1);
            }
            return streams[stream];
        }

        void Clear()
        {
            m_queues.clear();
        }

      private:
        std::vector<std::vector<metaroce::Ring<Pending>>> m_queues;
    };

    PendingByStream m_sends; ///< SENDs, by queue pair and stream
    PendingByStream m_recvs; ///< RECVs, by queue pair and stream
    uint64_t m_sendsOutstanding{0};
    uint64_t m_messagesPosted{0};
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
    uint64_t m_errors{0};
    bool m_started{false};
    bool m_begun{false};  ///< past StartDelay: the rank plays its part
    Time m_startDelay{0}; ///< a straggler's lateness
    Time m_finish{Seconds(-1)};

    TracedCallback<uint32_t, uint32_t, uint64_t, Time, Time> m_messageTrace;
    TracedCallback<uint32_t, Time> m_finishedTrace;
};

} // namespace ns3

#endif // METAROCE_COLLECTIVE_APP_H
