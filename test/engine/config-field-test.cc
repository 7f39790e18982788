// The configuration tables (config-field.h): one row per tunable, from which validation, the
// NIC's ns-3 attributes and the compliance suite's settings are derived.
#include "config-field.h"
#include "congestion-control.h"
#include "dcqcn.h"
#include "metaroce-config.h"
#include "rocev2-config.h"
#include "swift-congestion-control.h"

#include <gtest/gtest.h>
#include <set>
#include <stdexcept>
#include <string>

namespace metaroce
{
namespace
{

/// Every row has a unique member and attribute, help text, a spec section, and a default that
/// lies inside its own range.
template<typename Config>
void
ExpectWellFormed(const ConfigFields<Config>& fields)
{
    std::set<std::string> members;
    std::set<std::string> attributes;
    const Config defaults{};
    for (const ConfigField<Config>& f : fields)
    {
        EXPECT_TRUE(members.insert(f.member).second) << "duplicate member " << f.member;
        EXPECT_TRUE(attributes.insert(f.attribute).second) << "duplicate attribute " << f.member;
        EXPECT_NE(std::string(f.help), "") << f.member;
        EXPECT_NE(std::string(f.section), "") << f.member;
        EXPECT_LE(f.min, f.max) << f.member;
        EXPECT_EQ(f.Check(f.get(defaults)), "") << f.member << " default out of its range";
    }
}

TEST(ConfigField, TablesAreWellFormed)
{
    ExpectWellFormed(MetaRoceConfigFields());
    ExpectWellFormed(AimdConfigFields());
    ExpectWellFormed(SwiftConfigFields());
    ExpectWellFormed(RoceV2ConfigFields());
    ExpectWellFormed(DcqcnConfigFields());
}

TEST(ConfigField, SetAndGetRoundTripThroughTheTable)
{
    MetaRoceConfig c;
    const ConfigField<MetaRoceConfig>* rto = FindField(MetaRoceConfigFields(), "rtoMinNs");
    ASSERT_NE(rto, nullptr);
    EXPECT_EQ(std::string(rto->attribute), "RtoMin");
    EXPECT_EQ(rto->unit, FieldUnit::Nanoseconds);
    rto->set(c, 12345);
    EXPECT_EQ(c.rtoMinNs, 12345u);
    EXPECT_EQ(rto->get(c), 12345.0);
    const ConfigField<MetaRoceConfig>* hint = FindField(MetaRoceConfigFields(), "honourRateHint");
    ASSERT_NE(hint, nullptr);
    hint->set(c, 0);
    EXPECT_FALSE(c.honourRateHint);
    EXPECT_EQ(FindField(MetaRoceConfigFields(), "noSuchField"), nullptr);
}

/// A struct with a narrow member, to see MakeField cap a range the member cannot hold.
struct Narrow
{
    uint8_t small{0};
    bool flag{false};
};

TEST(ConfigField, RangeIsCappedByTheMemberType)
{
    const auto small =
        MakeField<&Narrow::small>("small", "Small", FieldUnit::Count, 0, 1000, "-", "-");
    EXPECT_EQ(small.max, 255.0);
    EXPECT_TRUE(small.integer);
    const auto flag = MakeField<&Narrow::flag>("flag", "Flag", FieldUnit::Flag, 0, 1, "-", "-");
    EXPECT_EQ(flag.max, 1.0);
    EXPECT_NE(CheckFieldValue(1.5, 0, 10, true), "");
    EXPECT_EQ(CheckFieldValue(1.5, 0, 10, false), "");
    EXPECT_NE(CheckFieldValue(11, 0, 10, false), "");
}

TEST(ConfigField, ValidateNamesOwnerFieldAndValue)
{
    MetaRoceConfig c;
    c.maxTailProbes = 65;
    try
    {
        c.Validate();
        FAIL() << "maxTailProbes = 65 accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "MetaRoceConfig.maxTailProbes: must be in [0, 64] (got 65)");
    }
    RoceV2Config r;
    r.dcqcn.g = 1; // 0 is "the variant's default"
    EXPECT_THROW(r.Validate(), std::invalid_argument);
    AimdConfig a;
    a.connectionDecrease = 1;
    EXPECT_THROW(a.Validate(), std::invalid_argument);
}

} // namespace
} // namespace metaroce
