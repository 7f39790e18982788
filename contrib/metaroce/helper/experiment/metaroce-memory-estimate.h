/*
 * MetaRoceMemoryEstimate: about how much memory a run needs, counted in the objects whose
 * number a configuration can make huge (queue pairs, RECVs posted up front, messages, flows,
 * ports), each at a cost measured on this simulator, against the memory the machine has.
 * A run whose estimate does not fit is refused before anything is built, with the estimate and
 * the limit, instead of running until the machine runs out (doc/reliability.md, "Bad input").
 *
 * The costs are the lower ends of what was measured (peak resident memory over counts, on the
 * RelWithDebInfo build): the estimate errs low, so a run that fits is never refused; one
 * refused would have needed at least that much.
 */
#ifndef METAROCE_MEMORY_ESTIMATE_H
#define METAROCE_MEMORY_ESTIMATE_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Counts of a run's memory-hungry objects and what they need together.
 */
struct MetaRoceMemoryEstimate
{
    /// The process with nothing built yet (ns-3, the module, the allocator's arenas).
    static constexpr double kBaseBytes = 20e6;
    /// A NIC port with its link, device queues and the switch port at the other end.
    static constexpr double kHostPortBytes = 8e3;
    /// One end of a connection or queue pair with its engine (RoCEv2 measured 2.3 KB).
    static constexpr double kQueuePairBytes = 2e3;
    /// Each MetaRoCE stream a connection uses beyond the first (0.5 KB measured).
    static constexpr double kStreamBytes = 400;
    /// A RECV posted up front, with the application's record of it (85-250 B measured).
    static constexpr double kReceiveBytes = 80;
    /// A message's or flow's record (a row of -flows.csv, 56 B, and the trace's bookkeeping).
    static constexpr double kMessageBytes = 64;
    /// A packet whose state an engine keeps for a message posted up front (loopback).
    static constexpr double kPacketBytes = 2;

    double hostPorts{0};
    double queuePairs{0};
    double streams{0};
    double receives{0};
    double messages{0};
    double packets{0};

    /// The estimate, in bytes.
    double Bytes() const;

    /// "about 6.2 GiB: 4096 queue pairs, 52428800 receives posted up front, ..." (counts > 0).
    std::string Describe() const;

    /**
     * The memory a run may use: the machine's physical memory, or the control group's limit
     * (cgroup v2 memory.max) when lower. Environment variable METAROCE_MEMORY_LIMIT (bytes)
     * lowers it further, to try the refusal on a large machine.
     */
    static double AvailableBytes();

    /**
     * Throws std::invalid_argument "<what> needs about X GiB (...), more than the Y GiB of
     * memory this machine has" when Bytes() is above AvailableBytes().
     */
    void Check(const std::string& what) const;
};

} // namespace ns3

#endif // METAROCE_MEMORY_ESTIMATE_H
