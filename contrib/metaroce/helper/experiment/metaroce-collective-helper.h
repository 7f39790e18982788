/*
 * MetaRoceCollectiveHelper: installs one collective (or traffic pattern) on a set of hosts.
 *
 * It builds the schedule (metaroce-collective-schedule.h), connects the hosts that exchange
 * messages (MetaRoCE: one connection per host pair, channel c on stream c; RoCEv2: one queue
 * pair per host pair and channel, channel c on plane c mod planes) and installs a
 * MetaRoceCollectiveApp per rank. After the run it reports the collective's time, nccl-tests'
 * algorithm and bus bandwidth, and whether every byte arrived.
 *
 *   MetaRoceCollectiveHelper allReduce(MetaRoceCollective::ALL_REDUCE_RING, 64 << 20);
 *   allReduce.SetChannels(8);
 *   ApplicationContainer apps = allReduce.Install(nics, metaroce::Transport::MetaRoce);
 *   Simulator::Run();
 *   MetaRoceCollectiveResult r = allReduce.GetResult();
 */
#ifndef METAROCE_COLLECTIVE_HELPER_H
#define METAROCE_COLLECTIVE_HELPER_H

#include "ns3/application-container.h"
#include "ns3/metaroce-collective-app.h"
#include "ns3/metaroce-collective-schedule.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-traffic-matrix.h"
#include "ns3/metaroce-tree-schedule.h"

#include <map>
#include <vector>

namespace ns3
{

/// The outcome of one collective, nccl-tests style.
struct MetaRoceCollectiveResult
{
    std::string name;                   ///< e.g. "allreduce-ring"
    uint32_t ranks{0};                  ///< participating hosts
    uint32_t channels{0};               ///< channels the buffer was split over
    uint32_t repetitions{0};            ///< times the collective ran back to back
    uint64_t bytes{0};                  ///< the buffer size S (per rank)
    bool complete{false};               ///< every rank finished with the exact byte counts
    double startUs{0};                  ///< when the ranks started
    double endUs{0};                    ///< when the last rank finished
    double timeUs{0};                   ///< mean time of one repetition
    double algBwGBps{0};                ///< S / time, in GB/s (1e9 bytes/s) as nccl-tests prints
    double busBwGBps{0};                ///< algbw x BusBandwidthFactor
    std::vector<double> repetitionUs;   ///< duration of each repetition
    uint64_t bytesSent{0};              ///< over all ranks
    uint64_t bytesExpected{0};          ///< what the schedule says all ranks send
    uint64_t errors{0};                 ///< error completions and mismatched RECVs
    uint64_t messagesPosted{0};         ///< SENDs posted over all ranks
    std::vector<double> rankFinishUs;   ///< when each rank finished (-1: it did not)
    std::vector<uint32_t> delayedRanks; ///< ranks that started late (stragglers), ascending
    double rankDelayUs{0};              ///< how late they started
    uint64_t busiestRankBytes{0};       ///< alltoallv: most bytes one rank sends or receives
    /// alltoallv: busiestRankBytes at the host's line rate over every plane, the time no
    /// all-to-allv of this matrix can beat (set by MetaRoceExperimentWorkload::Collect)
    double boundUs{0};
};

/**
 * \ingroup metaroce
 * \brief Installs a collective's ranks on MetaRoCE NICs and reports its bandwidth.
 */
class MetaRoceCollectiveHelper
{
  public:
    /// Throws std::invalid_argument for an impossible collective (see BuildSchedule()).
    MetaRoceCollectiveHelper(MetaRoceCollective collective, uint64_t bytes);
    /**
     * An all-to-allv: rank r sends matrix[r][d] bytes to rank d (every row as long as the
     * matrix). The size S is the mean rank's buffer (the matrix's bytes over the ranks, its
     * diagonal included, as nccl-tests counts an all-to-all's own block), and busbw = algbw x
     * the share of the bytes that crosses the network ((n - 1) / n for a uniform matrix).
     */
    explicit MetaRoceCollectiveHelper(const MetaRoceTrafficMatrix& matrix);

