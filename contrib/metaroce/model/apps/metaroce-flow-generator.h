/*
 * MetaRoceFlowGenerator: a host that starts flows (RDMA WRITEs) of random sizes to random
 * other hosts at Poisson arrival times - the datacenter-workload model of pFabric, HPCC and
 * their successors. Sizes come from any RandomVariableStream, usually an
 * EmpiricalRandomVariable loaded from a CDF file (ReadFlowSizeCdf()); the mean inter-arrival time
 * is set from the offered load: mean size x 8 / (Load x line rate x ports).
 *
 * By default connections are opened before the run, one per destination (MetaRoCE, flows on
 * streams in turn so that one slow flow does not hold the next behind it) or one per destination
 * and plane (RoCEv2, flows on planes in turn): a flow may wait behind an earlier one to the same
 * host. With QueuePairPerFlow each flow opens its own connection or queue pair when it starts
 * (as HPCC's simulator and most flow studies do), released with its state when it completes.
 */
#ifndef METAROCE_FLOW_GENERATOR_H
#define METAROCE_FLOW_GENERATOR_H

#include "ns3/application.h"
#include "ns3/engine-types.h"
#include "ns3/event-id.h"
#include "ns3/metaroce-arrivals.h"
#include "ns3/metaroce-flow-size-cdf.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-queue-pair.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * Reads a flow-size distribution: one "bytes cumulative-probability" pair per line ('#' starts
 * a comment), sizes and probabilities non-decreasing, the last probability 1. Throws
 * std::invalid_argument naming the file and line on anything else.
 */
MetaRoceFlowSizeCdf ReadFlowSizeCdf(const std::string& path);

/**
 * \ingroup metaroce
 * A random variable drawing flow sizes from `cdf` (an EmpiricalRandomVariable interpolating
 * between its points); each MetaRoceFlowGenerator needs its own.
 */
Ptr<EmpiricalRandomVariable> MakeFlowSizeVariable(const MetaRoceFlowSizeCdf& cdf);

/**
 * \ingroup metaroce
 * \brief Starts flows of random sizes to random hosts at Poisson arrival times.
 *
 * The flows are drawn, and their queue pairs connected, before the run (Plan()), from the
 * generator's own random streams: the same flows whatever the other hosts do, and in a
 * distributed run both ends of every connection exist on every rank before the first packet.
 */
class MetaRoceFlowGenerator : public Application
{
  public:
    static TypeId GetTypeId();
    MetaRoceFlowGenerator();
    ~MetaRoceFlowGenerator() override;

    /**
     * The hosts (this one included, at index `self`) flows may go to, the transport, and the
     * flow-size distribution (this generator's own variable: AssignStreams() gives it a stream)
     * with its mean (for the arrival rate).
     */
    void Setup(const std::vector<Ptr<MetaRoceNic>>& hosts,
               uint32_t self,
               metaroce::Transport transport,
               Ptr<RandomVariableStream> sizes,
               double meanBytes);

    /// Flows started and completed so far.
    uint64_t GetStarted() const;
    uint64_t GetCompleted() const;
    /// Every flow started (the configured number) and completed.
    bool IsFinished() const;
    /// Assigns random streams (arrivals, destinations, sizes); returns the number used.
    int64_t AssignStreams(int64_t stream);
    /**
     * Draws every flow (arrival gap, destination, size) and connects a queue pair for every
     * destination and plane they use (with QueuePairPerFlow, none: each flow connects its own).
     * Call after Setup(), the attributes and AssignStreams(), before the run; in a distributed run,
     * on every rank (an experiment's workload does). StartApplication() plans a generator that was
     * not.
     */
    void Plan();

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;
    void StartFlow();
    /// The line rate of the host's NIC, all ports.
    double LineBps() const;
    Ptr<MetaRoceQueuePair> QueuePairTo(uint32_t dst, uint32_t plane);
    /// QueuePairPerFlow: a new connection or queue pair to `dst` on `plane`, for one flow.
    Ptr<MetaRoceQueuePair> ConnectFlow(uint32_t dst, uint32_t plane);
    /// QueuePairPerFlow: releases both ends of a completed flow's queue pair.
    void ReleaseFlow(Ptr<MetaRoceQueuePair> local, Ptr<MetaRoceQueuePair> remote);
    void OnCompletion(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c);

    /// A flow waiting for its completion, per queue pair in posting order.
    struct Flow
    {
        uint32_t dst;
        uint64_t bytes;
        Time start;
    };

    /// A flow drawn by Plan().
    struct PlannedFlow
    {
        Time gap; ///< after the previous flow's start (the first: after the application's)
        uint32_t dst;
        uint64_t bytes;
        uint32_t plane; ///< RoCEv2: its queue pair's plane (MetaRoCE sprays over all: 0)
    };

    double m_load;
    uint32_t m_maxFlows;
    bool m_qpPerFlow;
    std::vector<Ptr<MetaRoceNic>> m_hosts;
    uint32_t m_self{0};
    metaroce::Transport m_transport{metaroce::Transport::MetaRoce};
    Ptr<RandomVariableStream> m_sizes;
    double m_meanBytes{0};
    Ptr<ExponentialRandomVariable> m_interArrival;
    Ptr<UniformRandomVariable> m_destination;
    std::vector<PlannedFlow> m_plan;
    bool m_planned{false};
    std::map<std::pair<uint32_t, uint32_t>, Ptr<MetaRoceQueuePair>> m_qps;    ///< (dst, plane)
    std::map<std::pair<uint32_t, uint16_t>, metaroce::Ring<Flow>> m_inFlight; ///< (qp id, stream)
    /// QueuePairPerFlow: each open flow's remote end, by its local end's id
    std::map<uint32_t, Ptr<MetaRoceQueuePair>> m_flowPeers;
    uint64_t m_started{0};
    uint64_t m_completed{0};
    EventId m_next;
    Ptr<MetaRoceArrivals> m_arrivals; ///< the node's: each flow starts after its arrivals

    TracedCallback<uint32_t, uint32_t, uint64_t, Time, Time> m_flowTrace;
};

} // namespace ns3

#endif // METAROCE_FLOW_GENERATOR_H
