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
     * with `progress`, prints a progress line on stderr every few wall-clock seconds.
     */
    void Start(Time start, Time interval, bool progress, std::function<bool()> done);

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
    bool m_progress{false};
    std::function<bool()> m_done;
    std::chrono::steady_clock::time_point m_lastPrint;
};

} // namespace ns3

#endif // METAROCE_FABRIC_MONITOR_H
