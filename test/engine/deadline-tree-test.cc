// DeadlineTree (engine/common/deadline-tree.h): the earliest deadline and the slots due by a
// time, against a plain array for random updates.
#include "deadline-tree.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace metaroce
{
namespace
{

TEST(DeadlineTree, EmptyAndSingleSlot)
{
    DeadlineTree none(0);
    EXPECT_EQ(none.Min(), kNever);
    DeadlineTree one(1);
    EXPECT_EQ(one.Min(), kNever);
    one.Set(0, 42);
    EXPECT_EQ(one.Min(), 42u);
    std::vector<std::size_t> due;
    one.ForEachAtMost(42, [&](std::size_t s) { due.push_back(s); });
    EXPECT_EQ(due, std::vector<std::size_t>{0});
    one.Set(0, kNever);
    EXPECT_EQ(one.Min(), kNever);
}

TEST(DeadlineTree, AgreesWithAnArrayUnderRandomUpdates)
{
    for (std::size_t slots : {2u, 7u, 64u, 100u})
    {
        DeadlineTree tree(slots);
        std::vector<TimeNs> plain(slots, kNever);
        std::mt19937_64 rng(slots);
        for (int step = 0; step < 5000; ++step)
        {
            const std::size_t slot = rng() % slots;
            // Mostly small values so that ties happen; sometimes kNever.
            const TimeNs at = rng() % 5 == 0 ? kNever : rng() % 50;
            tree.Set(slot, at);
            plain[slot] = at;
            ASSERT_EQ(tree.Min(), *std::min_element(plain.begin(), plain.end()));
            ASSERT_EQ(tree.Get(slot), at);
            const TimeNs limit = rng() % 60;
            std::vector<std::size_t> want;
            for (std::size_t s = 0; s < slots; ++s)
            {
                if (plain[s] <= limit)
                {
                    want.push_back(s);
                }
            }
            std::vector<std::size_t> got;
            tree.ForEachAtMost(limit, [&](std::size_t s) { got.push_back(s); });
            ASSERT_EQ(got, want) << "slots " << slots << " step " << step << " limit " << limit;
        }
    }
}

} // namespace
} // namespace metaroce
