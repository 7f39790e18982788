// LazySlots: objects under a fixed range of ids, made on first use (engine/common/lazy-slots.h).
#include "lazy-slots.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace metaroce
{
namespace
{

TEST(LazySlots, FindsOnlyWhatWasMade)
{
    LazySlots<std::string> s;
    EXPECT_TRUE(s.Empty());
    s.Resize(8);
    EXPECT_FALSE(s.Empty());
    EXPECT_EQ(s.Size(), 8u);
    EXPECT_EQ(s.MadeCount(), 0u);
    for (std::size_t id = 0; id < 8; ++id)
    {
        EXPECT_EQ(s.Find(id), nullptr) << id;
    }
    s.Make(5, "five");
    s.Make(2, 3, 'x');
    EXPECT_EQ(s.MadeCount(), 2u);
    ASSERT_NE(s.Find(5), nullptr);
    EXPECT_EQ(*s.Find(5), "five");
    ASSERT_NE(s.Find(2), nullptr);
    EXPECT_EQ(*s.Find(2), "xxx");
    EXPECT_EQ(s.Find(3), nullptr);
    *s.Find(5) = "FIVE";
    EXPECT_EQ(*s.Find(5), "FIVE");
}

TEST(LazySlots, VisitsTheMadeInIdOrderWhateverTheOrderMade)
{
    LazySlots<int> s;
    s.Resize(64);
    for (int id : {40, 3, 63, 0, 17})
    {
        s.Make(static_cast<std::size_t>(id), id * 10);
    }
    std::vector<int> seen;
    for (const int& v : s.Made())
    {
        seen.push_back(v);
    }
    EXPECT_EQ(seen, (std::vector<int>{0, 30, 170, 400, 630}));
}

TEST(LazySlots, AReferenceStaysValidWhileOthersAreMade)
{
    LazySlots<std::vector<int>> s;
    s.Resize(1000);
    std::vector<int>& first = s.Make(999, 3, 7);
    for (std::size_t id = 0; id < 999; ++id)
    {
        s.Make(id);
    }
    EXPECT_EQ(&first, s.Find(999));
    EXPECT_EQ(first, (std::vector<int>{7, 7, 7}));
}

TEST(LazySlots, RefusesMoreIdsThanItsIndexHolds)
{
    LazySlots<int> s;
    EXPECT_THROW(s.Resize(LazySlots<int>::kMaxIds + 1), std::length_error);
    s.Resize(LazySlots<int>::kMaxIds);
    s.Make(LazySlots<int>::kMaxIds - 1, 1);
    EXPECT_EQ(*s.Find(LazySlots<int>::kMaxIds - 1), 1);
}

} // namespace
} // namespace metaroce
