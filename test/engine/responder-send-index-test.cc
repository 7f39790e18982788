// Two SENDs of one stream claiming one receive index (a broken or hostile peer): the second is
// refused (spec 5.8 check 19), so the RECV completes once. Before the check, both were placed
// and the second in-order completion popped an empty RECV queue (found by the scenario fuzz
// target, test/fuzz/corpus/scenario/regress-send-index).
#include "metaroce-connection.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>

namespace metaroce
{
namespace
{

std::vector<uint8_t>
Send(uint32_t fsn, uint32_t msn, uint32_t recvIndex, uint32_t length)
{
    MrHeader h;
    h.opcode = MrOpcode::Send;
    h.flags = kMrFlagFirst | kMrFlagLast | kMrFlagAckReq;
    h.connection = 1;
    h.fsn = fsn;
    h.msn = msn;
    h.messageLength = length;
    h.payloadLength = length;
    h.recvIndex = recvIndex;
    std::vector<uint8_t> bytes(h.Size());
    MrSerialize(h, bytes.data());
    return bytes;
}

TEST(ResponderSendIndex, TwoSendsCannotClaimOneRecv)
{
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    MetaRoceConnection conn(c);
    conn.PostRecv(WorkRequest{7, Opcode::Recv, 0, 4096});
    const auto later = Send(1, 1, 0, 100);   // MSN 1 claims RECV 0 first
    const auto earlier = Send(0, 0, 0, 300); // then MSN 0 claims it too
    RxPacket rx;
    rx.data = later.data();
    rx.size = later.size();
    rx.wireSize = later.size() + 100;
    EXPECT_TRUE(conn.OnPacket(rx).accepted);
    rx.data = earlier.data();
    rx.size = earlier.size();
    rx.wireSize = earlier.size() + 300;
    const RxResult r = conn.OnPacket(rx);
    EXPECT_FALSE(r.accepted);
    EXPECT_EQ(r.reason, DropReason::BadField);
    EXPECT_TRUE(conn.TakeCompletions().empty()); // MSN 0 never placed: nothing completes
}

RxResult
Deliver(MetaRoceConnection& conn, const std::vector<uint8_t>& header, uint32_t payload)
{
    RxPacket rx;
    rx.data = header.data();
    rx.size = header.size();
    rx.wireSize = header.size() + payload;
    return conn.OnPacket(rx);
}

TEST(ResponderSendIndex, SendForACompletedRecvIsADuplicateNotPlaced)
{
    // A new MSN naming a RECV that already completed: counted as a duplicate (spec 5.8), never
    // placed. Before, Place() read the RECV queue at recvIndex - recvBase, far outside it
    // (found by the engine fuzz target, ASan SEGV; corpus input regress-recv-below-base).
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    MetaRoceConnection conn(c);
    conn.PostRecv(WorkRequest{7, Opcode::Recv, 0, 4096});
    ASSERT_TRUE(Deliver(conn, Send(0, 0, 0, 100), 100).accepted);
    ASSERT_EQ(conn.TakeCompletions().size(), 1u); // RECV 0 done: the queue's base is 1
    const uint64_t placed = conn.GetCounters().placedBytes;
    const uint64_t duplicates = conn.GetCounters().Drops(DropReason::Duplicate);
    EXPECT_TRUE(Deliver(conn, Send(1, 5, 0, 100), 100).accepted);
    EXPECT_EQ(conn.GetCounters().placedBytes, placed);
    EXPECT_EQ(conn.GetCounters().Drops(DropReason::Duplicate), duplicates + 1);
    EXPECT_TRUE(conn.TakeCompletions().empty());
}

} // namespace
} // namespace metaroce
