/*
 * metaroce-scheduler: the module's event scheduler (model/sim), ns3::MetaRoceRadixScheduler,
 * gives events in the order ns3::PriorityQueueScheduler gives them, (timestamp, uid), under
 * random inserts, removals and events taken out, with many ties and timers far ahead; with
 * events at the end of time and an event inserted after a peek, before the one peeked at (as a
 * distributed simulator does). And the module's clock (MetaRoceNow) reads the simulator's, across
 * simulations.
 */
#include "ns3/metaroce-now.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-radix-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cstdint>
#include <functional>
#include <vector>

using namespace ns3;

namespace
{

/// A scheduler under test (the argument: a window, for schedulers that have one).
using MakeScheduler = std::function<Ptr<Scheduler>(const Time& window)>;

Ptr<Scheduler>
MakeRadix(const Time&)
{
    return CreateObject<MetaRoceRadixScheduler>();
}

class SameOrderTestCase : public TestCase
{
  public:
    SameOrderTestCase(const std::string& name, MakeScheduler make, std::vector<Time> windows)
        : TestCase(name + ": the order of a single heap")
        , m_make(std::move(make))
        , m_windows(std::move(windows))
    {
    }

  private:
    void DoRun() override
    {
        for (const Time& window : m_windows)
        {
            Run(window);
        }
    }

    void Run(const Time& window)
    {
        Ptr<Scheduler> tested = m_make(window);
        auto reference = CreateObject<PriorityQueueScheduler>();
        // The schedulers only order and hand back events; the impl pointers are never called.
        std::vector<EventImpl*> impls(20'000);
        uint64_t state = 7;
        auto next = [&state]() {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<uint32_t>(state >> 33);
        };
        uint64_t now = 0;
        uint32_t uid = 0;
        std::vector<Scheduler::Event> pending;
        for (int step = 0; step < 20'000; ++step)
        {
            const uint32_t op = next() % 10;
            if (op < 5 || reference->IsEmpty())
            {
                if (next() % 3 == 0 && !reference->IsEmpty())
                {
                    // A peek, then perhaps an earlier event (a distributed simulator's way).
                    NS_TEST_ASSERT_MSG_EQ(tested->PeekNext().key.m_uid,
                                          reference->PeekNext().key.m_uid,
                                          "peek before an insert, step " << step);
                }
                // Mostly soon (many ties), sometimes far ahead (a retransmission timer).
                const uint64_t delay = next() % 4 == 0 ? 100'000 + next() % 500'000 : next() % 64;
                Scheduler::Event ev{reinterpret_cast<EventImpl*>(&impls[uid % impls.size()]),
                                    {now + delay, uid, next() % 8}};
                ++uid;
                tested->Insert(ev);
                reference->Insert(ev);
                pending.push_back(ev);
            }
            else if (op == 9 && !pending.empty())
            {
                const Scheduler::Event ev = pending[next() % pending.size()];
                tested->Remove(ev);
                reference->Remove(ev);
                Forget(pending, ev);
            }
            else
            {
                const Scheduler::Event want = reference->PeekNext();
                NS_TEST_ASSERT_MSG_EQ(tested->PeekNext().key.m_uid,
                                      want.key.m_uid,
                                      "peek, step " << step << ", window " << window);
                const Scheduler::Event got = tested->RemoveNext();
                reference->RemoveNext();
                NS_TEST_ASSERT_MSG_EQ(got.key.m_uid, want.key.m_uid, "step " << step);
                NS_TEST_ASSERT_MSG_EQ(got.impl, want.impl, "step " << step);
                now = got.key.m_ts;
                Forget(pending, got);
            }
            NS_TEST_ASSERT_MSG_EQ(tested->IsEmpty(), reference->IsEmpty(), "step " << step);
        }
        while (!reference->IsEmpty())
        {
            NS_TEST_ASSERT_MSG_EQ(tested->RemoveNext().key.m_uid,
                                  reference->RemoveNext().key.m_uid,
                                  "draining, window " << window);
        }
        NS_TEST_EXPECT_MSG_EQ(tested->IsEmpty(), true, "both empty");
    }

    static void Forget(std::vector<Scheduler::Event>& pending, const Scheduler::Event& ev)
    {
        for (auto& e : pending)
        {
            if (e.key.m_uid == ev.key.m_uid)
            {
                e = pending.back();
                pending.pop_back();
                return;
            }
        }
    }

    MakeScheduler m_make;
    std::vector<Time> m_windows;
};

/// Events at the last timestamp there is: the radix buckets hold
/// them as any other, and they come out in uid order, also those inserted after the first was
/// taken.
class EndOfTimeTestCase : public TestCase
{
  public:
    EndOfTimeTestCase(const std::string& name, MakeScheduler make)
        : TestCase(name + ": events at the end of time")
        , m_make(std::move(make))
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Scheduler> scheduler = m_make(MicroSeconds(20));
        EventImpl* impl = nullptr;
        const uint64_t end = UINT64_MAX;
        scheduler->Insert({impl, {end - 1, 0, 0}});
        scheduler->Insert({impl, {end, 2, 0}});
        scheduler->Insert({impl, {end, 1, 0}});
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 0, "the earlier one first");
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 1, "then by uid");
        scheduler->Insert({impl, {end, 3, 0}});
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 2, "uid 2");
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 3, "uid 3");
        NS_TEST_ASSERT_MSG_EQ(scheduler->IsEmpty(), true, "all out");
    }

    MakeScheduler m_make;
};

