/*
 * A two-queue-pair loop for the RoCEv2 engine tests: A and B are connected back to back with no
 * delay. Each round pulls every packet each side will give, logs it, drops the ones the test
 * chose (by index in its direction, or by predicate), marks CE where asked, and delivers the rest
 * to the other side. When a round moves nothing, the virtual clock jumps to the earliest
 * NextTimeout() of the two. Everything is deterministic, so tests assert exact counts.
 */
#ifndef METAROCE_TEST_ROCEV2_TEST_LOOP_H
#define METAROCE_TEST_ROCEV2_TEST_LOOP_H

#include "engine-memory.h"
#include "rocev2-queue-pair.h"
#include "rocev2-wire.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>
#include <vector>

namespace metaroce::test
{

/// A packet as it crossed the loop.
struct LoggedPacket
{
    OutPacket pkt;
    bool dropped{false};
    bool ce{false};
    TimeNs time{0};

    IbOpcode Op() const
    {
        return static_cast<IbOpcode>(pkt.header[0]);
    }

    uint32_t Psn() const
    {
        return (uint32_t{pkt.header[9]} << 16) | (uint32_t{pkt.header[10]} << 8) | pkt.header[11];
    }

    /// AETH syndrome of an ACKNOWLEDGE packet.
    uint8_t Syndrome() const
    {
        return pkt.header[kIbBthSize];
    }

    bool IsNak() const
    {
        return Op() == IbOpcode::RcAcknowledge && IbSyndromeType(Syndrome()) != IbAethType::Ack;
    }
};

/// The loop's default configuration: small MTU and window so that scenarios stay short.
inline RoceV2Config
LoopConfig(uint32_t localQpn, uint32_t remoteQpn)
{
    RoceV2Config c;
    c.localQpn = localQpn;
    c.remoteQpn = remoteQpn;
    c.mtu = 1024;
    c.windowPackets = 16;
    c.ackEveryPackets = 4;
    c.rtoNs = 100000;
    c.retryLimit = 3;
    c.udpSrcPort = static_cast<uint16_t>(50000 + localQpn);
    c.dcqcn.enabled = false;
    return c;
}

class RoceV2Loop
{
  public:
    explicit RoceV2Loop(const RoceV2Config& a = LoopConfig(0x11, 0x22),
                        const RoceV2Config& b = LoopConfig(0x22, 0x11))
        : qpA(a, memA)
        , qpB(b, memB)
    {
    }

    /// Registers a region with real bytes on one side; `seed` != 0 fills it with a pattern.
    uint8_t* AddRegion(bool onA, uint32_t key, uint64_t addr, std::size_t length, uint8_t seed)
    {
        std::vector<uint8_t>& bytes = m_storage.emplace_back(length);
        for (std::size_t i = 0; seed != 0 && i < length; ++i)
        {
            bytes[i] = static_cast<uint8_t>(seed + i * 7 + i / 251);
        }
        (onA ? memA : memB).Register(MemoryRegion{key, addr, length, bytes.data()});
        return bytes.data();
    }

    /// Delivers `p` to `to` as a real-payload packet when it carries bytes.
    RxResult Deliver(RoceV2QueuePair& to, const OutPacket& p, bool ce = false)
    {
        std::vector<uint8_t> bytes = p.header.ToVector();
        bytes.insert(bytes.end(), p.payload.begin(), p.payload.end());
        return to.OnPacket(RxPacket{bytes.data(), bytes.size(), p.WireSize(), 0, ce, now});
    }

    /// One round; true when some packet was pulled.
    bool Exchange()
    {
        const std::size_t before = aToB.size() + bToA.size();
        std::vector<LoggedPacket> toB = PullAll(qpA, aToB, dropAtoB, dropAtoBIf, markAtoB);
        std::vector<LoggedPacket> toA = PullAll(qpB, bToA, dropBtoA, nullptr, nullptr);
        for (const LoggedPacket& l : toB)
        {
            Deliver(qpB, l.pkt, l.ce);
        }
        for (const LoggedPacket& l : toA)
        {
            Deliver(qpA, l.pkt, l.ce);
        }
        return aToB.size() + bToA.size() > before;
    }

    /// Runs until both sides are idle; false when stuck or past `limit`.
    bool Run(TimeNs limit = 1000000000)
    {
        for (int guard = 0; guard < 200000; ++guard)
        {
            if (Exchange())
            {
                continue;
            }
            if (qpA.Idle() && qpB.Idle())
            {
                return true;
            }
            const TimeNs next = std::min(qpA.NextTimeout(), qpB.NextTimeout());
            if (next == kNever || next > limit)
            {
                return false;
            }
            now = std::max(now, next);
            qpA.OnTimeout(now);
            qpB.OnTimeout(now);
        }
        return false;
    }

    /// Packets of one direction satisfying `pred`.
    static std::size_t Count(const std::vector<LoggedPacket>& log,
                             const std::function<bool(const LoggedPacket&)>& pred)
    {
        return static_cast<std::size_t>(std::count_if(log.begin(), log.end(), pred));
    }

    MemoryRegistry memA;
    MemoryRegistry memB;
    RoceV2QueuePair qpA;
    RoceV2QueuePair qpB;
    TimeNs now{0};
    std::set<std::size_t> dropAtoB; ///< indices (in A-to-B order) of packets to lose
    std::set<std::size_t> dropBtoA;
    std::function<bool(std::size_t, const OutPacket&)> dropAtoBIf;
    std::function<bool(std::size_t, const OutPacket&)> markAtoB; ///< CE-mark A-to-B packets
    std::vector<LoggedPacket> aToB;
    std::vector<LoggedPacket> bToA;

  private:
    std::vector<LoggedPacket> PullAll(
        RoceV2QueuePair& from,
        std::vector<LoggedPacket>& log,
        const std::set<std::size_t>& drops,
        const std::function<bool(std::size_t, const OutPacket&)>& dropIf,
        const std::function<bool(std::size_t, const OutPacket&)>& mark)
    {
        std::vector<LoggedPacket> kept;
        while (std::optional<OutPacket> p = from.PullPacket(0, now))
        {
            const std::size_t index = log.size();
            LoggedPacket l{*p, false, false, now};
            l.dropped = drops.count(index) > 0 || (dropIf && dropIf(index, *p));
            l.ce = mark && mark(index, *p);
            log.push_back(l);
            if (!l.dropped)
            {
                kept.push_back(l);
            }
        }
        return kept;
    }

    std::deque<std::vector<uint8_t>> m_storage;
};

} // namespace metaroce::test

#endif // METAROCE_TEST_ROCEV2_TEST_LOOP_H
