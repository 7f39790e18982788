/*
 * MetaRoceFabricMonitor: counts what crosses every link of a fabric (both directions), what the
 * receiving end lost, and the payload delivered to the hosts over time.
 *
 * It reads what each end sent from its MetaRoceChannel's counters, hooks the devices' PhyRxDrop
 * trace source (a packet dropped by a receive error model - random loss or a failed link - is
 * counted against the direction it was travelling) and samples each host's queue-pair counters at a
 * fixed interval. A sample at tick T is the host's state at the start of instant T, taken at its
 * node's first event at or after T (MetaRoceArrivals::AddObserver): it counts what happened before
 * T and nothing at T, whatever the order of the events at T, and schedules nothing, so a monitored
 * run keeps the same results as one without.
 *
 * In a distributed run each rank counts the links it transmits and receives on and the hosts and
 * switches it simulates; Finish() combines the ranks' counts, after which every rank holds the
 * whole fabric's figures.
 */
#ifndef METAROCE_FABRIC_MONITOR_H
#define METAROCE_FABRIC_MONITOR_H

#include "ns3/metaroce-channel.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-results.h"
#include "ns3/nstime.h"

#include <chrono>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Per-link counters and delivered-throughput samples of a MetaRoceFabricHelper fabric.
 */
class MetaRoceFabricMonitor
{
  public:
    /// Hooks every link of `fabric` (which must be built and outlive the monitor).
    explicit MetaRoceFabricMonitor(const MetaRoceFabricHelper& fabric);

    /**
     * Samples every host's sent and delivered bytes every `interval` (0: never) from `start`,
     * and, when `progress` is set, prints a progress line on stderr every few wall-clock seconds
     * until `done()` returns true: simulated time, delivered bytes, wall time and, from
     * `progress()` (the fraction of the workload done, in [0, 1]), the share done and an
     * estimate of the wall time left.
     */
    void Start(Time start,
               Time interval,
               std::function<double()> progress,
               std::function<bool()> done);

    /**
     * Ends the sampling at `end` (the run's last instant: the samples are the intervals that
     * began before it, the last one counting up to `end`) and, in a distributed run, combines
     * every rank's counts. Every rank must call it, after the run and before the getters.
     */
    void Finish(Time end);

    /// Payload placed in this process's hosts' memory so far.
    uint64_t DeliveredBytes() const;

    /// The link records, utilisation computed over `duration`.
    std::vector<MetaRoceLinkRecord> GetLinks(Time duration) const;
    /// Per-plane totals of `links`, with switch drops and PFC pauses.
    std::vector<MetaRocePlaneRecord> GetPlanes(const std::vector<MetaRoceLinkRecord>& links) const;
    const std::vector<MetaRoceThroughputSample>& GetThroughput() const;
    /// Per host and interval: bytes sent and delivered.
    const std::vector<MetaRoceHostSample>& GetHostThroughput() const;
    /// Packets transmitted over all links (in a distributed run, after Finish()).
    uint64_t GetPacketHops() const;
    /// Packets this process transmitted over links (a distributed run's per-rank figure).
    uint64_t GetLocalPacketHops() const;

  private:
    /// One progress line on stderr: `delivered` bytes after `wallSeconds` of wall time.
    void PrintProgress(uint64_t delivered, double wallSeconds) const;

    /// One direction of one link.
    struct Direction
    {
        MetaRoceLinkRecord record;
        uint64_t rateBps{0};
        Ptr<MetaRoceChannel> channel; ///< counts what tx sent (null: another device's channel)
        Ptr<NetDevice> tx;
        Ptr<MetaRoceSwitch> txSwitch; ///< the switch whose egress port tx is (null: a NIC)
        uint32_t txPort{0};           ///< that port
        uint64_t sentPackets{0};      ///< without `channel`: what tx's PhyTxBegin reported
        uint64_t sentBytes{0};
    };

    void AddLink(const MetaRoceFabricLink& link,
                 uint32_t plane,
                 const std::string& tierAB,
                 const std::string& tierBA,
                 const std::string& labelA,
                 const std::string& labelB);
    /// The index of `nic`'s host.
    uint32_t HostOf(Ptr<MetaRoceNic> nic) const;
    void OnLost(std::size_t direction, Ptr<const Packet> packet);
    /// A frame of `direction` began on a device other than the module's (PPP-framed).
    void OnSent(std::size_t direction, Ptr<const Packet> frame);
    /// Host h's (sent, delivered) bytes so far.
    std::pair<uint64_t, uint64_t> HostBytes(uint32_t h) const;
    /// Observer of host h's node: records its counters for every tick up to now; returns the
    /// next tick.
    Time Snapshot(uint32_t h);
    /// Builds the throughput series from the hosts' snapshots (all ranks' after Finish()).
    void MakeSeries(const std::vector<uint64_t>& snapshots, std::size_t ticks);
    /// Sums the link counters over the ranks and the switches' figures per plane.
    void CombineCounters();
    void ProgressTick();

    /// Per plane, from the switches: drops, PFC pauses sent, the deepest egress queue.
    struct SwitchFigures
    {
        uint64_t drops{0};
        uint64_t pfcPauses{0};
        uint64_t maxQueueBytes{0};
    };

    const MetaRoceFabricHelper& m_fabric;
    std::vector<Direction> m_directions;
    uint64_t m_localPacketHops{0};
    std::vector<SwitchFigures> m_switchFigures;
    std::vector<MetaRoceThroughputSample> m_samples;
    std::vector<MetaRoceHostSample> m_hostSamples;
    /// Per host: (sent, delivered) at every tick observed so far.
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> m_snapshots;
    Time m_start;
    Time m_interval;
    std::function<double()> m_progress; ///< empty: no progress lines
    std::function<bool()> m_done;
    std::chrono::steady_clock::time_point m_lastPrint;
    std::chrono::steady_clock::time_point m_started; ///< wall clock at Start()
};

} // namespace ns3

#endif // METAROCE_FABRIC_MONITOR_H
