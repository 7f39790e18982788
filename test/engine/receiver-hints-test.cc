// A NIC's fair share and admission target, read by its connections (receiver-hints.h): a
// connection takes them only once they are set after it was made, as when the NIC wrote them
// into the connections it had at each update.
#include "metaroce-connection.h"
#include "receiver-hints.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

TEST(ReceiverHints, AViewTakesOnlyWhatIsSetAfterItWasMade)
{
    ReceiverHints hints;
    hints.SetFairShare(10);
    const ReceiverHintsView early(&hints);
    EXPECT_FALSE(early.FairShare().has_value()) << "set before the view: not for it";
    EXPECT_FALSE(early.AdmissionTarget().has_value());
    hints.SetFairShare(20);
    hints.SetAdmissionTarget(4096);
    EXPECT_EQ(early.FairShare(), 20u);
    EXPECT_EQ(early.AdmissionTarget(), 4096u);
    const ReceiverHintsView late(&hints);
    EXPECT_FALSE(late.FairShare().has_value());
    hints.SetAdmissionTarget(0);
    EXPECT_EQ(late.AdmissionTarget(), 0u) << "0 (no admission) is a number like any other";
    EXPECT_FALSE(ReceiverHintsView(nullptr).FairShare().has_value());
}

TEST(ReceiverHints, AConnectionsResponderReadsThemOnceSetOverItsOwn)
{
    MetaRoceConfig config;
    config.localConnection = 1;
    config.remoteConnection = 2;
    MetaRoceConnection c(config);
    ReceiverHints hints;
    hints.SetFairShare(7);
    c.ShareReceiverHints(&hints);
    c.SetFairShare(5);
    EXPECT_EQ(c.Responder().FairShare(), 5u) << "the NIC's 7 was set before the connection";
    hints.SetFairShare(9);
    EXPECT_EQ(c.Responder().FairShare(), 9u);
    c.SetAdmissionTarget(3000);
    EXPECT_EQ(c.Responder().AdmissionTarget(), 3000u);
    hints.SetAdmissionTarget(8000);
    EXPECT_EQ(c.Responder().AdmissionTarget(), 8000u);
    c.ShareReceiverHints(nullptr);
    EXPECT_EQ(c.Responder().FairShare(), 5u) << "no hints: its own again";
}

} // namespace
} // namespace metaroce
