/*
 * metaroce-port-scheduler: the NIC's port scheduler pulls exactly what a round-robin scan of
 * every sender would (model/nic/metaroce-port-scheduler.h), with more than 64 senders on a port
 * (several bit words), ports of different sizes, a port added after senders (the bits laid out
 * again), and control first on and off.
 */
#include "ns3/metaroce-port-scheduler.h"
#include "ns3/packet.h"
#include "ns3/test.h"

#include <array>
#include <memory>
#include <vector>

using namespace ns3;

namespace
{

/// A sender with a number of control and data packets per port; a packet's size names it.
class FakeSender : public MetaRocePortScheduler::Sender
{
  public:
    FakeSender(uint32_t id, uint32_t ports)
        : m_id(id)
        , control(ports, 0)
        , data(ports, 0)
    {
    }

    bool HasWork(uint32_t port) const override
    {
        return control[port] > 0 || data[port] > 0;
    }

    bool HasControlWork(uint32_t port) const override
    {
        return control[port] > 0;
    }

    Ptr<Packet> Pull(uint32_t port, bool controlOnly) override
    {
        if (control[port] > 0)
        {
            --control[port];
            return Create<Packet>(2 * m_id + 1);
        }
        if (!controlOnly && data[port] > 0)
        {
            --data[port];
            return Create<Packet>(2 * m_id + 2);
        }
        return nullptr;
    }

    uint32_t m_id;
    std::vector<uint32_t> control;
    std::vector<uint32_t> data;
};

/// The definition: per port and kind a cursor, and a scan of every sender from it.
class Reference
{
  public:
    explicit Reference(uint32_t ports)
        : m_senders(ports)
        , m_cursor(ports, {0, 0})
    {
    }

    void Add(uint32_t port, FakeSender* sender)
    {
        m_senders[port].push_back(sender);
    }

    uint32_t Pull(uint32_t port, bool controlFirst)
    {
        if (controlFirst)
        {
            if (const uint32_t size = Turn(port, 1, true))
            {
                return size;
            }
        }
        return Turn(port, 0, false);
    }

  private:
    uint32_t Turn(uint32_t port, int kind, bool controlOnly)
    {
        const std::vector<FakeSender*>& senders = m_senders[port];
        for (std::size_t k = 0; k < senders.size(); ++k)
        {
            const std::size_t i = (m_cursor[port][kind] + k) % senders.size();
            const bool has =
                kind == 1 ? senders[i]->HasControlWork(port) : senders[i]->HasWork(port);
            if (has)
            {
                Ptr<Packet> p = senders[i]->Pull(port, controlOnly);
                m_cursor[port][kind] = (i + 1) % senders.size();
                return p->GetSize();
            }
        }
        return 0;
    }

    std::vector<std::vector<FakeSender*>> m_senders;
    std::vector<std::array<std::size_t, 2>> m_cursor;
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
            Run(controlFirst);
        }
    }

    void Run(bool controlFirst)
    {
        constexpr uint32_t kPorts = 3;
        const std::vector<uint32_t> perPort{70, 5, 130};
        MetaRocePortScheduler scheduler;
        scheduler.SetControlFirst(controlFirst);
        Reference reference(kPorts);
        // Each sender twice: one copy for the scheduler, one for the reference.
        std::vector<std::unique_ptr<FakeSender>> mine;
        std::vector<std::unique_ptr<FakeSender>> theirs;
        std::vector<std::vector<MetaRocePortScheduler::Slot>> slots;
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
                    scheduler.MarkMaybeWork(slots[id]);
                }
                scheduler.AddPort();
            }
            for (uint32_t i = 0; i < perPort[port]; ++i)
            {
                const auto id = static_cast<uint32_t>(mine.size());
                mine.push_back(std::make_unique<FakeSender>(id, kPorts));
                theirs.push_back(std::make_unique<FakeSender>(id, kPorts));
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
                NS_TEST_ASSERT_MSG_EQ(got, reference.Pull(port, controlFirst), "drain " << port);
                if (got == 0)
                {
                    break;
                }
                scheduler.MarkMaybeWork(slots[(got - 1) / 2]);
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
                const bool control = next() % 3 == 0;
                (control ? mine[id]->control : mine[id]->data)[port] += 1;
                (control ? theirs[id]->control : theirs[id]->data)[port] += 1;
                scheduler.MarkMaybeWork(slots[id]);
            }
            const uint32_t port = next() % kPorts;
            Ptr<Packet> p = scheduler.Pull(port, false);
            const uint32_t got = p == nullptr ? 0 : p->GetSize();
            const uint32_t want = reference.Pull(port, controlFirst);
            NS_TEST_ASSERT_MSG_EQ(got,
                                  want,
                                  "round " << round << " port " << port << " control first "
                                           << controlFirst);
            if (got != 0)
            {
                scheduler.MarkMaybeWork(slots[(got - 1) / 2]); // as the NIC does after a pull
            }
        }
    }
};

class PortSchedulerTestSuite : public TestSuite
{
  public:
    PortSchedulerTestSuite()
        : TestSuite("metaroce-port-scheduler", UNIT)
    {
        AddTestCase(new RoundRobinTestCase, TestCase::QUICK);
    }
};

PortSchedulerTestSuite g_portSchedulerTestSuite;

} // namespace
