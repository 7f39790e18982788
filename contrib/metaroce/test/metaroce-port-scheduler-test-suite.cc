/*
 * metaroce-port-scheduler: the NIC's port scheduler pulls exactly what a round-robin scan of
 * every sender would (model/nic/metaroce-port-scheduler.h), with more than 64 senders on a port
 * (several bit words), ports of different sizes, a port added after senders (the bits laid out
 * again), control first and recovery first each on and off, pulls of control only (a PFC
 * pause), senders that say they may have work but are held back (a full window), senders marked
 * as maybe having work or with the work they report, and senders with bursts (pulled again at
 * once while their burst goes on, spec 6.2), the first sender of a port among them; and
 * MayHaveWork never says no while a sender of the port has work, and says no after a pull that
 * found nothing; MarkWork reports the ports it turns from no mark to one, and marks a port a
 * sender joined after reporting work there.
 */
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-port-scheduler.h"
#include "ns3/packet.h"
#include "ns3/test.h"

#include <array>
#include <memory>
#include <vector>

using namespace ns3;

namespace
{

/// A sender with a number of control, recovery and new data packets per port, pulled in that
/// order (as an engine pulls them); a packet's size names its sender and kind.
class FakeSender : public MetaRocePortScheduler::Sender
{
  public:
    FakeSender(uint32_t id, uint32_t ports, uint32_t burst = 1)
        : m_id(id)
        , control(ports, 0)
        , recovery(ports, 0)
        , data(ports, 0)
        , held(ports, false)
        , m_burst(burst)
        , m_burstLeft(ports, 0)
    {
    }

    /// The sender of a packet of `size`.
    static uint32_t SenderOf(uint32_t size)
    {
        return (size - 1) / 3;
    }

    bool HasWork(uint32_t port) const override
    {
        return control[port] > 0 || recovery[port] > 0 || data[port] > 0;
    }

    bool HasControlWork(uint32_t port) const override
    {
        return control[port] > 0;
    }

    bool HasRecoveryWork(uint32_t port) const override
    {
        return recovery[port] > 0;
    }

    /// As an engine's bursts (spec 6.2): new data starts a burst of m_burst packets or goes on
    /// with the one under way, which asks for the port again while data is left.
    bool ContinuesBurst(uint32_t port) const override
    {
        return m_burstLeft[port] > 0 && data[port] > 0;
    }

    Ptr<Packet> Pull(uint32_t port, metaroce::PullKind kind) override
    {
        if (control[port] > 0)
        {
            --control[port];
            return Create<Packet>(3 * m_id + 1);
        }
        if (held[port])
        {
            return nullptr; // a window holds its data and recovery back
        }
        if (kind != metaroce::PullKind::Control && recovery[port] > 0)
        {
            --recovery[port];
            return Create<Packet>(3 * m_id + 2);
        }
        if (kind == metaroce::PullKind::Any && data[port] > 0)
        {
            --data[port];
            m_burstLeft[port] = m_burstLeft[port] > 0 ? m_burstLeft[port] - 1 : m_burst - 1;
            return Create<Packet>(3 * m_id + 3);
        }
        return nullptr;
    }

    uint32_t m_id;
    std::vector<uint32_t> control;
    std::vector<uint32_t> recovery;
    std::vector<uint32_t> data;
    std::vector<bool> held; ///< per port: nothing but control leaves, though work waits

  private:
    uint32_t m_burst;                  ///< packets of new data in a burst
    std::vector<uint32_t> m_burstLeft; ///< per port: what the burst under way may still take
};

/// The definition: per port and kind a cursor, and a scan of every sender from it.
class Reference
{
  public:
    explicit Reference(uint32_t ports)
        : m_senders(ports)
        , m_cursor(ports, {0, 0, 0})
    {
    }

    void Add(uint32_t port, FakeSender* sender)
    {
        m_senders[port].push_back(sender);
    }

