#include "spurious-loss.h"

#include <algorithm>

namespace metaroce
{

LossSettlement
SettleLoss(const LostPacket& loss, const AckCoverage& ack)
{
    const uint64_t psn = loss.packet.psn;
    const bool sacked = ack.Sacked(psn);
    if (!sacked && psn >= ack.cumulative)
    {
        return LossSettlement::Open;
    }
    // Below the cumulative point the PSN arrived, or the receiver skipped it on seeing a floor
    // past it, which only PSNs from nextPsnAtLoss on carry (spec 5.7).
    const bool noLaterArrived =
        ack.cumulative <= loss.nextPsnAtLoss && ack.NoneSackedFrom(loss.nextPsnAtLoss);
    return sacked || noLaterArrived ? LossSettlement::Spurious : LossSettlement::Confirmed;
}

void
UndoLossCut(Path& path)
{
    if (path.undoWindow > 0)
    {
        path.window.window = std::max(path.window.window, path.undoWindow);
        path.window.Clamp();
        path.undoWindow = 0;
    }
}

} // namespace metaroce
