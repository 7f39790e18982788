// The mCRC (spec 4.1): a CRC-32C trailer a connection with Mcrc puts on every packet and checks
// on every packet it receives; a flipped bit, or a packet its driver says was corrupted, is
// refused as BadCrc, counted, and placed nowhere. Off by default: no trailer, no check.
#include "mcrc.h"
#include "metaroce-connection.h"
#include "metaroce-hand-driven.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <numeric>
#include <string>

namespace metaroce
{
namespace
{

MetaRoceConfig
McrcConfig(bool mcrc)
{
    MetaRoceConfig c;
    c.flowsPerPort = 1;
    c.mtu = 1024;
    c.tailMarkers = false;
    c.mcrc = mcrc;
    return c;
}

/// The UDP payload of `p`: header, payload and (with the mCRC) trailer, as a driver sends it.
std::vector<uint8_t>
Datagram(const OutPacket& p)
{
    std::vector<uint8_t> bytes = p.header.ToVector();
    bytes.insert(bytes.end(), p.payload.begin(), p.payload.end());
    return bytes;
}

/// Hands every byte of `bytes` to `e` (real-payload mode).
RxResult
HandBytes(MetaRoceConnection& e, const std::vector<uint8_t>& bytes, TimeNs now = 1'000)
{
    RxPacket rx;
    rx.data = bytes.data();
    rx.size = bytes.size();
    rx.wireSize = bytes.size();
    rx.now = now;
    return e.OnPacket(rx);
}

/// Two ends with real, registered buffers; a posted a WRITE of `length` bytes to b.
struct RealPair
{
    RealPair(bool mcrc, uint32_t length)
        : src(length)
        , dst(length)
    {
        std::iota(src.begin(), src.end(), uint8_t{3});
        memA.Register({1, 0x1000, src.size(), src.data()});
        memB.Register({2, 0x9000, dst.size(), dst.data()});
        MetaRoceConfig c = McrcConfig(mcrc);
        c.localConnection = 7;
        c.remoteConnection = 9;
        a = std::make_unique<MetaRoceConnection>(c, &memA);
        std::swap(c.localConnection, c.remoteConnection);
        b = std::make_unique<MetaRoceConnection>(c, &memB);
        a->PostSend(WorkRequest{1, Opcode::Write, 0, length, 0x1000, 1, 0x9000, 2}, 10);
    }

    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    MemoryRegistry memA;
    MemoryRegistry memB;
    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

TEST(MetaRoceMcrc, IsCrc32c)
{
    // The check value of CRC-32C (Castagnoli) over "123456789".
    const std::string check = "123456789";
    EXPECT_EQ(McrcCompute(reinterpret_cast<const uint8_t*>(check.data()), check.size()),
              0xE3069283u);
    // A virtual payload is covered as zeros.
    const std::vector<uint8_t> withZeros = {1, 2, 3, 0, 0, 0, 0, 0};
    EXPECT_EQ(McrcCompute(withZeros.data(), 3, 5), McrcCompute(withZeros.data(), 8));
}

TEST(MetaRoceMcrc, OffByDefaultAddsNothing)
{
    EXPECT_FALSE(MetaRoceConfig{}.mcrc);
    RealPair pair(false, 512);
    const OutPacket p = *pair.a->PullPacket(0, 20);
    EXPECT_EQ(p.WireSize(), kMrWriteHeaderSize + 512);
    EXPECT_TRUE(HandBytes(*pair.b, Datagram(p)).accepted);
}

TEST(MetaRoceMcrc, TrailerFollowsThePayloadAndChecksOut)
{
    RealPair pair(true, 512);
    const OutPacket p = *pair.a->PullPacket(0, 20);
    ASSERT_EQ(p.WireSize(), kMrWriteHeaderSize + 512 + kMcrcSize);
    const std::vector<uint8_t> bytes = Datagram(p);
    EXPECT_EQ(McrcCompute(bytes.data(), bytes.size() - kMcrcSize),
              uint32_t{bytes[bytes.size() - 4]} << 24 | uint32_t{bytes[bytes.size() - 3]} << 16 |
                  uint32_t{bytes[bytes.size() - 2]} << 8 | bytes[bytes.size() - 1]);
    EXPECT_TRUE(HandBytes(*pair.b, bytes).accepted);
    EXPECT_EQ(pair.b->GetCounters().placedBytes, 512u);
    EXPECT_TRUE(std::equal(pair.src.begin(), pair.src.end(), pair.dst.begin()));
    // Its ACK carries a trailer too, and the requester checks it.
    const OutPacket ack = *pair.b->PullPacket(0, 1'000);
    EXPECT_EQ(ack.payload.size(), kMcrcSize);
    EXPECT_TRUE(HandBytes(*pair.a, Datagram(ack), 2'000).accepted);
}

TEST(MetaRoceMcrc, EveryFlippedBitIsRefusedCountedAndNotPlaced)
{
    RealPair pair(true, 256);
    const std::vector<uint8_t> good = Datagram(*pair.a->PullPacket(0, 20));
    for (std::size_t bit = 0; bit < good.size() * 8; ++bit)
    {
        std::vector<uint8_t> bad = good;
        bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        const RxResult r = HandBytes(*pair.b, bad);
        ASSERT_FALSE(r.accepted) << "bit " << bit;
        ASSERT_EQ(r.reason, DropReason::BadCrc) << "bit " << bit;
    }
    const Counters& c = pair.b->GetCounters();
    EXPECT_EQ(c.Drops(DropReason::BadCrc), good.size() * 8);
    EXPECT_EQ(c.TotalDrops(), good.size() * 8);
    EXPECT_EQ(c.placedBytes, 0u);
    EXPECT_FALSE(pair.b->PullPacket(0, 5'000)) << "a refused packet is not acknowledged";
    // The intact packet is still welcome.
    EXPECT_TRUE(HandBytes(*pair.b, good).accepted);
    EXPECT_EQ(pair.b->GetCounters().placedBytes, 256u);
}

TEST(MetaRoceMcrc, ACorruptedVirtualPacketIsRefusedOnlyWithTheCheck)
{
    // The simulator's packets carry no payload bytes: its channel says the packet was hit.
    for (const bool mcrc : {true, false})
    {
        HandDrivenPair pair(McrcConfig(mcrc));
        pair.a->PostSend(WorkRequest{1, Opcode::Write, 0, 1024}, 10);
        const OutPacket p = *pair.a->PullPacket(0, 20);
        std::vector<uint8_t> head = p.header.ToVector();
        RxPacket rx;
        rx.data = head.data();
        rx.size = head.size();
        rx.wireSize = p.WireSize();
        rx.corrupted = true;
        rx.now = 1'000;
        const RxResult r = pair.b->OnPacket(rx);
        if (mcrc)
        {
            EXPECT_FALSE(r.accepted);
            EXPECT_EQ(r.reason, DropReason::BadCrc);
            EXPECT_EQ(pair.b->GetCounters().Drops(DropReason::BadCrc), 1u);
            EXPECT_EQ(pair.b->GetCounters().placedBytes, 0u);
            rx.corrupted = false;
            EXPECT_TRUE(pair.b->OnPacket(rx).accepted) << "the same packet, intact";
        }
        else
        {
            // Without the mCRC nothing in the transport can tell: the bit error goes undetected.
            EXPECT_TRUE(r.accepted);
        }
    }
}

TEST(MetaRoceMcrc, APacketTooShortForItsTrailerIsTruncated)
{
    HandDrivenPair pair(McrcConfig(true));
    const std::vector<uint8_t> tiny = {0x13, 0, 0};
    const RxResult r = HandBytes(*pair.b, tiny);
    EXPECT_EQ(r.reason, DropReason::Truncated);
}

TEST(MetaRoceMcrc, AMessageCompletesOverEndsThatBothCheck)
{
    // Hand-driven virtual payloads with the mCRC on: sizes include the trailer, nothing refused.
    HandDrivenPair pair(McrcConfig(true));
    pair.a->PostSend(WorkRequest{1, Opcode::Write, 0, 8 * 1024}, 10);
    TimeNs t = 20;
    std::size_t packets = 0;
    for (int round = 0; round < 32 && pair.b->GetCounters().placedBytes < 8u * 1024; ++round)
    {
        const std::vector<OutPacket> sent = PullAllPackets(*pair.a, 0, t);
        for (const OutPacket& p : sent)
        {
            EXPECT_EQ(p.WireSize(), kMrWriteHeaderSize + 1024 + kMcrcSize);
        }
        packets += sent.size();
        pair.Deliver(sent, t + 1'000, t + 2'000);
        t += 3'000;
    }
    EXPECT_EQ(packets, 8u);
    EXPECT_EQ(pair.b->GetCounters().placedBytes, 8u * 1024);
    EXPECT_EQ(pair.b->GetCounters().TotalDrops() + pair.a->GetCounters().TotalDrops(), 0u);
    EXPECT_EQ(pair.a->TakeCompletions().size(), 1u);
}

} // namespace
} // namespace metaroce