    uint32_t Pull(uint32_t port, bool controlFirst, bool recoveryFirst, bool controlOnly)
    {
        if (controlOnly)
        {
            return Turn(port, controlFirst ? 1 : 0, metaroce::PullKind::Control);
        }
        if (controlFirst)
        {
            if (const uint32_t size = Turn(port, 1, metaroce::PullKind::Control))
            {
                return size;
            }
        }
        if (recoveryFirst)
        {
            if (const uint32_t size = Turn(port, 2, metaroce::PullKind::Recovery))
            {
                return size;
            }
        }
        return Turn(port, 0, metaroce::PullKind::Any);
    }

  private:
    uint32_t Turn(uint32_t port, int kind, metaroce::PullKind pull)
    {
        const std::vector<FakeSender*>& senders = m_senders[port];
        for (std::size_t k = 0; k < senders.size(); ++k)
        {
            const std::size_t i = (m_cursor[port][kind] + k) % senders.size();
            const bool has = kind == 1   ? senders[i]->HasControlWork(port)
                             : kind == 2 ? senders[i]->HasRecoveryWork(port)
                                         : senders[i]->HasWork(port);
            if (has)
            {
                Ptr<Packet> p = senders[i]->Pull(port, pull);
                if (p == nullptr)
                {
                    continue; // held back: the turn goes on, the cursor stays
                }
                // A sender whose burst goes on keeps the turn of new data.
                const bool again = kind == 0 && senders[i]->ContinuesBurst(port);
                m_cursor[port][kind] = again ? i : (i + 1) % senders.size();
                return p->GetSize();
            }
        }
        return 0;
    }

    std::vector<std::vector<FakeSender*>> m_senders;
    std::vector<std::vector<uint32_t>> m_bursts;
    std::vector<std::array<std::size_t, 3>> m_cursor;    ///< any, control, recovery
    std::vector<std::pair<std::size_t, uint32_t>> m_run; ///< per port: sender and its pulls
};

class RoundRobinTestCase : public TestCase
{
  public:
    RoundRobinTestCase()
        : TestCase("port scheduler: the packets of a scan of every sender, in its order, over "
                   "several bit words, uneven ports and a port added late")
    {
    }

  private:
    void DoRun() override
    {
        for (const bool controlFirst : {false, true})
        {
            for (const bool recoveryFirst : {false, true})
            {
                for (const bool exactMarks : {false, true})
                {
                    for (const bool bursts : {false, true})
                    {
                        Run(controlFirst, recoveryFirst, exactMarks, bursts);
                    }
                }
            }
        }
    }

