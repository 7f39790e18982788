// Ring (engine/common/ring.h): FIFO order across wrap-around and growth, push_front, erase,
// copies and moves, and a clear error instead of undefined behaviour on an empty ring; against
// std::deque for random operations.
#include "ring.h"

#include <algorithm>
#include <deque>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace metaroce
{
namespace
{

std::vector<int>
Contents(const Ring<int>& ring)
{
    return std::vector<int>(ring.begin(), ring.end());
}

TEST(Ring, GrowsFromOneAndKeepsFifoOrderAcrossTheWrap)
{
    Ring<int> ring;
    EXPECT_TRUE(ring.empty());
    EXPECT_EQ(ring.capacity(), 0u);
    ring.push_back(1);
    EXPECT_EQ(ring.capacity(), 1u);
    ring.push_back(2);
    ring.push_back(3);
    EXPECT_EQ(ring.capacity(), 4u);
    ring.pop_front();
    ring.push_back(4);
    ring.push_back(5); // wraps: the array holds 5, 2, 3, 4 with the front at index 1
    EXPECT_EQ(Contents(ring), (std::vector<int>{2, 3, 4, 5}));
    EXPECT_TRUE(ring.full());
    ring.push_back(6); // grows while wrapped
    EXPECT_EQ(Contents(ring), (std::vector<int>{2, 3, 4, 5, 6}));
    EXPECT_EQ(ring.front(), 2);
    EXPECT_EQ(ring.back(), 6);
    EXPECT_EQ(ring[3], 5);
    EXPECT_EQ(std::vector<int>(ring.rbegin(), ring.rend()), (std::vector<int>{6, 5, 4, 3, 2}));
}

TEST(Ring, PushFrontInsertEraseAndClear)
{
    Ring<int> ring{2, 4};
    ring.push_front(1);
    EXPECT_EQ(*ring.insert(ring.begin() + 2, 3), 3); // grows: the ring was full
    EXPECT_EQ(Contents(ring), (std::vector<int>{1, 2, 3, 4}));
    ring.erase(ring.begin() + 3);
    EXPECT_EQ(Contents(ring), (std::vector<int>{1, 2, 3}));
    auto it = ring.erase(ring.begin() + 1);
    EXPECT_EQ(*it, 3);
    EXPECT_EQ(Contents(ring), (std::vector<int>{1, 3}));
    it = ring.erase(ring.begin() + 1);
    EXPECT_EQ(it, ring.end());
    ring.clear();
    EXPECT_TRUE(ring.empty());
    ring.push_back(7);
    EXPECT_EQ(Contents(ring), (std::vector<int>{7}));
}

TEST(Ring, AnEmptyRingSaysSoInsteadOfReadingOutsideItsArray)
{
    Ring<int> ring;
    EXPECT_THROW(ring.pop_front(), std::out_of_range);
    EXPECT_THROW(ring.front(), std::out_of_range);
    ring.push_back(1);
    ring.pop_front();
    EXPECT_THROW(ring.back(), std::out_of_range);
    EXPECT_TRUE(ring.empty());
}

TEST(Ring, CopiesAndMovesKeepTheOrder)
{
    Ring<int> ring{1, 2, 3, 4};
    ring.pop_front();
    ring.push_back(5); // wrapped
    Ring<int> copy(ring);
    EXPECT_EQ(Contents(copy), (std::vector<int>{2, 3, 4, 5}));
    Ring<int> moved(std::move(ring));
    EXPECT_EQ(Contents(moved), (std::vector<int>{2, 3, 4, 5}));
    copy = Ring<int>{9};
    EXPECT_EQ(Contents(copy), (std::vector<int>{9}));
}

TEST(Ring, PushingAnEntryOfAFullRingCopiesItBeforeGrowing)
{
    Ring<std::vector<int>> ring{{1, 2, 3}, {4}};
    ASSERT_TRUE(ring.full());
    ring.push_back(ring.front()); // grows to four
    ring.push_back({5});
    ASSERT_TRUE(ring.full());
    ring.push_front(ring.back()); // grows to eight
    EXPECT_EQ(ring.size(), 5u);
    EXPECT_EQ(ring.front(), (std::vector<int>{5}));
    EXPECT_EQ(ring[1], (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(ring[2], (std::vector<int>{4}));
    EXPECT_EQ(ring[3], (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(ring.back(), (std::vector<int>{5}));
}

TEST(Ring, APoppedEntryReleasesWhatItOwned)
{
    auto owned = std::make_shared<int>(1);
    Ring<std::shared_ptr<int>> ring;
    ring.push_back(owned);
    EXPECT_EQ(owned.use_count(), 2);
    ring.pop_front();
    EXPECT_EQ(owned.use_count(), 1);
}

TEST(Ring, EmplaceBackAppendsAnEmptyEntryAfterPopsAndWraps)
{
    Ring<std::vector<int>> ring;
    ring.push_back({1});
    ring.push_back({2, 2});
    ring.pop_front(); // its slot is reset, and the next entry wraps around into it
    std::vector<int>& reused = ring.emplace_back();
    EXPECT_TRUE(reused.empty()) << "the popped entry's slot holds nothing of it";
    reused.push_back(3);
    std::vector<int>& grown = ring.emplace_back(); // full: the ring grows first
    EXPECT_TRUE(grown.empty());
    grown.push_back(4);
    ASSERT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring[0], (std::vector<int>{2, 2}));
    EXPECT_EQ(ring[1], (std::vector<int>{3}));
    EXPECT_EQ(ring[2], (std::vector<int>{4}));
}

TEST(Ring, AgreesWithADequeUnderRandomOperations)
{
    std::mt19937 rng(7);
    Ring<int> ring;
    std::deque<int> reference;
    for (int step = 0; step < 20'000; ++step)
    {
        const int op = static_cast<int>(rng() % 10);
        if (op < 4)
        {
            ring.push_back(step);
            reference.push_back(step);
        }
        else if (op < 5)
        {
            ring.push_front(step);
            reference.push_front(step);
        }
        else if (op < 6)
        {
            const std::size_t at = rng() % (reference.size() + 1);
            ring.insert(ring.begin() + static_cast<std::ptrdiff_t>(at), step);
            reference.insert(reference.begin() + static_cast<std::ptrdiff_t>(at), step);
        }
        else if (op < 9 && !reference.empty())
        {
            ring.pop_front();
            reference.pop_front();
        }
        else if (!reference.empty())
        {
            const std::size_t at = rng() % reference.size();
            ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(at));
            reference.erase(reference.begin() + static_cast<std::ptrdiff_t>(at));
        }
        ASSERT_EQ(ring.size(), reference.size());
        ASSERT_TRUE(std::equal(ring.begin(), ring.end(), reference.begin()));
    }
}

} // namespace
} // namespace metaroce
