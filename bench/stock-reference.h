// The stock-ns-3 reference of the simulation-speed benchmark: the packets a MetaRoCE (or RoCEv2)
// run put on the hosts' links, replayed at the same times and sizes over stock
// PointToPointNetDevices wired in the same multi-plane leaf-spine shape, with the least
// forwarding an ns-3 user would write and no transport at all.
//
// Why this reference: metaroce's NIC and switch sit directly on device receive callbacks (no
// Internet stack, no traffic-control layer), so the cost of a hop that no model built on stock
// devices can avoid is the device, the channel, the device queue, the scheduler
// and the Packet, plus a header read and a table lookup per switch. That is what this measures.
// An Internet-stack reference (Ipv4L3Protocol forwarding, global routing, queue discs, UDP
// sockets) would add costs metaroce does not have and flatter the ratio.
//
// Each host sends its recorded packets (one event per packet, chained, at the recorded transmit
// start) to its peer, each with an Ipv4Header carrying the addresses (10.p.l.(i+1), as the
// fabric helper numbers them). A leaf reads the destination: a host of its own goes down, any
// other goes up to the next spine in round robin (per-packet spraying, as ns-3's
// RandomEcmpRouting does, but deterministic); a spine sends down to the destination's leaf.
// Device queues are deep enough that nothing is dropped, so every packet makes all its hops.
#ifndef METAROCE_BENCH_STOCK_REFERENCE_H
#define METAROCE_BENCH_STOCK_REFERENCE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace metaroce_bench
{

/// One packet as a host port put it on the wire: transmit start, size (PPP header included)
/// and IPv4 destination (the reference numbers hosts as the model's fabric does).
struct WirePacket
{
    ns3::Time at;
    uint32_t bytes;
    uint32_t destination;
};

/// Every packet of one host port, in order.
using PortTrace = std::vector<WirePacket>;

/// The fabric shape the reference rebuilds.
struct StockShape
{
    uint32_t hosts;
    uint32_t planes;
    uint32_t hostsPerLeaf;
    uint32_t spines;
    ns3::DataRate rate; ///< every link
    ns3::Time delay;    ///< every link
};

/// What one Simulator::Run() cost.
struct RunFigures
{
    double wallSeconds{0};
    double cpuSeconds{0};
    uint64_t packets{0};
    uint64_t packetHops{0};
    uint64_t events{0};
    uint64_t allocations{0};
};

/**
 * Builds the stock fabric, replays `traces` ([host][plane]) with every packet addressed where
 * the model's was, runs the simulation and destroys it. Aborts if a packet is lost.
 */
RunFigures RunStockReference(const StockShape& shape,
                             const std::vector<std::vector<PortTrace>>& traces);

/// Seconds of CPU (user and system) this process has used so far.
double CpuSeconds();

} // namespace metaroce_bench

#endif // METAROCE_BENCH_STOCK_REFERENCE_H
