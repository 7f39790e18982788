#include "metaroce-training-schedule.h"

#include "metaroce-options.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

[[noreturn]] void
Fail(const std::string& where, const std::string& what)
{
    throw std::invalid_argument(where + ": " + what);
}

/// Refuses a key of `object` that is not in `allowed`.
void
CheckKeys(const Json& object, const std::string& where, const std::set<std::string>& allowed)
{
    if (!object.is_object())
    {
        Fail(where, "expected an object, got " + object.dump());
    }
    for (const auto& item : object.items())
    {
        if (allowed.count(item.key()) == 0)
        {
            std::string names;
            for (const auto& a : allowed)
            {
                names += (names.empty() ? "" : ", ") + a;
            }
            Fail(where, "unknown key '" + item.key() + "' (known: " + names + ")");
        }
    }
}

/// A positive integer below `limit`.
uint64_t
Positive(const Json& value, const std::string& where, uint64_t limit)
{
    if (!value.is_number_integer() || value.get<int64_t>() <= 0 || value.get<uint64_t>() >= limit)
    {
        Fail(where,
             "expected an integer in [1, " + std::to_string(limit - 1) + "], got " + value.dump());
    }
    return value.get<uint64_t>();
}

std::string
Text(const Json& value, const std::string& where)
{
    if (!value.is_string() || value.get<std::string>().empty())
    {
        Fail(where, "expected a non-empty string, got " + value.dump());
    }
    return value.get<std::string>();
}

MetaRoceScheduleOp
ParseOp(const Json& j, const std::string& where)
{
    CheckKeys(j, where, {"compute", "collective", "bytes", "barrier"});
    const int kinds = j.contains("compute") + j.contains("collective") + j.contains("barrier");
    if (kinds != 1)
    {
        Fail(where, "needs exactly one of 'compute', 'collective' or 'barrier'");
    }
    MetaRoceScheduleOp op;
    if (j.contains("compute"))
    {
        op.kind = MetaRoceScheduleOp::Kind::COMPUTE;
        const std::string text = Text(j["compute"], where + ".compute");
        try
        {
            op.duration = ParseTimeOption("compute", text);
        }
        catch (const std::invalid_argument&)
        {
            Fail(where + ".compute", "'" + text + "' is not a time such as \"40us\"");
        }
    }
    else if (j.contains("barrier"))
    {
        op.kind = MetaRoceScheduleOp::Kind::BARRIER;
        op.name = Text(j["barrier"], where + ".barrier");
    }
    else
    {
        op.kind = MetaRoceScheduleOp::Kind::COLLECTIVE;
        const std::string name = Text(j["collective"], where + ".collective");
        try
        {
            op.collective = ParseCollective(name);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(where + ".collective", e.what());
        }
        if (op.collective == MetaRoceCollective::ALL_TO_ALLV)
        {
            Fail(where + ".collective", "alltoallv needs a traffic matrix, not a size");
        }
        if (!j.contains("bytes"))
        {
            Fail(where, "a collective needs 'bytes' (the buffer per rank)");
        }
        op.bytes = Positive(j["bytes"], where + ".bytes", uint64_t{1} << 40);
    }
    if (op.kind != MetaRoceScheduleOp::Kind::COLLECTIVE && j.contains("bytes"))
    {
        Fail(where, "'bytes' belongs to a collective");
    }
    return op;
}

MetaRoceScheduleGroup
ParseGroup(const Json& j, const std::string& where, uint32_t hosts)
{
    CheckKeys(j, where, {"name", "ranks", "ops"});
    MetaRoceScheduleGroup g;
    if (!j.contains("name") || !j.contains("ranks") || !j.contains("ops"))
    {
        Fail(where, "a group needs 'name', 'ranks' and 'ops'");
    }
    g.name = Text(j["name"], where + ".name");
    if (!j["ranks"].is_array() || j["ranks"].empty())
    {
        Fail(where + ".ranks", "expected a non-empty array of hosts, got " + j["ranks"].dump());
    }
    std::set<uint32_t> seen;
    for (std::size_t i = 0; i < j["ranks"].size(); ++i)
    {
        const Json& r = j["ranks"][i];
        const std::string at = where + ".ranks[" + std::to_string(i) + "]";
        if (!r.is_number_integer() || r.get<int64_t>() < 0 || r.get<int64_t>() >= hosts)
        {
            Fail(at, "expected a host in [0, " + std::to_string(hosts - 1) + "], got " + r.dump());
        }
        if (!seen.insert(r.get<uint32_t>()).second)
        {
            Fail(at, "host " + r.dump() + " is in the group twice");
        }
        g.ranks.push_back(r.get<uint32_t>());
    }
    if (!j["ops"].is_array() || j["ops"].empty())
    {
        Fail(where + ".ops", "expected a non-empty array of operations");
    }
    for (std::size_t i = 0; i < j["ops"].size(); ++i)
    {
        g.ops.push_back(ParseOp(j["ops"][i], where + ".ops[" + std::to_string(i) + "]"));
        if (g.ops.back().kind == MetaRoceScheduleOp::Kind::COLLECTIVE && g.ranks.size() < 2)
        {
            Fail(where + ".ranks", "a group with collectives needs at least 2 ranks");
        }
    }
    return g;
}

