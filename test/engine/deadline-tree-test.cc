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
    for (std::size_t slots : {2u, 4u, 5u, 7u, 64u, 100u})
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
            const auto earliest = std::min_element(plain.begin(), plain.end());
            ASSERT_EQ(tree.Min(), *earliest);
            if (*earliest != kNever)
            {
                // The lowest slot of equal deadlines, in the short list and in the tree alike.
                ASSERT_EQ(tree.MinSlot(), static_cast<std::size_t>(earliest - plain.begin()));
            }
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

TEST(DeadlineTree, BuiltOnlyWhenAFifthSlotHasADeadline)
{
    DeadlineTree tree(64);
    for (std::size_t slot : {40u, 3u, 63u, 17u})
    {
        tree.Set(slot, 100 + slot);
    }
    tree.Set(3, kNever); // a slot without a deadline leaves the short list
    tree.Set(8, 7);
    tree.Set(17, 7);
    EXPECT_FALSE(tree.IsBuilt());
    EXPECT_EQ(tree.Min(), 7u);
    EXPECT_EQ(tree.MinSlot(), 8u);
    EXPECT_EQ(tree.Get(3), kNever);
    EXPECT_EQ(tree.Get(40), 140u);
    std::vector<std::size_t> due;
    tree.ForEachAtMost(140, [&](std::size_t s) { due.push_back(s); });
    EXPECT_EQ(due, (std::vector<std::size_t>{8, 17, 40}));
    due.clear();
    tree.ForEachAtMost(kNever, [&](std::size_t s) { due.push_back(s); });
    EXPECT_EQ(due, (std::vector<std::size_t>{8, 17, 40, 63}));

    tree.Set(0, 7);
    EXPECT_TRUE(tree.IsBuilt());
    EXPECT_EQ(tree.MinSlot(), 0u);
    due.clear();
    tree.ForEachAtMost(140, [&](std::size_t s) { due.push_back(s); });
    EXPECT_EQ(due, (std::vector<std::size_t>{0, 8, 17, 40}));
    EXPECT_EQ(tree.Get(63), 163u);
    due.clear();
    tree.ForEachAtMost(kNever, [&](std::size_t s) { due.push_back(s); });
    EXPECT_EQ(due, (std::vector<std::size_t>{0, 8, 17, 40, 63})) << "no slot without a deadline";
    tree.Set(0, kNever);
    tree.Set(8, kNever);
    EXPECT_TRUE(tree.IsBuilt()); // once built, it stays
    EXPECT_EQ(tree.Min(), 7u);
    EXPECT_EQ(tree.MinSlot(), 17u);
}

} // namespace
} // namespace metaroce