/// A distributed simulator peeks at its next event, then receives events from other ranks that
/// may come before it: a peek must not keep them out.
class InsertAfterPeekTestCase : public TestCase
{
  public:
    InsertAfterPeekTestCase(const std::string& name, MakeScheduler make)
        : TestCase(name + ": an event before the one peeked at, inserted after the peek")
        , m_make(std::move(make))
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Scheduler> scheduler = m_make(MicroSeconds(20));
        EventImpl* impl = nullptr;
        scheduler->Insert({impl, {100, 0, 0}});
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 0, "the first event");
        scheduler->Insert({impl, {1'000'000, 1, 0}});
        NS_TEST_ASSERT_MSG_EQ(scheduler->PeekNext().key.m_uid, 1, "the only one left");
        scheduler->Insert({impl, {500, 2, 0}});
        NS_TEST_ASSERT_MSG_EQ(scheduler->PeekNext().key.m_uid, 2, "the earlier one, peeked");
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 2, "the earlier one, taken");
        NS_TEST_ASSERT_MSG_EQ(scheduler->RemoveNext().key.m_uid, 1, "then the later one");
        NS_TEST_ASSERT_MSG_EQ(scheduler->IsEmpty(), true, "all out");
    }

    MakeScheduler m_make;
};

/// MetaRoceNow (model/sim/metaroce-now.h) is Simulator::Now() in every event, before a run and
/// after Simulator::Destroy(), when a new simulation starts its clock at zero again.
class ClockTestCase : public TestCase
{
  public:
    ClockTestCase()
        : TestCase("the module's clock reads the simulator's, across simulations")
    {
    }

  private:
    void DoRun() override
    {
        for (int64_t start : {5000, 3})
        {
            NS_TEST_EXPECT_MSG_EQ(MetaRoceNow(), Simulator::Now(), "before the run");
            uint32_t checked = 0;
            for (int64_t ns : {start, start, start + 1, start + 777})
            {
                Simulator::Schedule(NanoSeconds(ns), [&checked, ns]() {
                    checked +=
                        MetaRoceNow() == Simulator::Now() && MetaRoceNow() == NanoSeconds(ns);
                });
            }
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(checked, 4, "every event read the simulator's time");
            NS_TEST_EXPECT_MSG_EQ(MetaRoceNow(), NanoSeconds(start + 777), "after the run");
            Simulator::Destroy();
            // A pointer kept past Destroy() would name a deleted implementation (its memory is
            // often reused by the next one, so reading it might even seem to work).
            NS_TEST_EXPECT_MSG_EQ((metaroce_now::g_impl == nullptr), true, "forgotten");
        }
    }
};

class SchedulerTestSuite : public TestSuite
{
  public:
    SchedulerTestSuite()
        : TestSuite("metaroce-scheduler", Type::UNIT)
    {
        AddTestCase(new SameOrderTestCase("radix scheduler", &MakeRadix, {MicroSeconds(20)}),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new EndOfTimeTestCase("radix scheduler", &MakeRadix),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new InsertAfterPeekTestCase("radix scheduler", &MakeRadix),
                    MetaRoceTestDuration::QUICK);
        AddTestCase(new ClockTestCase, MetaRoceTestDuration::QUICK);
    }
};

SchedulerTestSuite g_schedulerTestSuite;

} // namespace