    /// Channels (0 = one per plane); the buffer is split over them. At most 65535.
    void SetChannels(uint32_t channels);
    /// Times the collective runs back to back (>= 1).
    void SetRepetitions(uint32_t repetitions);
    /// When the ranks start.
    void SetStartTime(Time start);
    /// The tree all-reduce's pipeline chunk (>= 1 byte; kDefaultTreeChunkBytes).
    void SetTreeChunkBytes(uint64_t bytes);
    /// Stragglers: `ranks` start `delay` after the start time (the others at it).
    void SetRankDelay(const std::vector<uint32_t>& ranks, Time delay);

    /**
     * Connects the hosts and installs one rank per NIC (rank i on nics[i]). Throws
     * std::invalid_argument naming the problem: fewer than two NICs, channels above the NICs'
     * Streams attribute (MetaRoCE), NICs without ports.
     */
    ApplicationContainer Install(const std::vector<Ptr<MetaRoceNic>>& nics,
                                 metaroce::Transport transport);

    /// The installed ranks.
    const std::vector<Ptr<MetaRoceCollectiveApp>>& GetApps() const;
    /// Every queue pair the helper created (both ends).
    const std::vector<Ptr<MetaRoceQueuePair>>& GetQueuePairs() const;
    /**
     * The result so far (complete once every rank has finished). In a distributed run every
     * MPI rank must call it, after the run: each app's figures come from its own rank.
     */
    MetaRoceCollectiveResult GetResult() const;
    /// The share of the schedule this process's apps have sent, in [0, 1]; reads no other MPI
    /// rank, so it may be called during a run (progress lines).
    double GetLocalProgress() const;

  private:
    /// Per channel and rank: each peer's queue pair and the stream to it.
    using PeerMap = std::map<uint32_t, std::pair<Ptr<MetaRoceQueuePair>, uint16_t>>;
    using ChannelPeers = std::vector<std::vector<PeerMap>>;

    /// Checks the NICs against the collective and fixes the number of channels used.
    void CheckShape(const std::vector<Ptr<MetaRoceNic>>& nics, metaroce::Transport transport);
    /// Connects every pair of ranks that exchange messages: one MetaRoCE connection (a stream
    /// per channel) or one RoCEv2 queue pair per channel, on plane channel mod planes.
    ChannelPeers ConnectPeers(const std::vector<Ptr<MetaRoceNic>>& nics,
                              metaroce::Transport transport);
    /// One MetaRoceCollectiveApp per rank, on the NIC's node.
    ApplicationContainer MakeApps(const std::vector<Ptr<MetaRoceNic>>& nics,
                                  const ChannelPeers& peers);

    /// The plan of channel `channel` over `ranks` ranks.
    MetaRoceCollectivePlan PlanOf(uint32_t ranks, uint32_t channel) const;
    /// Bytes the schedule has `rank` send, every channel and repetition.
    uint64_t ExpectedSentBytes(uint32_t rank) const;

    MetaRoceCollective m_collective;
    uint64_t m_bytes;
    MetaRoceTrafficMatrix m_matrix; ///< alltoallv only
    uint32_t m_channels{0};
    uint32_t m_repetitions{1};
    Time m_start{Seconds(0)};
    uint64_t m_treeChunkBytes{kDefaultTreeChunkBytes};
    std::vector<uint32_t> m_delayedRanks;
    Time m_rankDelay{Seconds(0)};
    uint32_t m_usedChannels{0};
    std::vector<MetaRoceCollectivePlan> m_plans; ///< per channel
    std::vector<Ptr<MetaRoceCollectiveApp>> m_apps;
    std::vector<Ptr<MetaRoceQueuePair>> m_qps;
};

} // namespace ns3

#endif // METAROCE_COLLECTIVE_HELPER_H
