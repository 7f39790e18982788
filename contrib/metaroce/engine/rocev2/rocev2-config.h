/*
 * Configuration of one RoCEv2 RC queue pair (spec: RoCEv2 baseline).
 *
 * Everything two real QPs agree on when they connect (QP numbers, starting PSNs, path MTU,
 * partition key, timeouts) is set here on both ends, mirroring the attributes of
 * ibv_modify_qp; the rest is NIC behaviour that real hardware hides in firmware (the window of
 * outstanding packets, ACK coalescing, DCQCN) and that experiments need to vary.
 */
#ifndef METAROCE_ENGINE_ROCEV2_CONFIG_H
#define METAROCE_ENGINE_ROCEV2_CONFIG_H

#include "../algorithms/dcqcn.h"
#include "../common/config-field.h"
#include "../common/engine-types.h"

#include <cstdint>

namespace metaroce
{

/// Parameters of one RoCEv2 queue pair. Validate() before use.
struct RoceV2Config
{
    uint32_t localQpn{2};         ///< this QP; 24-bit, 2..0xFFFFFE (0/1 are QP0/QP1, ~0 multicast)
    uint32_t remoteQpn{2};        ///< the connected QP at the other end
    uint16_t pKey{0xFFFF};        ///< partition key; both ends must use the same one
    uint32_t initialPsn{0};       ///< first PSN this QP sends (sq_psn), 24-bit
    uint32_t remoteInitialPsn{0}; ///< first PSN expected from the peer (rq_psn), 24-bit
    uint32_t mtu{4096};           ///< path MTU in payload bytes: 256, 512, 1024, 2048 or 4096
    uint32_t windowPackets{256};  ///< most packets sent and not yet acknowledged
    /// The responder acknowledges after this many in-order packets, and at once on AckReq or on
    /// the last packet of a message.
    uint32_t ackEveryPackets{4};
    /// Retransmission timeout before backoff. IB encodes it as 4.096 us * 2^n (local ACK timeout
    /// n); 1.048576 ms is n = 8. rdma-core's rc_pingpong uses n = 14 (67 ms): realistic, but
    /// it makes loss experiments very long, so every experiment sets its own.
    TimeNs rtoNs{1048576};
    /// Timeouts tolerated in a row before RetryExceeded (IB retry_cnt, 0..7). Each timeout
    /// doubles the next one.
    uint32_t retryLimit{7};
    /// RNR NAKs tolerated in a row (IB rnr_retry, 0..7; 7 means retry forever).
    uint32_t rnrRetryLimit{7};
    /// RNR timer code this QP's responder advertises (IB min_rnr_timer, 0..31; 12 = 0.64 ms,
    /// the value of rdma-core's rc_pingpong).
    uint32_t minRnrTimerCode{12};
    uint16_t port{0};           ///< the NIC port this QP is bound to
    uint16_t udpSrcPort{49152}; ///< fixed for the QP's life: one ECMP path (must be non-zero)
    uint64_t lineRateBps{100000000000}; ///< port rate: DCQCN's maximum and starting rate
    /// Bytes each packet adds below the UDP payload, for pacing: Ethernet 14 + FCS 4 + IPv4 20 +
    /// UDP 8. (Preamble and inter-frame gap excluded, as in ns-3's point-to-point links.)
    uint32_t frameOverheadBytes{46};
    DcqcnConfig dcqcn;

    /// Throws std::invalid_argument with a message naming the first bad field.
    void Validate() const;
};

/**
 * The tunables of RoceV2Config, one row each (config-field.h). Not in it: what the NIC sets
 * per queue pair (QP numbers, starting PSNs, port, UDP source port, line rate), the MTU (the
 * NIC's one Mtu serves both transports) and the DCQCN parameters (DcqcnConfigFields()).
 */
const ConfigFields<RoceV2Config>& RoceV2ConfigFields();

} // namespace metaroce

#endif // METAROCE_ENGINE_ROCEV2_CONFIG_H
