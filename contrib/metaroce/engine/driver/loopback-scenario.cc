#include "loopback-scenario.h"

#include "../metaroce/metaroce-connection.h"
#include "../rocev2/rocev2-queue-pair.h"

#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

namespace metaroce
{

namespace
{

constexpr uint32_t kSourceKey = 1;
constexpr uint32_t kSinkKey = 2;
constexpr uint64_t kSourceBase = 0x10000000;
constexpr uint64_t kSinkBase = 0x80000000;

struct Item
{
    WorkRequest wr;
    uint64_t offset;
};

/// One end: its engine and (in real-payload mode) its registered buffer.
struct End
{
    std::vector<uint8_t> buffer;
    MemoryRegistry memory;
    std::unique_ptr<TransportEngine> engine;
};

/// A RoCEv2 queue pair shaped like the MetaRoCE configuration: same MTU and line rate, port 0,
/// one fixed entropy.
std::unique_ptr<TransportEngine>
MakeRoceV2Engine(const MetaRoceConfig& mc, MemoryRegistry& memory)
{
    RoceV2Config rc;
    rc.localQpn = mc.localConnection;
    rc.remoteQpn = mc.remoteConnection;
    rc.mtu = mc.mtu;
    rc.lineRateBps = mc.portRateBps;
    rc.udpSrcPort = static_cast<uint16_t>(mc.entropyBase + mc.seed % mc.entropyCount);
    return std::make_unique<RoceV2QueuePair>(rc, memory);
}

std::unique_ptr<TransportEngine>
MakeEngine(const ScenarioConfig& c, MemoryRegistry* memory, uint32_t local, uint32_t remote)
{
    MetaRoceConfig mc = c.metaroce;
    mc.localConnection = local;
    mc.remoteConnection = remote;
    mc.seed = c.seed * 2 + local;
    switch (c.transport)
    {
    case Transport::MetaRoce: {
        auto connection = std::make_unique<MetaRoceConnection>(mc, memory);
        connection->SetAdmissionTarget(c.admissionTargetBytes);
        return connection;
    }
    case Transport::RoceV2:
        return MakeRoceV2Engine(mc, *memory);
    }
    throw std::invalid_argument("unknown transport");
}

std::string
CheckProperties(const std::vector<Item>& items,
                const std::vector<WorkRequest>& recvs,
                const std::vector<Completion>& senderCompletions,
                const std::vector<Completion>& receiverCompletions,
                const std::vector<uint8_t>& src,
                const std::vector<uint8_t>& dst,
                bool realPayload)
{
    std::ostringstream err;
    std::map<uint16_t, uint64_t> last;
    std::map<uint64_t, int> seen;
    for (const Completion& c : senderCompletions)
    {
        if (c.status != CompletionStatus::Success)
        {
            err << "wr " << c.wrId << " completed with " << CompletionStatusName(c.status);
            return err.str();
        }
        if (last.count(c.stream) && last[c.stream] >= c.wrId)
        {
            err << "wr " << c.wrId << " completed out of order on stream " << c.stream;
            return err.str();
        }
        last[c.stream] = c.wrId;
        if (++seen[c.wrId] > 1)
        {
            err << "wr " << c.wrId << " completed twice";
            return err.str();
        }
    }
    if (seen.size() != items.size())
    {
        err << seen.size() << " of " << items.size() << " work requests completed";
        return err.str();
    }
    last.clear();
    std::size_t recvCount = 0;
    for (const Completion& c : receiverCompletions)
    {
        if (c.op != Opcode::Recv || c.status != CompletionStatus::Success)
        {
            err << "receiver completion " << c.wrId << " is not a successful RECV";
            return err.str();
        }
        if (last.count(c.stream) && last[c.stream] >= c.wrId)
        {
            err << "recv " << c.wrId << " completed out of order on stream " << c.stream;
            return err.str();
        }
        last[c.stream] = c.wrId;
        ++recvCount;
    }
    if (recvCount != recvs.size())
    {
        err << recvCount << " of " << recvs.size() << " receives completed";
        return err.str();
    }
    if (realPayload)
    {
        for (const Item& item : items)
        {
            const auto begin = src.begin() + item.offset;
            if (!std::equal(begin, begin + item.wr.length, dst.begin() + item.offset))
            {
                err << "wr " << item.wr.id << " (" << OpcodeName(item.wr.op)
                    << ") is not byte-exact at the receiver";
                return err.str();
            }
        }
    }
    return {};
}

/// The work requests of a scenario: WRITEs and SENDs in posting order, with their offsets,
/// and the RECVs the SENDs need.
struct Workload
{
    std::vector<Item> items;
    std::vector<WorkRequest> recvs;
    uint64_t total{0};
};

/// Draws the scenario's messages (sizes, WRITE or SEND) from `rng`.
Workload
DrawWorkload(const ScenarioConfig& c, std::mt19937_64& rng)
{
    Workload w;
    const uint16_t streams = c.metaroce.streams;
    for (uint32_t i = 0; i < c.messages; ++i)
    {
        const uint64_t length =
            c.fixedMessageBytes ? c.fixedMessageBytes : 1 + rng() % c.maxMessageBytes;
        const bool send = static_cast<double>(rng() % 1'000'000) < c.sendFraction * 1e6;
        WorkRequest wr;
        wr.id = i;
        wr.op = send ? Opcode::Send : Opcode::Write;
        wr.stream = static_cast<uint16_t>(i % streams);
        wr.length = length;
        if (c.realPayload)
        {
            wr.localAddr = kSourceBase + w.total;
            wr.localKey = kSourceKey;
            if (!send)
            {
                wr.remoteAddr = kSinkBase + w.total;
                wr.remoteKey = kSinkKey;
            }
        }
        if (send)
        {
            WorkRequest r;
            r.id = 1'000'000 + i;
            r.op = Opcode::Recv;
            r.stream = wr.stream;
            r.length = length;
            if (c.realPayload)
            {
                r.localAddr = kSinkBase + w.total;
                r.localKey = kSinkKey;
            }
            w.recvs.push_back(r);
        }
        w.items.push_back(Item{wr, w.total});
        w.total += length;
    }
    return w;
}

} // namespace

double
ScenarioResult::GoodputGbps() const
{
    return duration == 0 ? 0.0 : static_cast<double>(payloadBytes) * 8 / duration;
}

ScenarioResult
RunScenario(const ScenarioConfig& c)
{
    if (c.messages == 0 || (c.fixedMessageBytes == 0 && c.maxMessageBytes == 0))
    {
        throw std::invalid_argument("ScenarioConfig: messages and message size must be positive");
    }
    if (!(c.sendFraction >= 0 && c.sendFraction <= 1))
    {
        throw std::invalid_argument("ScenarioConfig.sendFraction must be in [0, 1]");
    }
    std::mt19937_64 rng(c.seed);
    const Workload w = DrawWorkload(c, rng);
    const std::vector<Item>& items = w.items;
    const std::vector<WorkRequest>& recvs = w.recvs;
    const uint64_t total = w.total;

    End a;
    End b;
    if (c.realPayload)
    {
        a.buffer.resize(total);
        for (std::size_t i = 0; i < total; ++i)
        {
            a.buffer[i] = static_cast<uint8_t>(rng());
        }
        b.buffer.assign(total, 0);
        a.memory.Register({kSourceKey, kSourceBase, total, a.buffer.data()});
        b.memory.Register({kSinkKey, kSinkBase, total, b.buffer.data()});
    }
    a.engine = MakeEngine(c, &a.memory, 0x100, 0x200);
    b.engine = MakeEngine(c, &b.memory, 0x200, 0x100);
    for (const WorkRequest& r : recvs)
    {
        b.engine->PostRecv(r);
    }
    for (const Item& item : items)
    {
        a.engine->PostSend(item.wr, 0);
    }

    ChannelConfig channel = c.channel;
    channel.seed = c.seed;
    LoopbackHarness harness(*a.engine, *b.engine, channel);
    if (c.planeFailurePort >= 0)
    {
        harness.SchedulePlaneFailure(static_cast<uint16_t>(c.planeFailurePort),
                                     c.planeFailureAt,
                                     c.planeRecoveryAt);
    }
    ScenarioResult result;
    result.finished = harness.RunUntilIdle(c.limit);
    result.duration = harness.Now();
    result.payloadBytes = total;
    result.sender = a.engine->GetCounters();
    result.receiver = b.engine->GetCounters();
    result.channel = harness.Stats();
    result.framesInFlight = harness.FramesInFlight();
    if (!result.finished)
    {
        std::ostringstream err;
        err << "did not finish by t=" << c.limit << " ns (" << harness.Completions(0).size()
            << " of " << items.size() << " completed)";
        result.error = err.str();
        return result;
    }
    result.error = CheckProperties(items,
                                   recvs,
                                   harness.Completions(0),
                                   harness.Completions(1),
                                   a.buffer,
                                   b.buffer,
                                   c.realPayload);
    return result;
}

} // namespace metaroce
