// Completion ordering modes (spec 3.3): in posting order a message completes after every
// earlier one of its stream, in finish order as soon as it finishes; the sequences finish order
// does not support are refused at posting.
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace metaroce
{
namespace
{

/// Two ends on one flow of one port, completing in `order`.
HandDrivenPair
Ends(CompletionOrder order)
{
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    c.streams = 2;
    c.mtu = 1024;
    c.initialFlowWindowPackets = 16;
    // The tests hand over exactly the packets they expect (tail markers have tests of their own).
    c.tailMarkers = false;
    c.completionOrder = static_cast<uint8_t>(order);
    return HandDrivenPair(c);
}

/// The work request ids of `done`, in order.
std::vector<uint64_t>
Ids(const std::vector<Completion>& done)
{
    std::vector<uint64_t> ids;
    for (const Completion& c : done)
    {
        EXPECT_EQ(c.status, CompletionStatus::Success);
        ids.push_back(c.wrId);
    }
    return ids;
}

/// Delivers `packets` to b at `arrive` and every ACK b then has to a at `ackBack`.
void
DeliverAndAck(HandDrivenPair& e,
              const std::vector<OutPacket>& packets,
              TimeNs arrive,
              TimeNs ackBack)
{
    for (const OutPacket& p : packets)
    {
        ASSERT_TRUE(DeliverPacket(*e.b, p, arrive).accepted);
    }
    for (const OutPacket& ack : PullAllPackets(*e.b, 0, arrive))
    {
        ASSERT_TRUE(DeliverPacket(*e.a, ack, ackBack).accepted);
    }
}

/**
 * WRITE 1 (two packets) and WRITE 2 (one) on stream 0; the first packet of WRITE 1 is lost.
 * Returns the requester's completions once WRITE 2 is acknowledged, then once the lost
 * packet's retransmission is.
 */
std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
RequesterUnderLoss(CompletionOrder order)
{
    HandDrivenPair e = Ends(order);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 2048}, 0);
    e.a->PostSend(WorkRequest{2, Opcode::Write, 0, 1024}, 0);
    const std::vector<OutPacket> data = PullAllPackets(*e.a, 0, 0);
    EXPECT_EQ(data.size(), 3u);
    if (data.size() != 3)
    {
        return {};
    }
    DeliverAndAck(e, {data[1], data[2]}, 1'000, 2'000);
    const std::vector<uint64_t> early = Ids(e.a->TakeCompletions());
    // The ACK shows the hole below acknowledged FSNs of the flow: a loss at once (spec 4.6).
    const std::vector<OutPacket> retx = PullAllPackets(*e.a, 0, 2'000);
    EXPECT_FALSE(retx.empty());
    if (retx.empty())
    {
        return {early, {}};
    }
    DeliverAndAck(e, {retx[0]}, 3'000, 4'000);
    EXPECT_TRUE(e.a->Idle());
    return {early, Ids(e.a->TakeCompletions())};
}

TEST(MetaRoceCompletionOrder, FinishOrderCompletesALaterWriteBeforeAnEarlierOneWithALoss)
{
    const auto [early, late] = RequesterUnderLoss(CompletionOrder::Finish);
    EXPECT_EQ(early, std::vector<uint64_t>{2}) << "WRITE 2 finished: it completes at once";
    EXPECT_EQ(late, std::vector<uint64_t>{1}) << "and WRITE 1 once its packet is repaired";
}

TEST(MetaRoceCompletionOrder, PostingOrderNeverCompletesALaterWriteFirst)
{
    const auto [early, late] = RequesterUnderLoss(CompletionOrder::Posting);
    EXPECT_TRUE(early.empty()) << "WRITE 2 waits for WRITE 1";
    EXPECT_EQ(late, (std::vector<uint64_t>{1, 2}));
}

/**
 * RECVs 100 and 101 on stream 0 of b, SENDs 1 and 2 from a; the packets of SEND 2 arrive
 * first. Returns b's completions after SEND 2 arrived, then after SEND 1 did.
 */
std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
ResponderOutOfOrder(CompletionOrder order)
{
    HandDrivenPair e = Ends(order);
    e.b->PostRecv(WorkRequest{100, Opcode::Recv, 0, 2048});
    e.b->PostRecv(WorkRequest{101, Opcode::Recv, 0, 2048});
    e.a->PostSend(WorkRequest{1, Opcode::Send, 0, 2048}, 0);
    e.a->PostSend(WorkRequest{2, Opcode::Send, 0, 1024}, 0);
    const std::vector<OutPacket> data = PullAllPackets(*e.a, 0, 0);
    EXPECT_EQ(data.size(), 3u);
    if (data.size() != 3)
    {
        return {};
    }
    EXPECT_TRUE(DeliverPacket(*e.b, data[2], 1'000).accepted);
    const std::vector<uint64_t> early = Ids(e.b->TakeCompletions());
    EXPECT_TRUE(DeliverPacket(*e.b, data[1], 2'000).accepted);
    EXPECT_TRUE(DeliverPacket(*e.b, data[0], 2'000).accepted);
    // A duplicate of the early SEND after its RECV completed is not placed nor completed again.
    DeliverPacket(*e.b, data[2], 2'000);
    const std::vector<uint64_t> late = Ids(e.b->TakeCompletions());
    EXPECT_EQ(e.b->GetCounters().completions, 2u) << "each RECV completes once";
    EXPECT_EQ(e.b->GetCounters().placedBytes, 3072u);
    return {early, late};
}

TEST(MetaRoceCompletionOrder, FinishOrderCompletesARecvAsItsSendIsPlaced)
{
    const auto [early, late] = ResponderOutOfOrder(CompletionOrder::Finish);
    EXPECT_EQ(early, std::vector<uint64_t>{101});
    EXPECT_EQ(late, std::vector<uint64_t>{100});
}

TEST(MetaRoceCompletionOrder, PostingOrderCompletesRecvsInOrder)
{
    const auto [early, late] = ResponderOutOfOrder(CompletionOrder::Posting);
    EXPECT_TRUE(early.empty());
    EXPECT_EQ(late, (std::vector<uint64_t>{100, 101}));
}

TEST(MetaRoceCompletionOrder, FinishOrderRefusesASendBehindAnUnfinishedWriteOfItsStream)
{
    HandDrivenPair e = Ends(CompletionOrder::Finish);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 0);
    try
    {
        e.a->PostSend(WorkRequest{2, Opcode::Send, 0, 1024}, 0);
        ADD_FAILURE() << "a SEND behind an unfinished WRITE of its stream was taken";
    }
    catch (const std::invalid_argument& error)
    {
        EXPECT_NE(std::string(error.what()).find("unfinished WRITE of stream 0"), std::string::npos)
            << error.what();
    }
    // Refused, it changed nothing: the WRITE alone goes out.
    const std::vector<OutPacket> data = PullAllPackets(*e.a, 0, 0);
    ASSERT_EQ(data.size(), 1u);
    // Another stream, and a WRITE behind the WRITE, are taken.
    e.a->PostSend(WorkRequest{3, Opcode::Send, 1, 1024}, 0);
    e.a->PostSend(WorkRequest{4, Opcode::Write, 0, 1024}, 0);
    e.b->PostRecv(WorkRequest{100, Opcode::Recv, 1, 1024});
    const std::vector<OutPacket> more = PullAllPackets(*e.a, 0, 0);
    ASSERT_EQ(more.size(), 2u);
    // Once the WRITEs finished (acknowledged: placed), a SEND of their stream is taken.
    DeliverAndAck(e, {data[0]}, 1'000, 2'000);
    EXPECT_THROW(e.a->PostSend(WorkRequest{5, Opcode::Send, 0, 1024}, 2'000), std::invalid_argument)
        << "WRITE 4 has not finished";
    DeliverAndAck(e, more, 3'000, 4'000);
    std::vector<uint64_t> done = Ids(e.a->TakeCompletions());
    std::sort(done.begin(), done.end());
    EXPECT_EQ(done, (std::vector<uint64_t>{1, 3, 4}));
    e.b->PostRecv(WorkRequest{101, Opcode::Recv, 0, 1024});
    EXPECT_NO_THROW(e.a->PostSend(WorkRequest{5, Opcode::Send, 0, 1024}, 4'000));
    // A WRITE behind a SEND needs no refusal: a SEND's completion promises nothing of it.
    EXPECT_NO_THROW(e.a->PostSend(WorkRequest{6, Opcode::Write, 0, 1024}, 4'000));
}

TEST(MetaRoceCompletionOrder, PostingOrderTakesASendBehindAnUnfinishedWrite)
{
    HandDrivenPair e = Ends(CompletionOrder::Posting);
    e.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 0);
    EXPECT_NO_THROW(e.a->PostSend(WorkRequest{2, Opcode::Send, 0, 1024}, 0));
    EXPECT_EQ(PullAllPackets(*e.a, 0, 0).size(), 2u);
}

TEST(MetaRoceCompletionOrder, FinishOrderFlushesInPostingOrderAfterAFailure)
{
    // A failed queue pair completes what is left with errors, in posting order (spec 7.4),
    // after the completions of messages that finished first.
    MemoryRegistry memory;
    std::vector<uint8_t> buf(4096);
    memory.Register({5, 0x1000, buf.size(), buf.data()});
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    c.mtu = 1024;
    c.initialFlowWindowPackets = 16;
    c.tailMarkers = false;
    c.completionOrder = static_cast<uint8_t>(CompletionOrder::Finish);
    c.localConnection = 9;
    c.remoteConnection = 7;
    MetaRoceConnection b(c, &memory);
    std::swap(c.localConnection, c.remoteConnection);
    MetaRoceConnection a(c);
    a.PostSend(WorkRequest{1, Opcode::Write, 0, 1024, 0, 0, 0x1000, 6}, 0); // key 6: unknown
    a.PostSend(WorkRequest{2, Opcode::Write, 0, 1024, 0, 0, 0x1000, 5}, 0);
    a.PostSend(WorkRequest{3, Opcode::Write, 0, 1024, 0, 0, 0x1000, 5}, 0);
    const std::vector<OutPacket> data = PullAllPackets(a, 0, 0);
    ASSERT_EQ(data.size(), 3u);
    EXPECT_TRUE(DeliverPacket(b, data[1], 10).accepted);
    for (const OutPacket& p : PullAllPackets(b, 0, 10))
    {
        DeliverPacket(a, p, 20);
    }
    EXPECT_EQ(DeliverPacket(b, data[0], 30).reason, DropReason::AccessError);
    for (const OutPacket& p : PullAllPackets(b, 0, 30))
    {
        DeliverPacket(a, p, 40);
    }
    const std::vector<Completion> done = a.TakeCompletions();
    ASSERT_EQ(done.size(), 3u);
    EXPECT_EQ(done[0].wrId, 2u);
    EXPECT_EQ(done[0].status, CompletionStatus::Success);
    EXPECT_EQ(done[1].wrId, 1u);
    EXPECT_EQ(done[1].status, CompletionStatus::RemoteAccessError);
    EXPECT_EQ(done[2].wrId, 3u);
    EXPECT_EQ(done[2].status, CompletionStatus::Flushed);
}

TEST(MetaRoceCompletionOrder, OnlyTheDefinedOrdersAreValid)
{
    MetaRoceConfig c;
    c.completionOrder = 2;
    EXPECT_THROW(c.Validate(), std::invalid_argument);
}

} // namespace
} // namespace metaroce
