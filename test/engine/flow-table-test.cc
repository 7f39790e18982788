// A connection's flows made on first use (flow-table.h): unused flows cost no Flow, and making
// them in any order changes nothing a connection with every flow made would do.
#include "metaroce-config.h"
#include "metaroce-wire.h"
#include "flow-recovery.h"
#include "flow-table.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace metaroce
{
namespace
{

MetaRoceConfig
TwoPortsOfFour()
{
    MetaRoceConfig config;
    config.ports = 2;
    config.flowsPerPort = 4;
    config.entropyCount = 60000;
    return config;
}

TEST(FlowTable, NothingIsMadeUntilUsed)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    FlowRecovery recovery(config, counters, IdsOf(config));
    FlowTable flows(config, 0);
    EXPECT_TRUE(flows.IsEmpty());
    flows.Make(recovery);
    EXPECT_EQ(flows.Count(), 8u);
    EXPECT_EQ(flows.MadeCount(), 0u);
    EXPECT_EQ(flows.Find(5), nullptr);
    EXPECT_THROW(static_cast<const FlowTable&>(flows)[5], std::out_of_range);
    EXPECT_TRUE(flows.HasRoom(5, 4096, config.maxFlowWindowPackets)) << "an unused flow is empty";
    EXPECT_FALSE(flows.HasRoom(5, 4096, 0));
    Flow& made = flows[5];
    EXPECT_EQ(flows.MadeCount(), 1u);
    EXPECT_EQ(flows.Find(5), &made);
    EXPECT_EQ(made.id, 5);
    EXPECT_EQ(made.port, 1);
    EXPECT_EQ(flows.PortOf(5), 1);
    EXPECT_EQ(made.health, FlowHealth::Up);
    EXPECT_EQ(made.rtt.Smoothed(), config.initialRttNs);
    const double mtu = config.mtu + kMrWriteHeaderSize;
    EXPECT_EQ(made.window.window, mtu * config.initialFlowWindowPackets);
    EXPECT_EQ(made.window.minWindow, mtu);
    EXPECT_EQ(made.window.maxWindow, mtu * config.maxFlowWindowPackets);
}

TEST(FlowTable, EntropiesAreTheFirstDrawsInFlowOrderWhateverIsMadeFirst)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    FlowRecovery reference(config, counters, IdsOf(config));
    FlowRecovery recovery(config, counters, IdsOf(config));
    FlowTable flows(config, 0);
    flows.Make(recovery);
    for (uint16_t id : {6, 1, 7, 0, 3, 2, 5, 4})
    {
        const Flow& made = flows[id];
        EXPECT_EQ(flows.Find(id), &made) << "making others moves no flow";
    }
    uint16_t id = 0;
    for (const Flow& made : flows.Made())
    {
        EXPECT_EQ(made.id, id++) << "Made() lists flows in flow order";
        EXPECT_EQ(made.entropy, reference.DrawEntropy());
    }
    EXPECT_EQ(id, 8);
    EXPECT_EQ(recovery.DrawEntropy(), reference.DrawEntropy()) << "re-draws continue after them";
}

TEST(FlowTable, MadeSkipsUnusedFlows)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    FlowRecovery recovery(config, counters, IdsOf(config));
    FlowTable flows(config, 0);
    flows.Make(recovery);
    flows[2];
    flows[7];
    std::vector<uint16_t> ids;
    for (const Flow& made : flows.Made())
    {
        ids.push_back(made.id);
    }
    EXPECT_EQ(ids, (std::vector<uint16_t>{2, 7}));
}

} // namespace
} // namespace metaroce
