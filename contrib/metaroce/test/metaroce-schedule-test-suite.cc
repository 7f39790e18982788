/*
 * Training schedules (--workload=schedule, doc/schedules.md).
 *
 *  - bad input: each of a list of broken schedules (not JSON, a wrong format, unknown keys, wrong
 *    types, hosts out of range or twice, sizes of zero or below, an unknown collective, two
 *    groups of one name, barriers in conflicting orders, a collective its group cannot run) is
 *    refused with one line naming the place; an experiment names --schedule;
 *  - order: two groups of 4 hosts run two iterations of compute gaps, collectives and a common
 *    barrier; every group's operations follow each other in order, each beginning when the one
 *    before ends (a collective after a compute gap no earlier than the gap's end), a gap lasts
 *    its time, both groups leave the barrier together when the later one arrives, and every
 *    collective completes with its bytes.
 */
#include "ns3/metaroce-experiment.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-training-schedule.h"
#include "ns3/test.h"

#include <fstream>
#include <map>
#include <stdexcept>

using namespace ns3;

namespace
{

/// The message of the std::invalid_argument parsing `text` for 8 hosts throws, "" if none.
std::string
ParseError(const std::string& text)
{
    try
    {
        CheckTrainingSchedule(ParseTrainingSchedule(text, 8), 1, 1 << 18);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/// A schedule of one group with `ops` (a JSON array's contents) on hosts 0-3.
std::string
OneGroup(const std::string& ops, const std::string& ranks = "[0, 1, 2, 3]")
{
    return R"({"format": "metaroce-schedule/1", "groups": [{"name": "g", "ranks": )" + ranks +
           R"(, "ops": [)" + ops + "]}]}";
}

class ScheduleBadInputTestCase : public TestCase
{
  public:
    ScheduleBadInputTestCase()
        : TestCase("bad schedules are refused with one line naming the place")
    {
    }

  private:
    void DoRun() override
    {
        const std::string ar = R"({"collective": "allreduce-ring", "bytes": 4096})";
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"{", "not JSON"},
            {R"({"format": "v2", "groups": []})", "format: expected"},
            {R"({"format": "metaroce-schedule/1", "groups": [], "x": 1})", "unknown key 'x'"},
            {R"({"format": "metaroce-schedule/1", "groups": []})", "groups: expected a non-empty"},
            {R"({"format": "metaroce-schedule/1", "iterations": 0, "groups": []})",
             "iterations: expected an integer"},
            {OneGroup(ar, "[0, 1, 8]"), "groups[0].ranks[2]: expected a host in [0, 7], got 8"},
            {OneGroup(ar, "[0, -1]"), "groups[0].ranks[1]: expected a host"},
            {OneGroup(ar, "[0, 1, 1]"), "groups[0].ranks[2]: host 1 is in the group twice"},
            {OneGroup(ar, "\"0-3\""), "groups[0].ranks: expected a non-empty array"},
            {OneGroup(ar, "[2]"), "a group with collectives needs at least 2 ranks"},
            {OneGroup(R"({"collective": "allreduce-ring", "bytes": -4})"),
             "groups[0].ops[0].bytes: expected an integer"},
            {OneGroup(R"({"collective": "allreduce-ring", "bytes": 0})"), "ops[0].bytes"},
            {OneGroup(R"({"collective": "allreduce-ring", "bytes": "4k"})"), "ops[0].bytes"},
            {OneGroup(R"({"collective": "allreduce-ring"})"), "a collective needs 'bytes'"},
            {OneGroup(R"({"collective": "broadcast", "bytes": 4096})"), "ops[0].collective: "},
            {OneGroup(R"({"collective": "alltoallv", "bytes": 4096})"), "needs a traffic matrix"},
            {OneGroup(R"({"compute": "soon"})"), "ops[0].compute: 'soon' is not a time"},
            {OneGroup(R"({"compute": "-5us"})"), "ops[0].compute"},
            {OneGroup(R"({"compute": 5})"), "ops[0].compute: expected a non-empty string"},
            {OneGroup(R"({"compute": "5us", "bytes": 4})"), "'bytes' belongs to a collective"},
            {OneGroup(R"({"compute": "5us", "barrier": "b"})"), "exactly one of"},
            {OneGroup(R"({"wait": "5us"})"), "ops[0]: unknown key 'wait'"},
            {OneGroup(R"({"barrier": "b"}, {"barrier": "b"})"), "barrier 'b' twice"},
            {OneGroup(R"({"collective": "allreduce-hd", "bytes": 4096})", "[0, 1, 2]"),
             "groups[0].ops[0]: "},
            {OneGroup(R"({"collective": "alltoall", "bytes": 2})"), "groups[0].ops[0]: "},
            {R"({"format": "metaroce-schedule/1", "groups": [
                 {"name": "a", "ranks": [0, 1], "ops": [{"barrier": "x"}, {"barrier": "y"}]},
                 {"name": "b", "ranks": [2, 3], "ops": [{"barrier": "y"}, {"barrier": "x"}]}]})",
             "groups 'a' and 'b': reach their common barriers in different orders"},
            {R"({"format": "metaroce-schedule/1", "groups": [
                 {"name": "a", "ranks": [0, 1], "ops": [{"compute": "1us"}]},
                 {"name": "a", "ranks": [2, 3], "ops": [{"compute": "1us"}]}]})",
             "groups[1].name: 'a' names two groups"},
        };
        for (const auto& [text, want] : cases)
        {
            const std::string got = ParseError(text);
            NS_TEST_EXPECT_MSG_NE(got.find(want), std::string::npos, text << " gave: " << got);
            NS_TEST_EXPECT_MSG_EQ(got.find('\n'), std::string::npos, "one line: " << got);
        }
        NS_TEST_EXPECT_MSG_EQ(ParseError(OneGroup(R"({"compute": "5us"}, )" + ar)), "", "valid");

        MetaRoceExperimentConfig c;
        c.workload = "schedule";
        c.schedule = "/nonexistent/step.json";
        std::string message;
        try
        {
            c.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            message = e.what();
        }
        NS_TEST_EXPECT_MSG_EQ(message,
                              "--schedule: cannot read '/nonexistent/step.json'",
                              "the experiment names the option");
    }
};

