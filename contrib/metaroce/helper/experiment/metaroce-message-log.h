/*
 * MetaRoceMessageLog: the messages a workload's applications report (their "Message" or
 * "Flow" trace), each with its ideal time on the idle fabric, as the rows of
 * <prefix>-flows.csv (doc/results-schema.md).
 */
#ifndef METAROCE_MESSAGE_LOG_H
#define METAROCE_MESSAGE_LOG_H

#include "ns3/metaroce-experiment-config.h"
#include "ns3/metaroce-results.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Records completed messages and their ideal (unloaded fabric) times.
 */
class MetaRoceMessageLog
{
  public:
    /**
     * \param config the experiment: its topology shape and link delays
     * \param hostBps the host link rate
     * \param mtuBytes the NIC's Mtu attribute: the largest packet a switch stores and forwards
     */
    MetaRoceMessageLog(const MetaRoceExperimentConfig& config, double hostBps, uint32_t mtuBytes);

    /// Trace sink of the applications' Message and Flow traces.
    void OnMessage(uint32_t src, uint32_t dst, uint64_t bytes, Time posted, Time completed);

    /**
     * The unloaded fabric's time for a message: propagation over the path, store-and-forward
     * of one packet (at most the Mtu) at every switch, and the bytes at the NIC's full rate
     * (all planes).
     */
    double IdealUs(uint32_t src, uint32_t dst, uint64_t bytes) const;

    /**
     * The records so far, sorted by start, source, destination, end and size; empties the log.
     * In a distributed run every rank must call it: each rank logs the messages of its own
     * applications, and every rank gets the records of all.
     */
    std::vector<MetaRoceFlowRecord> TakeSorted();

  private:
    /// IdealUs in a rail fabric: intra-server link, then the destination's rail.
    double RailIdealUs(uint32_t src, uint32_t dst, uint64_t bytes) const;

    /// Every rank's `local` records (one rank: `local`).
    static std::vector<MetaRoceFlowRecord> Gather(std::vector<MetaRoceFlowRecord> local);

    std::vector<MetaRoceFlowRecord> m_records;
    uint32_t m_hostsPerLeaf;
    uint32_t m_leavesPerPod; ///< 0: leaf-spine, a single pod
    uint32_t m_railGpus;     ///< 0: not a rail fabric
    double m_serverDelayUs;
    double m_serverBps;
    double m_coreDelayUs;
    uint32_t m_planes;
    double m_hostDelayUs;
    double m_fabricDelayUs;
    double m_hostBps;
    uint64_t m_mtuBytes;
};

} // namespace ns3

#endif // METAROCE_MESSAGE_LOG_H
