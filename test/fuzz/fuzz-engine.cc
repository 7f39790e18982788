// Stateful fuzz target: a connected pair of engines (MetaRoCE connections, with or without
// receiver admission and retransmission copies, or RoCEv2 queue pairs: the first byte chooses)
// driven through the TransportEngine API by the fuzz input, one operation at a time: post
// WRITE/SEND/RECV (valid and invalid), move packets between the ends (delivered, dropped,
// duplicated, bit-flipped, truncated, reordered), inject raw bytes or mutated copies of real
// packets (bytes overwritten, or one header field set to an edge value: fuzz-field-mutation.h),
// take ports down and up, advance the clock and fire timers.
//
// After every operation it checks what must hold whatever a peer sends (spec 1.3, 5.8, 8.4):
//   - no crash, no sanitizer report, no exception but std::invalid_argument from a Post;
//   - nothing written outside registered memory (guard bytes around each region);
//   - a refused packet is counted under exactly the reason returned, an accepted one under at
//     most Duplicate/OutOfSequence; txPackets = packets pulled; rxPackets = packets handed in;
//   - every completion is of a posted request and arrives exactly once; the completions
//     counter equals the completions taken;
//   - MetaRoCE: the requester's NextTimeout() equals NextTimeoutByScan(), and its tail index
//     finds FindTail()'s packet.
// At the end, with every port up and no more faults, every posted WRITE/SEND must complete
// (successfully or with an error) within a bounded number of timer events.
// METAROCE_FUZZ_TRACE=1 prints each step, post and injection (to read a crash input).
#include "fuzz-field-mutation.h"
#include "fuzz-input.h"
#include "metaroce-connection.h"
#include "rocev2-queue-pair.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <set>
#include <stdexcept>

using namespace metaroce;
using metaroce_fuzz::Check;
using metaroce_fuzz::FuzzInput;

