// Receiver admission (spec 8.5): the credit's ramp, and a sender held to its unscheduled window
// and then to the receiver's credit.
#include "admission-credit.h"
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

constexpr uint32_t kMtu = 1024;
constexpr uint64_t kPacket = kMtu + kMrMaxDataHeaderSize; // M of spec 9.1

TEST(AdmissionCredit, RampsOnePacketPerArrivalAndFallsAtOnce)
{
    AdmissionCredit credit(kPacket, kPacket); // the sender's unscheduled window: one packet
    EXPECT_EQ(credit.Next(5), 0u);            // no target: no admission
    credit.SetTarget(10 * kPacket);
    EXPECT_EQ(credit.Next(0), kPacket);
    EXPECT_EQ(credit.Next(2), 3 * kPacket);
    EXPECT_EQ(credit.Next(3), 6 * kPacket);
    EXPECT_EQ(credit.Next(100), 10 * kPacket); // capped by the target
    credit.SetTarget(2 * kPacket + 7);
    EXPECT_EQ(credit.Next(4), 2 * kPacket + 7); // falls to the target at once
    credit.SetTarget(100);
    EXPECT_EQ(credit.Next(1), kPacket); // never below one packet
    credit.SetTarget(uint64_t{1} << 40);
    EXPECT_EQ(credit.Next(1), 2 * kPacket); // grows from where it was
}

struct Ends
{
    explicit Ends(uint64_t unscheduled)
    {
        MetaRoceConfig c;
        c.flowsPerPort = 1;
        c.mtu = kMtu;
        c.ackEveryPackets = 16;
        c.initialFlowWindowPackets = 64;
        c.unscheduledBytes = unscheduled;
        c.tailMarkers = false; // these tests count the DATA a credit lets out
        std::tie(a, b) = ConnectedEnds(c);
    }

    /// Every packet `from` has for port 0 at `now`.
    static std::vector<OutPacket> Pull(MetaRoceConnection& from, TimeNs now)
    {
        return PullAllPackets(from, 0, now);
    }

    /// Delivers `data` to b at `now`, lets its ACK fall due (coalesced or delayed) and hands
    /// it to a; returns the ACK's credit.
    uint32_t RoundTrip(const std::vector<OutPacket>& data, TimeNs now)
    {
        for (const OutPacket& p : data)
        {
            EXPECT_TRUE(DeliverPacket(*b, p, now).accepted);
        }
        std::vector<OutPacket> acks = Pull(*b, now);
        if (acks.empty())
        {
            const TimeNs due = b->NextTimeout();
            b->OnTimeout(due);
            acks = Pull(*b, due);
        }
        if (acks.size() != 1)
        {
            ADD_FAILURE() << acks.size() << " ACKs instead of one";
            return 0;
        }
        const MrHeader ack =
            *MrParse(acks[0].header.data(), acks[0].header.size(), acks[0].WireSize()).header;
        EXPECT_TRUE(DeliverPacket(*a, acks[0], now + 10'000).accepted);
        return ack.creditBytes;
    }

    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

TEST(AdmissionCredit, RampsFromTheUnscheduledWindow)
{
    AdmissionCredit credit(kPacket, 4 * kPacket + 1);
    credit.SetTarget(10 * kPacket);
    EXPECT_EQ(credit.Next(1), 5 * kPacket + 1);
    EXPECT_EQ(credit.Next(10), 10 * kPacket);
}

TEST(AdmissionCredit, WithoutAnUnscheduledLimitTheFirstCreditIsTheTarget)
{
    AdmissionCredit credit(kPacket, 0);
    EXPECT_EQ(credit.Next(1), 0u);
    credit.SetTarget(10 * kPacket);
    EXPECT_EQ(credit.Next(1), 10 * kPacket); // the sender already sent its windows' worth
    credit.SetTarget(3 * kPacket);
    EXPECT_EQ(credit.Next(0), 3 * kPacket); // falls to the target
    credit.SetTarget(6 * kPacket);
    EXPECT_EQ(credit.Next(1), 4 * kPacket); // then ramps as with a window
    credit.SetTarget(UINT64_MAX);
    EXPECT_EQ(credit.Next(1), 5 * kPacket);
}

TEST(ReceiverAdmission, SenderWaitsForCreditAfterItsUnscheduledWindow)
{
    Ends e(kPacket);
    e.b->SetAdmissionTarget(3 * kPacket);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 64 * kMtu}, 0);
    auto first = Ends::Pull(*e.a, 0);
    ASSERT_EQ(first.size(), 1u); // the unscheduled window: one packet
    EXPECT_EQ(e.a->Requester().AdmissionLimit(), kPacket);

    // One packet arrived: the credit grows from one packet to two.
    EXPECT_EQ(e.RoundTrip(first, 100), 2 * kPacket);
    EXPECT_EQ(e.a->Requester().AdmissionLimit(), 2 * kPacket);
    auto second = Ends::Pull(*e.a, 20'000);
    ASSERT_EQ(second.size(), 2u);

    // Two more: capped by the target.
    EXPECT_EQ(e.RoundTrip(second, 20'100), 3 * kPacket);
    EXPECT_EQ(Ends::Pull(*e.a, 40'000).size(), 3u);

    // The receiver has more senders now: the next credit is the smaller share at once.
    e.b->SetAdmissionTarget(kPacket);
    auto third = Ends::Pull(*e.a, 40'000);
    EXPECT_TRUE(third.empty()); // still three in flight
}

TEST(ReceiverAdmission, ReceiverWithoutAdmissionLiftsTheUnscheduledLimit)
{
    Ends e(kPacket);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 64 * kMtu}, 0);
    auto first = Ends::Pull(*e.a, 0);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(e.RoundTrip(first, 100), 0u);
    EXPECT_EQ(e.a->Requester().AdmissionLimit(), kNoAdmissionLimit);
    EXPECT_EQ(Ends::Pull(*e.a, 20'000).size(), 63u); // the rest of the message, window allowing
}

TEST(ReceiverAdmission, CreditBindsASenderWithoutAnUnscheduledWindow)
{
    Ends e(0);
    e.b->SetAdmissionTarget(2 * kPacket);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 64 * kMtu}, 0);
    EXPECT_EQ(e.a->Requester().AdmissionLimit(), kNoAdmissionLimit);
    auto first = Ends::Pull(*e.a, 0);
    ASSERT_EQ(first.size(), 64u); // no limit before the first ACK
    EXPECT_EQ(e.RoundTrip({first.begin(), first.begin() + 16}, 100), 2 * kPacket);
    EXPECT_EQ(e.a->Requester().AdmissionLimit(), 2 * kPacket);
}

} // namespace
} // namespace metaroce
