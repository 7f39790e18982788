// HeaderBytes (engine/common/header-bytes.h): a header grows with zero bytes, also where an
// earlier, longer header left bytes behind, and a size beyond its capacity is refused.
#include "header-bytes.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace metaroce
{
namespace
{

TEST(HeaderBytes, GrowsWithZeroBytes)
{
    HeaderBytes h(12);
    ASSERT_EQ(h.size(), 12u);
    for (uint8_t b : h)
    {
        EXPECT_EQ(b, 0);
    }
}

TEST(HeaderBytes, ShrinkingClearsWhatGrowingExposesAgain)
{
    HeaderBytes h(16);
    for (std::size_t i = 0; i < h.size(); ++i)
    {
        h[i] = static_cast<uint8_t>(0xA0 + i);
    }
    h.resize(4);
    EXPECT_EQ(h.size(), 4u);
    EXPECT_EQ(h[3], 0xA3); // kept
    h.resize(16);
    for (std::size_t i = 4; i < 16; ++i)
    {
        EXPECT_EQ(h[i], 0) << "byte " << i;
    }
}

TEST(HeaderBytes, RefusesMoreThanItsCapacity)
{
    HeaderBytes h(8);
    EXPECT_THROW(h.resize(HeaderBytes::kCapacity + 1), std::length_error);
    EXPECT_EQ(h.size(), 8u); // unchanged
    h.resize(HeaderBytes::kCapacity);
    EXPECT_EQ(h.size(), HeaderBytes::kCapacity);
}

} // namespace
} // namespace metaroce
