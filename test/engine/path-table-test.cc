// A connection's paths made on first use (path-table.h): unused paths cost no Path, and making
// them in any order changes nothing a connection with every path made would do.
#include "metaroce-config.h"
#include "metaroce-wire.h"
#include "path-recovery.h"
#include "path-table.h"

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
    config.pathsPerPort = 4;
    config.entropyCount = 60000;
    return config;
}

TEST(PathTable, NothingIsMadeUntilUsed)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    PathRecovery recovery(config, counters, IdsOf(config));
    PathTable paths(config, 0);
    EXPECT_TRUE(paths.IsEmpty());
    paths.Make(recovery);
    EXPECT_EQ(paths.Count(), 8u);
    EXPECT_EQ(paths.MadeCount(), 0u);
    EXPECT_EQ(paths.Find(5), nullptr);
    EXPECT_THROW(static_cast<const PathTable&>(paths)[5], std::out_of_range);
    EXPECT_TRUE(paths.HasRoom(5, 4096, config.maxPathWindowPackets)) << "an unused path is empty";
    EXPECT_FALSE(paths.HasRoom(5, 4096, 0));
    Path& made = paths[5];
    EXPECT_EQ(paths.MadeCount(), 1u);
    EXPECT_EQ(paths.Find(5), &made);
    EXPECT_EQ(made.id, 5);
    EXPECT_EQ(made.port, 1);
    EXPECT_EQ(paths.PortOf(5), 1);
    EXPECT_EQ(made.health, PathHealth::Up);
    EXPECT_EQ(made.rtt.Smoothed(), config.initialRttNs);
    const double mtu = config.mtu + kMrWriteHeaderSize;
    EXPECT_EQ(made.window.window, mtu * config.initialPathWindowPackets);
    EXPECT_EQ(made.window.minWindow, mtu);
    EXPECT_EQ(made.window.maxWindow, mtu * config.maxPathWindowPackets);
}

TEST(PathTable, EntropiesAreTheFirstDrawsInPathOrderWhateverIsMadeFirst)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    PathRecovery reference(config, counters, IdsOf(config));
    PathRecovery recovery(config, counters, IdsOf(config));
    PathTable paths(config, 0);
    paths.Make(recovery);
    for (uint16_t id : {6, 1, 7, 0, 3, 2, 5, 4})
    {
        const Path& made = paths[id];
        EXPECT_EQ(paths.Find(id), &made) << "making others moves no path";
    }
    uint16_t id = 0;
    for (const Path& made : paths.Made())
    {
        EXPECT_EQ(made.id, id++) << "Made() lists paths in path order";
        EXPECT_EQ(made.entropy, reference.DrawEntropy());
    }
    EXPECT_EQ(id, 8);
    EXPECT_EQ(recovery.DrawEntropy(), reference.DrawEntropy()) << "re-draws continue after them";
}

TEST(PathTable, MadeSkipsUnusedPaths)
{
    const MetaRoceConfig config = TwoPortsOfFour();
    Counters counters;
    PathRecovery recovery(config, counters, IdsOf(config));
    PathTable paths(config, 0);
    paths.Make(recovery);
    paths[2];
    paths[7];
    std::vector<uint16_t> ids;
    for (const Path& made : paths.Made())
    {
        ids.push_back(made.id);
    }
    EXPECT_EQ(ids, (std::vector<uint16_t>{2, 7}));
}

} // namespace
} // namespace metaroce
