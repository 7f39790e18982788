#include "spurious-loss.h"

#include <algorithm>

namespace metaroce
{

LossSettlement
SettleLoss(const LostPacket& loss, const AckCoverage& ack)
{
    const uint64_t fsn = loss.packet.fsn;
    const bool sacked = ack.Sacked(fsn);
    if (!sacked && fsn >= ack.cumulative)
    {
        return LossSettlement::Open;
    }
    // Below the cumulative point the FSN arrived, or the receiver skipped it on seeing a floor
    // past it, which only FSNs from nextFsnAtLoss on carry (spec 7.5).
    const bool noLaterArrived =
        ack.cumulative <= loss.nextFsnAtLoss && ack.NoneSackedFrom(loss.nextFsnAtLoss);
    return sacked || noLaterArrived ? LossSettlement::Spurious : LossSettlement::Confirmed;
}

void
UndoLossCut(Flow& flow)
{
    if (flow.undoWindow > 0)
    {
        flow.window.window = std::max(flow.window.window, flow.undoWindow);
        flow.window.Clamp();
        flow.undoWindow = 0;
    }
}

} // namespace metaroce
