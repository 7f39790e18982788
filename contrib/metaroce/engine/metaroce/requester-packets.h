/*
 * The packets a requester sends (spec 5.2, 5.4), built from its state without changing it:
 * DATA for one packet of a message, with its own placement (offset, remote address) so that it
 * lands in final memory on arrival, and PROBE. The requester records them as sent.
 */
#ifndef METAROCE_ENGINE_REQUESTER_PACKETS_H
#define METAROCE_ENGINE_REQUESTER_PACKETS_H

#include "../common/engine-memory.h"
#include "metaroce-config.h"
#include "metaroce-flow.h"
#include "metaroce-wire.h"
#include "send-queue.h"

namespace metaroce
{

/**
 * DATA for packet `index` (of `payloadBytes`) of `m` on `flow`, under the flow's next FSN, to
 * the peer's connection `destination`.
 * With a local key the payload is read from `memory` (left virtual when that fails). `retx`
 * marks a retransmission, which asks for an immediate ACK, as the last packet does, and as
 * `askAck` does for any other (a lone packet, spec 4.2).
 */
OutPacket MakeDataPacket(const MetaRoceConfig& config,
                         uint32_t destination,
                         MemoryRegistry* memory,
                         const Flow& flow,
                         const SendQueue::Message& m,
                         uint32_t index,
                         uint32_t payloadBytes,
                         bool retx,
                         TimeNs now,
                         bool askAck);

/// A PROBE to the peer's connection `destination` on `flow` under its next FSN (control
/// class). `ackRequest`: ACKREQ, asking for an immediate ACK, as a Down flow's probe does; a
/// tail marker does not (spec 4.5, 4.2).
OutPacket MakeProbePacket(uint32_t destination,
                          const Flow& flow,
                          TimeNs now,
                          bool ackRequest = true);

} // namespace metaroce

#endif // METAROCE_ENGINE_REQUESTER_PACKETS_H
