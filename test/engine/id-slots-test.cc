// IdSlots: values under consecutive ids, removed in any order (engine/common/id-slots.h).
#include "id-slots.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace metaroce
{
namespace
{

TEST(IdSlots, FindsWhatWasAddedAndNothingElse)
{
    IdSlots<std::string> s;
    EXPECT_TRUE(s.Empty());
    EXPECT_EQ(s.Find(0), nullptr);
    s.Add(0, "a");
    s.Add(1, "b");
    s.Add(2, "c");
    EXPECT_EQ(s.Size(), 3u);
    ASSERT_NE(s.Find(1), nullptr);
    EXPECT_EQ(*s.Find(1), "b");
    EXPECT_EQ(s.Find(3), nullptr) << "not yet added";
    *s.Find(2) = "C";
    EXPECT_EQ(*s.Find(2), "C");
}

TEST(IdSlots, ARemovalBeforeOlderIdsLeavesAHoleUntilTheyGo)
{
    IdSlots<int> s;
    for (uint64_t id = 0; id < 4; ++id)
    {
        s.Add(id, static_cast<int>(10 * id));
    }
    s.Erase(2);
    EXPECT_EQ(s.Find(2), nullptr);
    EXPECT_EQ(s.Size(), 3u);
    s.Erase(2); // twice: nothing
    EXPECT_EQ(s.Size(), 3u);
    s.Erase(0);
    s.Erase(1); // the hole at 2 goes with them
    EXPECT_EQ(s.Find(1), nullptr);
    ASSERT_NE(s.Find(3), nullptr);
    EXPECT_EQ(*s.Find(3), 30);
    s.Add(4, 40);
    std::vector<uint64_t> ids;
    s.ForEach([&](uint64_t id, int value) {
        ids.push_back(id);
        EXPECT_EQ(value, static_cast<int>(10 * id));
    });
    EXPECT_EQ(ids, (std::vector<uint64_t>{3, 4})) << "oldest first, holes skipped";
}

TEST(IdSlots, IdsComeInOrderAndStartAnywhereWhenEmpty)
{
    IdSlots<int> s;
    s.Add(7, 1);
    EXPECT_THROW(s.Add(9, 2), std::invalid_argument) << "8 comes first";
    EXPECT_THROW(s.Add(7, 2), std::invalid_argument) << "7 is held";
    s.Erase(7);
    EXPECT_TRUE(s.Empty());
    s.Add(12, 3); // empty again: any id
    EXPECT_EQ(*s.Find(12), 3);
    EXPECT_EQ(s.Find(7), nullptr);
}

TEST(IdSlots, ValuesSurviveTheRingGrowing)
{
    IdSlots<std::vector<int>> s;
    for (uint64_t id = 0; id < 100; ++id)
    {
        s.Add(id, std::vector<int>(3, static_cast<int>(id)));
        if (id % 3 == 0)
        {
            s.Erase(id / 2);
        }
    }
    for (uint64_t id = 50; id < 100; ++id)
    {
        ASSERT_NE(s.Find(id), nullptr) << id;
        EXPECT_EQ(s.Find(id)->at(2), static_cast<int>(id));
    }
}

} // namespace
} // namespace metaroce
