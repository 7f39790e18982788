/*
 * The transports an experiment compares (MetaRoceExperimentConfig::transport): MetaRoCE and the
 * RoCEv2 baselines, each a name for one set-up of the NICs and switches, so that every table
 * says which baseline it beats (spec 10.7, doc/results.md):
 *
 *   metaroce        MetaRoCE, one connection per host pair sprayed over every plane;
 *   rocev2          RoCEv2 RC (go-back-N) with DCQCN as NICs run it (MetaRoceDcqcn's default
 *                   "nic" variant: NVIDIA ConnectX defaults), no PFC;
 *   rocev2-paper    the same with the DCQCN paper's algorithm and parameters (Variant=paper);
 *   rocev2-nocc     RoCEv2 with neither DCQCN nor PFC (ECMP collisions and the buffer only);
 *   rocev2-pfc      rocev2 (NIC-style DCQCN) with PFC on every switch;
 *   rocev2-meta400  RoCEv2 as Meta ran it at 400G (SIGCOMM 2024): PFC, no DCQCN, and QP
 *                   scaling - each connection's data striped over kMeta400QpsPerConnection
 *                   queue pairs per plane, each with its own UDP source port, so ECMP places
 *                   them apart (Meta hashed the destination QP; a per-QP source port gives ECMP
 *                   the same entropy). Meta's receiver-driven admission in the collective
 *                   library is not modelled.
 *
 * Random loss drops packets whatever the transport; PFC only prevents congestion drops.
 */
#ifndef METAROCE_TRANSPORTS_H
#define METAROCE_TRANSPORTS_H

#include "ns3/transport-engine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Queue pairs per connection and plane of rocev2-meta400 when --channels is 0: our choice
/// (Meta does not publish its number; NCCL's NCCL_IB_QPS_PER_CONNECTION defaults to 1).
constexpr uint32_t kMeta400QpsPerConnection = 4;

/**
 * \ingroup metaroce
 * \brief One transport of the experiment runner: the engine and how NICs and switches are set.
 */
struct MetaRoceTransportInfo
{
    const char* name;
    metaroce::Transport engine;
    bool pfc;                  ///< PfcEnabled on every switch
    const char* rateControl;   ///< the NICs' RoceRateControl (RoCEv2 only), or nullptr
    uint32_t channelsPerPlane; ///< channels per plane when --channels is 0
    const char* description;   ///< one line, for help texts and tables
};

/// Every transport, metaroce first.
const std::vector<MetaRoceTransportInfo>& MetaRoceTransports();

/// The transport called `name`, or nullptr.
const MetaRoceTransportInfo* FindMetaRoceTransport(const std::string& name);

/// The names, "metaroce, rocev2, ... or rocev2-meta400" (help texts and errors).
std::string MetaRoceTransportNames();

/// The channels a collective of `transport` uses: `channels`, or when it is 0 the transport's
/// channels per plane on each of `planes` (an unknown transport counts one per plane).
uint32_t MetaRoceChannels(const std::string& transport, uint32_t channels, uint32_t planes);

} // namespace ns3

#endif // METAROCE_TRANSPORTS_H
