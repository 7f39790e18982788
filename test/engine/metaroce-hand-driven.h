// What the MetaRoCE engine tests share to drive two connection ends by hand.
#ifndef METAROCE_TEST_ENGINE_METAROCE_HAND_DRIVEN_H
#define METAROCE_TEST_ENGINE_METAROCE_HAND_DRIVEN_H

#include "metaroce-connection.h"
#include "metaroce-wire.h"

#include <gtest/gtest.h>
#include <memory>
#include <set>
#include <tuple> // std::tie, for callers unpacking ConnectedEnds()
#include <utility>
#include <vector>

namespace metaroce
{

/// Hands `p` (its header; payloads stay virtual) to `e` as arriving at `now` on `p`'s port.
inline RxResult
DeliverPacket(MetaRoceConnection& e, const OutPacket& p, TimeNs now, bool ce = false)
{
    std::vector<uint8_t> bytes = p.header.ToVector();
    RxPacket rx;
    rx.data = bytes.data();
    rx.size = bytes.size();
    rx.wireSize = p.WireSize();
    rx.port = p.port;
    rx.ecnCe = ce;
    rx.now = now;
    return e.OnPacket(rx);
}

/// Every packet `e` has for `port` at `now`, pulled until it has no more.
inline std::vector<OutPacket>
PullAllPackets(MetaRoceConnection& e, uint16_t port, TimeNs now)
{
    std::vector<OutPacket> out;
    while (auto p = e.PullPacket(port, now))
    {
        out.push_back(std::move(*p));
    }
    return out;
}

/// `field` of each packet's parsed header, in order (the flow id, whether it asks for an ACK).
template<typename Field>
auto
EachHeader(const std::vector<OutPacket>& packets, Field field)
{
    std::vector<decltype(field(MrHeader{}))> values;
    for (const OutPacket& p : packets)
    {
        values.push_back(field(*MrParse(p.header.data(), p.header.size(), p.WireSize()).header));
    }
    return values;
}

/// The two ends of one connection configured by `c`: connection ids 7 (first) and 9 (second).
inline std::pair<std::unique_ptr<MetaRoceConnection>, std::unique_ptr<MetaRoceConnection>>
ConnectedEnds(MetaRoceConfig c)
{
    c.localConnection = 7;
    c.remoteConnection = 9;
    auto a = std::make_unique<MetaRoceConnection>(c);
    std::swap(c.localConnection, c.remoteConnection);
    return {std::move(a), std::make_unique<MetaRoceConnection>(c)};
}

/// Both ends of a connection configured by `c`, driven by hand on port 0.
struct HandDrivenPair
{
    explicit HandDrivenPair(const MetaRoceConfig& c)
    {
        std::tie(a, b) = ConnectedEnds(c);
    }

    /// Delivers `packets` to b at `arrive`; b's ACKs on the ports they arrived on go back to a at
    /// `ackBack`, port by port.
    void Deliver(const std::vector<OutPacket>& packets, TimeNs arrive, TimeNs ackBack)
    {
        std::set<uint16_t> ports;
        for (const OutPacket& p : packets)
        {
            ASSERT_TRUE(DeliverPacket(*b, p, arrive).accepted);
            ports.insert(p.port);
        }
        for (uint16_t port : ports)
        {
            while (auto ack = b->PullPacket(port, arrive))
            {
                ASSERT_TRUE(DeliverPacket(*a, *ack, ackBack).accepted);
            }
        }
    }

    /// Gives each flow of a's `ports` ports an RTT sample (a burst starts only on a timed
    /// flow, spec 6.2): one packet of `mtu` bytes on each, acknowledged. Returns a time to go
    /// on from.
    TimeNs TimeEveryFlow(uint16_t ports = 1, uint16_t flowsPerPort = 8, uint32_t mtu = 1024)
    {
        a->PostSend(WorkRequest{1'000'000, Opcode::Write, 0, uint64_t{ports} * flowsPerPort * mtu},
                    10);
        std::vector<OutPacket> sent;
        for (uint16_t k = 0; k < flowsPerPort; ++k)
        {
            for (uint16_t port = 0; port < ports; ++port)
            {
                sent.push_back(*a->PullPacket(port, 10)); // at 0 it would carry no timestamp
            }
        }
        Deliver(sent, 100, 200);
        EXPECT_TRUE(a->Requester().Idle()) << "every flow timed";
        return 1'000;
    }

    std::unique_ptr<MetaRoceConnection> a;
    std::unique_ptr<MetaRoceConnection> b;
};

} // namespace metaroce

#endif // METAROCE_TEST_ENGINE_METAROCE_HAND_DRIVEN_H
