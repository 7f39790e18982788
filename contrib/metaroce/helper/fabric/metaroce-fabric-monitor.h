/*
 * MetaRoceFabricMonitor: counts what crosses every link of a fabric (both directions), what the
 * receiving end lost, and the payload delivered to the hosts over time.
 *
 * It hooks the point-to-point devices' PhyTxEnd and PhyRxDrop trace sources (a packet dropped by
 * a receive error model - random loss or a failed link - is counted against the direction it
 * was travelling) and samples the queue pairs' placed-byte counters at a fixed interval. The
 * sampling events only read state, so a monitored run keeps the same results as one without.
 */
#ifndef METAROCE_FABRIC_MONITOR_H
#define METAROCE_FABRIC_MONITOR_H

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
     * Samples delivered bytes every `interval` from `start` until `done()` returns true, and,
     * when `progress` is set, prints a progress line on stderr every few wall-clock seconds:
     * simulated time, delivered bytes, wall time and, from `progress()` (the fraction of the
     * workload done, in [0, 1]), the share done and an estimate of the wall time left.
     */
    void Start(Time start,
               Time interval,
               std::function<double()> progress,
               std::function<bool()> done);

    /// Payload placed in host memory so far, over all hosts.
    uint64_t DeliveredBytes() const;

    /// The link records, utilisation computed over `duration`.
    std::vector<MetaRoceLinkRecord> GetLinks(Time duration) const;
    /// Per-plane totals of `links`, with switch drops and PFC pauses.
    std::vector<MetaRocePlaneRecord> GetPlanes(const std::vector<MetaRoceLinkRecord>& links) const;
    const std::vector<MetaRoceThroughputSample>& GetThroughput() const;
    /// Per host and interval: bytes sent and delivered.
    const std::vector<MetaRoceHostSample>& GetHostThroughput() const;
    /// Packets transmitted over all links.
    uint64_t GetPacketHops() const;

  private:
    /// One progress line on stderr: `delivered` bytes after `wallSeconds` of wall time.
    void PrintProgress(uint64_t delivered, double wallSeconds) const;

    /// One direction of one link.
    struct Direction
    {
        MetaRoceLinkRecord record;
        uint64_t rateBps{0};
    };

    void AddLink(Ptr<PointToPointNetDevice> a,
                 Ptr<PointToPointNetDevice> b,
                 uint32_t plane,
                 const std::string& tierAB,
                 const std::string& tierBA,
                 const std::string& labelA,
                 const std::string& labelB);
    /// The index of `nic`'s host.
    uint32_t HostOf(Ptr<MetaRoceNic> nic) const;
    void OnTx(std::size_t direction, Ptr<const Packet> packet);
    void OnLost(std::size_t direction, Ptr<const Packet> packet);
    void Sample();

    const MetaRoceFabricHelper& m_fabric;
    std::vector<Direction> m_directions;
    std::vector<MetaRoceThroughputSample> m_samples;
    std::vector<MetaRoceHostSample> m_hostSamples;
    std::vector<std::pair<uint64_t, uint64_t>> m_lastHost; ///< per host: (tx, delivered) so far
    Time m_interval;
    uint64_t m_lastDelivered{0};
    std::function<double()> m_progress; ///< empty: no progress lines
    std::function<bool()> m_done;
    std::chrono::steady_clock::time_point m_lastPrint;
    std::chrono::steady_clock::time_point m_started; ///< wall clock at Start()
};

} // namespace ns3

#endif // METAROCE_FABRIC_MONITOR_H