    /// With `exactMarks`, senders are marked with the work they report (MarkWork, as the NIC
    /// does) instead of as maybe having work (kMaybeWork); with `bursts`, every third sender, and
    /// each port's first, has two or three pulls in a row.
    void Run(bool controlFirst, bool recoveryFirst, bool exactMarks, bool bursts)
    {
        constexpr uint32_t kPorts = 3;
        const std::vector<uint32_t> perPort{70, 5, 130};
        MetaRocePortScheduler scheduler;
        scheduler.SetControlFirst(controlFirst);
        scheduler.SetRecoveryFirst(recoveryFirst);
        Reference reference(kPorts);
        // Each sender twice: one copy for the scheduler, one for the reference.
        std::vector<std::unique_ptr<FakeSender>> mine;
        std::vector<std::unique_ptr<FakeSender>> theirs;
        std::vector<std::vector<MetaRocePortScheduler::Slot>> slots;
        // Marks sender `id`; MarkWork must report exactly the ports it woke (none marked before).
        auto mark = [&](uint32_t id) {
            uint64_t idle = 0;
            for (uint32_t port = 0; port < kPorts; ++port)
            {
                idle |= scheduler.MayHaveWork(port) ? 0 : uint64_t{1} << port;
            }
            metaroce::PortWork work = MetaRocePortScheduler::kMaybeWork;
            if (exactMarks)
            {
                work = {};
                for (const auto& [port, slot] : slots[id])
                {
                    const uint64_t bit = uint64_t{1} << port;
                    work.any |= mine[id]->HasWork(port) ? bit : 0;
                    work.control |= mine[id]->HasControlWork(port) ? bit : 0;
                    work.recovery |= mine[id]->HasRecoveryWork(port) ? bit : 0;
                }
            }
            const uint64_t woken = scheduler.MarkWork(*mine[id], slots[id], work);
            uint64_t nowMarked = 0;
            for (uint32_t port = 0; port < kPorts; ++port)
            {
                nowMarked |= scheduler.MayHaveWork(port) ? uint64_t{1} << port : 0;
            }
            NS_TEST_EXPECT_MSG_EQ(woken, (idle & nowMarked), "ports woken by marking " << id);
        };
        scheduler.AddPort();
        scheduler.AddPort();
        for (uint32_t port = 0; port < kPorts; ++port)
        {
            if (port == 2)
            {
                // Work marked before a port is added must survive laying the bits out again.
                for (uint32_t id = 0; id < mine.size(); id += 3)
                {
                    mine[id]->data[slots[id][0].first] += 1;
                    theirs[id]->data[slots[id][0].first] += 1;
                    mark(id);
                }
                scheduler.AddPort();
            }
            for (uint32_t i = 0; i < perPort[port]; ++i)
            {
                const auto id = static_cast<uint32_t>(mine.size());
                const uint32_t burst = bursts && (i == 0 || id % 3 == 0) ? 2 + id % 2 : 1;
                mine.push_back(std::make_unique<FakeSender>(id, kPorts, burst));
                theirs.push_back(std::make_unique<FakeSender>(id, kPorts, burst));
                slots.push_back({scheduler.Add(port, mine.back().get())});
                reference.Add(port, theirs.back().get());
            }
        }
        // Drain what was marked before the last port came (each port until both are empty).
        for (uint32_t port = 0; port < kPorts; ++port)
        {
            while (true)
            {
                Ptr<Packet> p = scheduler.Pull(port, false);
                const uint32_t got = p == nullptr ? 0 : p->GetSize();
                NS_TEST_ASSERT_MSG_EQ(got,
                                      reference.Pull(port, controlFirst, recoveryFirst, false),
                                      "drain " << port);
                if (got == 0)
                {
                    // A pull that found nothing has cleared every mark there.
                    NS_TEST_ASSERT_MSG_EQ(scheduler.MayHaveWork(port),
                                          false,
                                          "port " << port << " drained, still marked");
                    break;
                }
                mark(FakeSender::SenderOf(got));
            }
        }
        uint64_t state = 12345;
        auto next = [&state]() {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<uint32_t>(state >> 33);
        };
        for (int round = 0; round < 2000; ++round)
        {
            // Work appears for a few senders (on their port); they are marked.
            for (int k = 0; k < 3; ++k)
            {
                const uint32_t id = next() % mine.size();
                const uint32_t port = slots[id][0].first;
                const uint32_t kind = next() % 4; // control, recovery, data twice as often
                auto pick = [kind](FakeSender& s) -> std::vector<uint32_t>& {
                    return kind == 0 ? s.control : kind == 1 ? s.recovery : s.data;
                };
                pick(*mine[id])[port] += 1;
                pick(*theirs[id])[port] += 1;
                mark(id);
            }
            // Now and then a sender's window closes or opens again (a call into its engine).
            if (next() % 8 == 0)
            {
                const uint32_t id = next() % mine.size();
                const uint32_t port = slots[id][0].first;
                mine[id]->held[port] = theirs[id]->held[port] = !mine[id]->held[port];
                mark(id);
            }
            const uint32_t port = next() % kPorts;
            const bool paused = next() % 5 == 0; // PFC: control only
            Ptr<Packet> p = scheduler.Pull(port, paused);
            const uint32_t got = p == nullptr ? 0 : p->GetSize();
            const uint32_t want = reference.Pull(port, controlFirst, recoveryFirst, paused);
            NS_TEST_ASSERT_MSG_EQ(got,
                                  want,
                                  "round " << round << " port " << port << " control first "
                                           << controlFirst << " recovery first " << recoveryFirst
                                           << " exact marks " << exactMarks << " bursts "
                                           << bursts);
            if (got != 0)
            {
                // As the NIC does after a pull.
                mark(FakeSender::SenderOf(got));
            }
            // MayHaveWork never denies work a sender has (the NIC's ports rely on it).
            for (uint32_t q = 0; q < kPorts; ++q)
            {
                bool any = false;
                for (const auto& sender : theirs)
                {
                    any = any || sender->HasWork(q);
                }
                NS_TEST_ASSERT_MSG_EQ(!any || scheduler.MayHaveWork(q),
                                      true,
                                      "round " << round << ": port " << q << " has work, unmarked");
            }
        }
    }
};

class BurstTestCase : public TestCase
{
  public:
    BurstTestCase()
        : TestCase("port scheduler: a sender whose burst goes on has the port again at once, "
                   "the port's first sender too")
    {
    }