/// The barriers of a group, in order; each may appear once per iteration.
std::vector<std::string>
BarriersOf(const MetaRoceScheduleGroup& g)
{
    std::vector<std::string> names;
    for (const auto& op : g.ops)
    {
        if (op.kind == MetaRoceScheduleOp::Kind::BARRIER)
        {
            for (const auto& n : names)
            {
                if (n == op.name)
                {
                    Fail("group '" + g.name + "'", "barrier '" + op.name + "' twice");
                }
            }
            names.push_back(op.name);
        }
    }
    return names;
}

/// Two groups must reach the barriers they share in the same order.
void
CheckBarrierOrder(const std::vector<MetaRoceScheduleGroup>& groups)
{
    std::vector<std::vector<std::string>> lists;
    for (const auto& g : groups)
    {
        lists.push_back(BarriersOf(g));
    }
    for (std::size_t a = 0; a < groups.size(); ++a)
    {
        for (std::size_t b = a + 1; b < groups.size(); ++b)
        {
            std::vector<std::string> inA;
            std::vector<std::string> inB;
            const std::set<std::string> setA(lists[a].begin(), lists[a].end());
            const std::set<std::string> setB(lists[b].begin(), lists[b].end());
            for (const auto& n : lists[a])
            {
                if (setB.count(n) > 0)
                {
                    inA.push_back(n);
                }
            }
            for (const auto& n : lists[b])
            {
                if (setA.count(n) > 0)
                {
                    inB.push_back(n);
                }
            }
            if (inA != inB)
            {
                Fail("groups '" + groups[a].name + "' and '" + groups[b].name + "'",
                     "reach their common barriers in different orders (a deadlock)");
            }
        }
    }
}

} // namespace

MetaRoceTrainingSchedule
ParseTrainingSchedule(const std::string& text, uint32_t hosts)
{
    Json j;
    try
    {
        j = Json::parse(text);
    }
    catch (const Json::parse_error& e)
    {
        // nlohmann's message is one line and names the byte where it failed.
        Fail("not JSON", e.what());
    }
    CheckKeys(j, "the file", {"format", "iterations", "groups", "comment"});
    if (!j.contains("format") || j["format"] != "metaroce-schedule/1")
    {
        Fail("format", "expected \"metaroce-schedule/1\"");
    }
    MetaRoceTrainingSchedule s;
    if (j.contains("iterations"))
    {
        s.iterations = Positive(j["iterations"], "iterations", 1u << 20);
    }
    if (!j.contains("groups") || !j["groups"].is_array() || j["groups"].empty())
    {
        Fail("groups", "expected a non-empty array of groups");
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < j["groups"].size(); ++i)
    {
        const std::string where = "groups[" + std::to_string(i) + "]";
        s.groups.push_back(ParseGroup(j["groups"][i], where, hosts));
        if (!names.insert(s.groups.back().name).second)
        {
            Fail(where + ".name", "'" + s.groups.back().name + "' names two groups");
        }
    }
    CheckBarrierOrder(s.groups);
    return s;
}

void
CheckTrainingSchedule(const MetaRoceTrainingSchedule& schedule,
                      uint32_t channels,
                      uint64_t treeChunkBytes)
{
    for (std::size_t g = 0; g < schedule.groups.size(); ++g)
    {
        const MetaRoceScheduleGroup& group = schedule.groups[g];
        for (std::size_t i = 0; i < group.ops.size(); ++i)
        {
            const MetaRoceScheduleOp& op = group.ops[i];
            if (op.kind != MetaRoceScheduleOp::Kind::COLLECTIVE)
            {
                continue;
            }
            try
            {
                // The smallest channel's share of the buffer.
                BuildPlan(op.collective,
                          group.ranks.size(),
                          op.bytes / std::max(channels, 1u),
                          treeChunkBytes);
            }
            catch (const std::invalid_argument& e)
            {
                Fail("groups[" + std::to_string(g) + "].ops[" + std::to_string(i) + "]",
                     std::string(e.what()) + " (over " + std::to_string(channels) + " channels)");
            }
        }
    }
}

MetaRoceTrainingSchedule
ReadTrainingSchedule(const std::string& path, uint32_t hosts)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument("cannot read '" + path + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    try
    {
        return ParseTrainingSchedule(text.str(), hosts);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

} // namespace ns3
