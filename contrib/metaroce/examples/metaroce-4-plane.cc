/*
 * MetaRoCE against RoCEv2 on a 4-plane leaf-spine fabric: the announcement's validation set-up
 * (collectives on a multi-plane fabric, with and without loss) at a scale that runs in about a
 * minute on a laptop.
 *
 * Every host has one NIC with 4 ports, one per plane; each plane is its own leaf-spine network.
 * For each workload (ring all-reduce and all-to-all by default), each transport (MetaRoCE,
 * RoCEv2 without PFC, RoCEv2 with PFC) and each loss rate (random loss at every link end), the
 * example runs the collective and prints nccl-tests' algorithm and bus bandwidth, the share of
 * the lossless bus bandwidth kept, the p99 message completion time and the recovery work.
 *
 *   ./metaroce-4-plane
 *   ./metaroce-4-plane --hosts=64 --messageBytes=16777216 --losses=0,0.001,0.01,0.05
 *   ./metaroce-4-plane --workloads=allreduce-hd --transports=metaroce --output=run
 *
 * Every MetaRoceExperimentConfig field is an option (--help lists them); --output=PREFIX writes
 * each run's results (doc/results-schema.md) to PREFIX-<workload>-<transport>-loss<percent>.*.
 */
#include "ns3/metaroce-comparison.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    MetaRoceExperimentConfig config;
    config.hosts = 16;
    config.planes = 4;
    config.hostsPerLeaf = 8;
    config.spines = 4;
    config.messageBytes = 4 << 20;
    return RunComparisonMain(argc, argv, "metaroce-4-plane", config);
}