namespace
{

constexpr uint64_t kRegionAddr = 0x10000;
constexpr std::size_t kRegionBytes = 16384;
constexpr std::size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;
constexpr uint64_t kRecvIdBase = 1'000'000;

/// One end: its memory (guard | region | guard), registry, engine and bookkeeping.
struct End
{
    std::vector<uint8_t> memory = std::vector<uint8_t>(kRegionBytes + 2 * kGuard, kGuardByte);
    MemoryRegistry registry;
    std::unique_ptr<TransportEngine> engine;
    MetaRoceConnection* metaroce{nullptr};
    uint16_t ports{1};
    uint64_t pulled{0};
    uint64_t handedIn{0};
    uint64_t completionsTaken{0};
    std::set<uint64_t> postedSends;
    std::set<uint64_t> postedRecvs;
    std::set<uint64_t> completed;
};

struct Pair
{
    End ends[2];
    TimeNs now{1000};
    uint64_t nextId{1};
    std::deque<std::pair<int, OutPacket>> history; ///< recent packets, for mutated replays
};

/// The first input byte: bit 0 chooses RoCEv2 (1) or MetaRoCE (0); for MetaRoCE, bit 2 turns
/// receiver admission on (spec 8.5: one packet unscheduled, then a credit of 1-8 packets chosen
/// by bits 3-5), bit 6 two copies of every retransmission (spec 7.3); bit 1 is unused.
void
Setup(Pair& p, uint8_t mode)
{
    const bool metaroce = (mode & 1) == 0;
    const bool admission = (mode & 4) != 0;
    for (int i = 0; i < 2; ++i)
    {
        End& e = p.ends[i];
        std::fill(e.memory.begin(), e.memory.end(), kGuardByte);
        for (std::size_t k = 0; k < kRegionBytes; ++k)
        {
            e.memory[kGuard + k] = static_cast<uint8_t>(k * 7 + i);
        }
        e.registry.Register({1, kRegionAddr, kRegionBytes, e.memory.data() + kGuard});
        if (metaroce)
        {
            MetaRoceConfig c;
            c.ports = 2;
            c.flowsPerPort = 2;
            c.streams = 2;
            c.mtu = 512;
            c.localConnection = i == 0 ? 10 : 20;
            c.remoteConnection = i == 0 ? 20 : 10;
            c.seed = 1 + i;
            c.retransmitCopies = (mode & 64) != 0 ? 2 : 1;
            c.unscheduledBytes = admission ? c.mtu : 0;
            auto conn = std::make_unique<MetaRoceConnection>(c, &e.registry);
            if (admission)
            {
                conn->SetAdmissionTarget(c.mtu * (1 + ((mode >> 3) & 7)));
            }
            e.metaroce = conn.get();
            e.engine = std::move(conn);
            e.ports = 2;
        }
        else
        {
            RoceV2Config c;
            c.localQpn = i == 0 ? 2 : 3;
            c.remoteQpn = i == 0 ? 3 : 2;
            c.mtu = 256;
            // 7 means "retry forever" (IBA, spec 10.3): a SEND with no RECV would never end.
            c.rnrRetryLimit = 3;
            e.engine = std::make_unique<RoceV2QueuePair>(c, e.registry);
        }
    }
}

void
CheckEnd(const End& e)
{
    for (std::size_t k = 0; k < kGuard; ++k)
    {
        Check(e.memory[k] == kGuardByte && e.memory[kGuard + kRegionBytes + k] == kGuardByte,
              "a byte was written outside registered memory");
    }
    const Counters& c = e.engine->GetCounters();
    Check(c.txPackets == e.pulled, "txPackets != packets pulled");
    Check(c.rxPackets == e.handedIn, "rxPackets != packets handed in");
    Check(c.completions == e.completionsTaken, "completions counter != completions taken");
    if (e.metaroce)
    {
        Check(e.metaroce->Requester().NextTimeout() == e.metaroce->Requester().NextTimeoutByScan(),
              "NextTimeout() != NextTimeoutByScan()");
        Check(e.metaroce->Requester().TailIndexAgrees(), "the tail index and FindTail differ");
    }
}

void
TakeCompletions(End& e)
{
    for (const Completion& c : e.engine->TakeCompletions())
    {
        ++e.completionsTaken;
        const bool known = c.op == Opcode::Recv ? e.postedRecvs.count(c.wrId) > 0
                                                : e.postedSends.count(c.wrId) > 0;
        Check(known, "completion of a request never posted");
        Check(e.completed.insert(c.wrId).second, "a request completed twice");
    }
}

/// Hands `bytes` to end `side` and checks the drop accounting of the answer.
void
HandIn(Pair& p, int side, const std::vector<uint8_t>& bytes, std::size_t wireSize, uint16_t port)
{
    End& e = p.ends[side];
    const Counters before = e.engine->GetCounters();
    RxPacket rx;
    rx.data = bytes.data();
    rx.size = bytes.size();
    rx.wireSize = wireSize;
    rx.port = port;
    rx.now = p.now;
    ++e.handedIn;
    const RxResult r = e.engine->OnPacket(rx);
    const Counters& after = e.engine->GetCounters();
    uint64_t delta = 0;
    for (std::size_t i = 0; i < kDropReasons.size(); ++i)
    {
        delta += after.drops[i] - before.drops[i];
    }
    if (!r.accepted)
    {
        Check(r.reason != DropReason::Count, "refused without a reason");
        Check(delta == 1 && after.Drops(r.reason) == before.Drops(r.reason) + 1,
              "a refused packet not counted once under its reason");
    }
    else
    {
        const uint64_t benign =
            after.Drops(DropReason::Duplicate) - before.Drops(DropReason::Duplicate) +
            after.Drops(DropReason::OutOfSequence) - before.Drops(DropReason::OutOfSequence);
        Check(delta == benign && delta <= 1, "an accepted packet counted as a drop");
    }
}

void
Post(Pair& p, FuzzInput& in, Opcode op)
{
    const int side = in.U8() & 1;
    End& e = p.ends[op == Opcode::Recv ? 1 - side : side];
    WorkRequest wr;
    wr.id = op == Opcode::Recv ? kRecvIdBase + p.nextId++ : p.nextId++;
    wr.op = op;
    const uint8_t shape = in.U8();
    wr.stream = shape % 3; // 2 is one past the MetaRoCE streams
    wr.length = shape & 0x80 ? in.U16() : in.U8() + (shape & 0x40 ? 0 : 1);
    wr.localKey = shape & 0x20 ? 1 : (shape & 0x10 ? 0 : 9);
    wr.localAddr = kRegionAddr + (in.U16() % (kRegionBytes + 512));
    wr.remoteKey = shape & 0x08 ? 1 : (shape & 0x04 ? 0 : 9);
    wr.remoteAddr = kRegionAddr + (in.U16() % (kRegionBytes + 512));
    try
    {
        if (op == Opcode::Recv)
        {
            e.engine->PostRecv(wr);
            e.postedRecvs.insert(wr.id);
        }
        else
        {
            e.engine->PostSend(wr, p.now);
            e.postedSends.insert(wr.id);
        }
        if (std::getenv("METAROCE_FUZZ_TRACE"))
        {
            std::fprintf(stderr,
                         "posted %s id %llu stream %u length %llu local %u:%llx remote %u:%llx\n",
                         OpcodeName(op),
                         static_cast<unsigned long long>(wr.id),
                         wr.stream,
                         static_cast<unsigned long long>(wr.length),
                         wr.localKey,
                         static_cast<unsigned long long>(wr.localAddr),
                         wr.remoteKey,
                         static_cast<unsigned long long>(wr.remoteAddr));
        }
    }
    catch (const std::invalid_argument&)
    {
        // A malformed request is refused and changes nothing (spec 1.3).
    }
}

void
Remember(Pair& p, int to, const OutPacket& pkt)
{
    p.history.emplace_back(to, pkt);
    if (p.history.size() > 16)
    {
        p.history.pop_front();
    }
}

/// Pulls one packet from every port of both ends and delivers it with the fault `fault` says.
void
Pump(Pair& p, uint8_t fault, bool faults)
{
    for (int side = 0; side < 2; ++side)
    {
        End& e = p.ends[side];
        for (uint16_t port = 0; port < e.ports; ++port)
        {
            std::optional<OutPacket> pkt = e.engine->PullPacket(port, p.now);
            if (!pkt)
            {
                continue;
            }
            ++e.pulled;
            Remember(p, 1 - side, *pkt);
            std::vector<uint8_t> bytes = pkt->header.ToVector();
            bytes.insert(bytes.end(), pkt->payload.begin(), pkt->payload.end());
            const uint8_t kind = faults ? fault % 8 : 0;
            if (kind == 1)
            {
                continue; // lost
            }
            if (kind == 2 && !bytes.empty())
            {
                bytes[(fault >> 3) % bytes.size()] ^= static_cast<uint8_t>(1u << (fault & 7));
            }
            if (kind == 3 && !bytes.empty())
            {
                bytes.resize(bytes.size() - 1 - (fault >> 3) % bytes.size());
            }
            const std::size_t wire = kind == 3 ? bytes.size() : pkt->WireSize();
            HandIn(p, 1 - side, bytes, wire, pkt->port);
            if (kind == 4)
            {
                HandIn(p, 1 - side, bytes, wire, pkt->port); // duplicated
            }
        }
    }
}

void
FireTimers(Pair& p, bool jump)
{
    TimeNs next = kNever;
    for (End& e : p.ends)
    {
        next = std::min(next, e.engine->NextTimeout());
    }
    if (jump && next != kNever && next > p.now)
    {
        p.now = next;
    }
    for (End& e : p.ends)
    {
        if (e.engine->NextTimeout() <= p.now)
        {
            e.engine->OnTimeout(p.now);
        }
    }
}

/// How Inject() makes its packet.
enum class Injected
{
    Raw,      ///< bytes from the input
    Bytes,    ///< a recent real packet with a few bytes overwritten
    OneField, ///< a recent real packet with one header field set to an edge value
};

void
Inject(Pair& p, FuzzInput& in, Injected kind)
{
    const uint8_t how = in.U8();
    std::vector<uint8_t> bytes;
    int side = how & 1;
    uint16_t port = (how >> 1) % 3; // 2: out of range for both transports
    std::size_t wire;
    if (kind != Injected::Raw && !p.history.empty())
    {
        const auto& [to, pkt] = p.history[(how >> 3) % p.history.size()];
        side = to;
        port = pkt.port;
        bytes = pkt.header.ToVector();
        bytes.insert(bytes.end(), pkt.payload.begin(), pkt.payload.end());
        wire = pkt.WireSize();
        const bool metaroce = p.ends[side].metaroce != nullptr;
        if (kind == Injected::OneField &&
            !(metaroce ? metaroce_fuzz::MutateMrField(bytes, wire, in)
                       : metaroce_fuzz::MutateIbField(bytes, wire, in)))
        {
            return; // not a header this end parses (a cut copy): nothing to inject
        }
        for (int k = kind == Injected::Bytes ? in.U8() % 4 : -1; k >= 0 && !bytes.empty(); --k)
        {
            const uint8_t at = in.U8();
            bytes[at % bytes.size()] = in.U8();
        }
    }
    else
    {
        bytes = in.Bytes(in.U8());
        wire = bytes.size() + (how & 0x80 ? in.U16() % 5000 : 0);
    }
    if (std::getenv("METAROCE_FUZZ_TRACE"))
    {
        std::fprintf(stderr,
                     "inject %zu bytes (wire %zu) into end %d port %u:",
                     bytes.size(),
                     wire,
                     side,
                     port);
        for (uint8_t b : bytes)
        {
            std::fprintf(stderr, " %02x", b);
        }
        std::fprintf(stderr, "\n");
    }
    HandIn(p, side, bytes, wire, port);
}

void
Step(Pair& p, FuzzInput& in)
{
    // Op bytes 250-255 inject a packet with one field at an edge value; the rest choose as they
    // always did, so the committed corpora keep their meaning but for those six values.
    const uint8_t byte = in.U8();
    const uint8_t op = byte >= 250 ? 10 : byte % 10;
    if (std::getenv("METAROCE_FUZZ_TRACE"))
    {
        std::fprintf(stderr, "step %u at %llu\n", op, static_cast<unsigned long long>(p.now));
    }
    switch (op)
    {
    case 0:
        Post(p, in, Opcode::Write);
        break;
    case 1:
        Post(p, in, Opcode::Send);
        break;
    case 2:
        Post(p, in, Opcode::Recv);
        break;
    case 3:
    case 4:
        for (int n = in.U8() % 16; n >= 0; --n)
        {
            Pump(p, in.U8(), true);
            p.now += 50;
        }
        break;
    case 5:
        Inject(p, in, Injected::Raw);
        break;
    case 6:
        Inject(p, in, Injected::Bytes);
        break;
    case 10:
        Inject(p, in, Injected::OneField);
        break;
    case 7: {
        const uint8_t b = in.U8();
        End& e = p.ends[b & 1];
        const uint16_t port = (b >> 1) % 3;
        try
        {
            e.engine->OnPortState(port, (b & 0x10) != 0, p.now);
        }
        catch (const std::exception&)
        {
            Check(port >= e.ports, "OnPortState threw for a valid port");
        }
        break;
    }
    case 8:
        FireTimers(p, true);
        break;
    default:
        p.now += in.U16();
        FireTimers(p, false);
        break;
    }
}

/// No more faults, every port up: every posted WRITE/SEND must complete.
void
Drain(Pair& p)
{
    for (End& e : p.ends)
    {
        for (uint16_t port = 0; port < e.ports; ++port)
        {
            e.engine->OnPortState(port, true, p.now);
        }
    }
    for (int round = 0; round < 20000; ++round)
    {
        for (int k = 0; k < 4; ++k)
        {
            Pump(p, 0, false);
            p.now += 100;
        }
        FireTimers(p, true);
        for (End& e : p.ends)
        {
            TakeCompletions(e);
            CheckEnd(e);
        }
        bool done = true;
        for (const End& e : p.ends)
        {
            for (uint64_t id : e.postedSends)
            {
                done = done && e.completed.count(id) > 0;
            }
        }
        if (done)
        {
            return;
        }
    }
    for (const End& e : p.ends)
    {
        std::fprintf(stderr,
                     "%s end: posted %zu, completed %zu, idle %d, next timeout %llu, now %llu\n",
                     e.engine->Name(),
                     e.postedSends.size(),
                     e.completed.size(),
                     e.engine->Idle() ? 1 : 0,
                     static_cast<unsigned long long>(e.engine->NextTimeout()),
                     static_cast<unsigned long long>(p.now));
        const Counters& c = e.engine->GetCounters();
        std::fprintf(stderr,
                     "  tx %llu rx %llu retx %llu timeouts %llu drops %llu\n",
                     static_cast<unsigned long long>(c.txPackets),
                     static_cast<unsigned long long>(c.rxPackets),
                     static_cast<unsigned long long>(c.retransmittedPackets),
                     static_cast<unsigned long long>(c.timeouts),
                     static_cast<unsigned long long>(c.TotalDrops()));
        for (std::size_t i = 0; i < kDropReasons.size(); ++i)
        {
            if (c.drops[i] > 0)
            {
                std::fprintf(stderr,
                             "  drops %s: %llu\n",
                             kDropReasons[i].name,
                             static_cast<unsigned long long>(c.drops[i]));
            }
        }
    }
    metaroce_fuzz::Violation("a posted WRITE/SEND never completed after the faults stopped");
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    FuzzInput in(data, size);
    Pair p;
    Setup(p, in.U8());
    for (int steps = 0; !in.Empty() && steps < 256; ++steps)
    {
        Step(p, in);
        for (End& e : p.ends)
        {
            TakeCompletions(e);
            CheckEnd(e);
        }
    }
    Drain(p);
    return 0;
}