/// Two groups on 8 hosts (one leaf, 2 planes), two iterations.
const char* const kOrderSchedule = R"({
  "format": "metaroce-schedule/1",
  "iterations": 2,
  "groups": [
    {"name": "a", "ranks": [0, 1, 2, 3],
     "ops": [{"compute": "20us"},
             {"collective": "allreduce-ring", "bytes": 262144},
             {"compute": "10us"},
             {"collective": "allgather-ring", "bytes": 262144},
             {"barrier": "step"}]},
    {"name": "b", "ranks": [7, 6, 5, 4],
     "ops": [{"collective": "alltoall", "bytes": 262144},
             {"barrier": "step"},
             {"compute": "5us"},
             {"collective": "allreduce-tree", "bytes": 131072}]}
  ]
})";

class ScheduleOrderTestCase : public TestCase
{
  public:
    ScheduleOrderTestCase()
        : TestCase("a schedule runs each group's operations in order, gaps and barriers kept")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = "/tmp/metaroce-schedule-test-order.json";
        std::ofstream(path) << kOrderSchedule;
        MetaRoceExperimentConfig c;
        c.hosts = 8;
        c.planes = 2;
        c.hostsPerLeaf = 8;
        c.spines = 1;
        c.workload = "schedule";
        c.schedule = path;
        c.Validate();
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "every group finished, every byte arrived");
        NS_TEST_ASSERT_MSG_EQ(r.schedule.size(), 2 * (5 + 4), "every operation recorded");
        std::map<std::string, std::vector<MetaRoceScheduleRecord>> byGroup;
        for (const auto& op : r.schedule)
        {
            byGroup[op.group].push_back(op);
        }
        const std::map<std::string, std::vector<double>> gaps = {{"a", {20, -1, 10, -1, -1}},
                                                                 {"b", {-1, -1, 5, -1}}};
        std::map<uint32_t, std::vector<double>> barrierEnds;
        for (const auto& [group, ops] : byGroup)
        {
            const auto& gap = gaps.at(group);
            NS_TEST_ASSERT_MSG_EQ(ops.size(), 2 * gap.size(), group);
            for (std::size_t k = 0; k < ops.size(); ++k)
            {
                const auto& op = ops[k];
                NS_TEST_EXPECT_MSG_EQ(op.iteration, k / gap.size(), group << " order");
                NS_TEST_EXPECT_MSG_EQ(op.op, k % gap.size(), group << " order");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(op.endUs, op.startUs, group << " ends");
                if (k > 0)
                {
                    // Each operation begins when the one before ends, not earlier.
                    NS_TEST_EXPECT_MSG_EQ_TOL(op.startUs,
                                              ops[k - 1].endUs,
                                              1e-9,
                                              group << " op " << k << " after op " << k - 1);
                }
                if (gap[op.op] >= 0)
                {
                    NS_TEST_EXPECT_MSG_EQ_TOL(op.endUs - op.startUs, gap[op.op], 1e-9, "gap");
                }
                if (op.kind == "barrier")
                {
                    barrierEnds[op.iteration].push_back(op.endUs);
                }
                if (op.kind != "compute" && op.kind != "barrier")
                {
                    NS_TEST_EXPECT_MSG_GT(op.busBwGBps, 0, group << " " << op.kind);
                    NS_TEST_EXPECT_MSG_GT(op.endUs - op.startUs, 1, "a collective takes time");
                }
            }
        }
        for (const auto& [iteration, ends] : barrierEnds)
        {
            NS_TEST_ASSERT_MSG_EQ(ends.size(), 2, "both groups at the barrier");
            NS_TEST_EXPECT_MSG_EQ_TOL(ends[0], ends[1], 1e-9, "they leave it together");
        }
        // Group a reaches the barrier later (a gap, two collectives and a gap): b waits for it.
        const auto& a = byGroup["a"];
        NS_TEST_EXPECT_MSG_EQ_TOL(barrierEnds[0][0], a[4].startUs, 1e-9, "released by a");
        NS_TEST_EXPECT_MSG_GT(r.durationUs, 0, "");
    }
};

class ScheduleTestSuite : public TestSuite
{
  public:
    ScheduleTestSuite()
        : TestSuite("metaroce-schedule", Type::UNIT)
    {
        AddTestCase(new ScheduleBadInputTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new ScheduleOrderTestCase, MetaRoceTestDuration::QUICK);
    }
};

ScheduleTestSuite g_scheduleTestSuite;

} // namespace
