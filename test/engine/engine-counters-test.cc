// Unit tests of the counter list and the drop reason tables: every name is spelled once, every
// counter is summed, and the tables answer the lookups their users make.
#include "engine-counters.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace metaroce
{
namespace
{

template<typename Table>
void
ExpectUniqueNames(const Table& table)
{
    std::set<std::string> names;
    std::set<std::string> specNames;
    for (const auto& row : table)
    {
        EXPECT_TRUE(names.insert(row.name).second) << row.name;
        if (row.specName != nullptr)
        {
            EXPECT_TRUE(specNames.insert(row.specName).second) << row.specName;
        }
        EXPECT_NE(std::string(row.meaning), "");
    }
}

TEST(DropReasons, NamesAreUniqueAndFoundBack)
{
    ExpectUniqueNames(kDropReasons);
    ExpectUniqueNames(kNicDropReasons);
    for (const auto& row : kDropReasons)
    {
        EXPECT_EQ(DropReasonBySpecName(row.specName), row.reason);
        EXPECT_EQ(FindReason(kDropReasons, row.name), &row);
    }
    EXPECT_STREQ(DropReasonName(DropReason::FsnOutOfWindow), "fsn-out-of-window");
    EXPECT_STREQ(DropReasonName(DropReason::Count), "?");
    EXPECT_EQ(DropReasonBySpecName("fsn-out-of-window"), std::nullopt);
}

TEST(DropReasons, NicReasonsNameTheRefusalTheyAmountTo)
{
    EXPECT_STREQ(NicDropReasonName(NicDropReason::UnknownDestination), "unknown-destination");
    EXPECT_EQ(DropReasonBySpecName(kNicDropReasons[size_t(NicDropReason::PortDown)].specName),
              DropReason::PortDown);
    EXPECT_EQ(kNicDropReasons[size_t(NicDropReason::NotUdp)].specName, nullptr);
}

TEST(Counters, EveryFieldIsListedOnceAndSummed)
{
    Counters a;
    Counters b;
    uint64_t v = 1;
    std::set<std::string> names;
    for (const CounterField& field : kCounterFields)
    {
        EXPECT_TRUE(names.insert(field.name).second) << field.name;
        EXPECT_EQ(a.*field.member, 0u) << field.name << " listed twice";
        a.*field.member = v;
        b.*field.member = 100 * v++;
    }
    a.CountDrop(DropReason::Duplicate);
    b.CountDrop(DropReason::Duplicate);
    b.CountDrop(DropReason::PortDown);
    a += b;
    v = 1;
    for (const CounterField& field : kCounterFields)
    {
        EXPECT_EQ(a.*field.member, 101 * v++) << field.name;
    }
    EXPECT_EQ(a.Drops(DropReason::Duplicate), 2u);
    EXPECT_EQ(a.Drops(DropReason::PortDown), 1u);
    EXPECT_EQ(a.TotalDrops(), 3u);
}

} // namespace
} // namespace metaroce
