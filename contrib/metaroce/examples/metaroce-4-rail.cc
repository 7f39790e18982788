/*
 * MetaRoCE against RoCEv2 on a 4-rail rail-optimized fabric, beside metaroce-4-plane: the same
 * comparison (collectives with and without loss) on the fabric AI clusters build around
 * servers of GPUs.
 *
 * 16 GPUs in 4 servers of 4. GPU g of every server has its NIC on rail g's leaf; two servers
 * share a set of 4 rail leaves (a group), and 2 spines join the 8 leaves. Inside a server the
 * GPUs and NICs meet on a 900 Gb/s intra-server (NVLink-like) switch: traffic to GPU g of
 * another server crosses it to the NIC of rail g and stays on rail g (doc: the module docs,
 * "Rail-optimized fabrics").
 *
 *   ./metaroce-4-rail
 *   ./metaroce-4-rail --workloads=alltoall --transports=metaroce,rocev2-pfc --losses=0,0.0025
 *   ./metaroce-4-rail --serverRate=3600Gbps --hostRate=400Gbps --fabricRate=400Gbps
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
    config.topology = "rail";
    config.hosts = 16;
    config.railGpus = 4;
    config.planes = 1;
    config.hostsPerLeaf = 2; // servers per rail leaf
    config.spines = 2;
    config.messageBytes = 4 << 20;
    return RunComparisonMain(argc, argv, "metaroce-4-rail", config);
}
