/*
 * Settling packets declared lost against a later ACK of their flow (spec 7.5): was the loss
 * spurious (the packet only late, or its ACK lost), and what a spurious loss gives back.
 *
 * A remembered loss is proven delivered when the ACK SACKs it, or when its FSN is below the
 * cumulative point while that point has not passed the flow's next FSN at the time of the loss
 * (L) and no SACK bit names a FSN from L on. The cumulative point passes a FSN when it arrived
 * or when the receiver saw a floor past it, and only FSNs from L on carry such a floor; when
 * none of them has arrived, the packet itself did. A covered loss not proven delivered was
 * real. A message must never complete on a guess, so there is no timestamp test here.
 */
#ifndef METAROCE_ENGINE_SPURIOUS_LOSS_H
#define METAROCE_ENGINE_SPURIOUS_LOSS_H

#include "ack-coverage.h"
#include "metaroce-flow.h"

namespace metaroce
{

/// What an ACK proves about a packet declared lost.
enum class LossSettlement : uint8_t
{
    Open,      ///< not covered yet: keep remembering it
    Spurious,  ///< proven delivered
    Confirmed, ///< covered without proof of delivery: truly lost, forget it
};

/// Settles `loss` against `ack`, an ACK of its flow.
LossSettlement SettleLoss(const LostPacket& loss, const AckCoverage& ack);

/// Gives back the flow window's last loss cut, if loss detection made it and no ECN cut or
/// timeout came since (spec 9.3).
void UndoLossCut(Flow& flow);

} // namespace metaroce

#endif // METAROCE_ENGINE_SPURIOUS_LOSS_H