  private:
    void DoRun() override
    {
        MetaRocePortScheduler scheduler;
        scheduler.AddPort();
        std::vector<std::unique_ptr<FakeSender>> senders;
        const std::vector<uint32_t> bursts{2, 1, 3};
        for (uint32_t id = 0; id < bursts.size(); ++id)
        {
            senders.push_back(std::make_unique<FakeSender>(id, 1, bursts[id]));
            senders.back()->data[0] = 4;
            scheduler.MarkWork(*senders.back(),
                               {scheduler.Add(0, senders.back().get())},
                               MetaRocePortScheduler::kMaybeWork);
        }
        std::vector<uint32_t> order;
        while (Ptr<Packet> p = scheduler.Pull(0, false))
        {
            order.push_back(FakeSender::SenderOf(p->GetSize()));
        }
        const std::vector<uint32_t> expected{0, 0, 1, 2, 2, 2, 0, 0, 1, 2, 1, 1};
        NS_TEST_ASSERT_MSG_EQ(order.size(), expected.size(), "every packet");
        for (std::size_t k = 0; k < expected.size(); ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(order[k], expected[k], "pull " << k);
        }
    }
};

/// MarkWork writes only what changed since a sender's last marks (Sender::m_marks): a port the
/// sender joins after reporting work there starts unmarked, and the same report marks it then.
class MarkAfterJoinTestCase : public TestCase
{
  public:
    MarkAfterJoinTestCase()
        : TestCase("port scheduler: work reported before joining a port is marked after it")
    {
    }

  private:
    void DoRun() override
    {
        MetaRocePortScheduler scheduler;
        scheduler.AddPort();
        scheduler.AddPort();
        FakeSender sender(0, 2);
        sender.data = {1, 1};
        const metaroce::PortWork work{0b11, 0, 0};
        std::vector<MetaRocePortScheduler::Slot> slots{scheduler.Add(0, &sender)};
        scheduler.MarkWork(sender, slots, work);
        slots.push_back(scheduler.Add(1, &sender));
        NS_TEST_EXPECT_MSG_EQ(scheduler.MayHaveWork(1), false, "a new slot starts unmarked");
        scheduler.MarkWork(sender, slots, work);
        NS_TEST_EXPECT_MSG_EQ(scheduler.MayHaveWork(1), true, "the same report marks it");
        NS_TEST_EXPECT_MSG_NE(scheduler.Pull(1, false), nullptr, "and its packet leaves");
    }
};

class PortSchedulerTestSuite : public TestSuite
{
  public:
    PortSchedulerTestSuite()
        : TestSuite("metaroce-port-scheduler", Type::UNIT)
    {
        AddTestCase(new RoundRobinTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new BurstTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new MarkAfterJoinTestCase, MetaRoceTestDuration::QUICK);
    }
};

PortSchedulerTestSuite g_portSchedulerTestSuite;

} // namespace
