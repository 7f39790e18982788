// Microbenchmarks of libsoftmetaroce: header build/parse, the receive window, ACK processing
// with a full SACK, and the whole per-packet path (send, place, acknowledge) on the loopback.
// Run: build/bench/metaroce-engine-bench [--benchmark_filter=...]
#include "flow-receive-window.h"
#include "loopback-scenario.h"
#include "metaroce-connection.h"
#include "metaroce-wire.h"

#include <benchmark/benchmark.h>

namespace metaroce
{
namespace
{

MrHeader
DataHeader()
{
    MrHeader h;
    h.opcode = MrOpcode::Write;
    h.flags = kMrFlagFirst;
    h.flowId = 3;
    h.connection = 42;
    h.fsn = 1000;
    h.ackFloor = 990;
    h.stream = 1;
    h.msn = 7;
    h.messageLength = 1 << 20;
    h.offset = 0;
    h.payloadLength = 4096;
    h.timestamp = 123456789;
    h.remoteAddr = 0x10000;
    h.remoteKey = 5;
    return h;
}

void
BM_SerializeData(benchmark::State& state)
{
    const MrHeader h = DataHeader();
    uint8_t buf[kMrMaxHeaderSize];
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(MrSerialize(h, buf));
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_SerializeData);

void
BM_ParseData(benchmark::State& state)
{
    uint8_t buf[kMrMaxHeaderSize];
    const std::size_t n = MrSerialize(DataHeader(), buf);
    for (auto _ : state)
    {
        auto r = MrParse(buf, n, n + 4096);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_ParseData);

void
BM_ParseAckWithSack(benchmark::State& state)
{
    MrHeader h;
    h.opcode = MrOpcode::Ack;
    h.cumulativeFsn = 500;
    for (std::size_t i = 0; i < kSackBits; i += 3)
    {
        h.sack.set(i);
    }
    uint8_t buf[kMrMaxHeaderSize];
    const std::size_t n = MrSerialize(h, buf);
    for (auto _ : state)
    {
        auto r = MrParse(buf, n, n);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_ParseAckWithSack);

void
BM_ReceiveWindowInOrder(benchmark::State& state)
{
    FlowReceiveWindow w;
    uint64_t psn = 0;
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(w.Observe(psn, psn));
        ++psn;
    }
    state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_ReceiveWindowInOrder);

/// Whole-transfer cost per data packet of `transport` (both engines and the harness) at a loss
/// of `lossPerMille`, MetaRoCE sending in bursts of `burst` on one path (spec 6.2).
void
RunLoopback(benchmark::State& state, Transport transport, int64_t lossPerMille, uint32_t burst)
{
    ScenarioConfig c;
    c.transport = transport;
    c.messages = 16;
    c.fixedMessageBytes = 1 << 20;
    c.sendFraction = 0;
    c.realPayload = false;
    c.metaroce.streams = 1;
    c.metaroce.sprayBurstPackets = burst;
    c.channel.lossRate = static_cast<double>(lossPerMille) / 1000.0;
    uint64_t packets = 0;
    for (auto _ : state)
    {
        const ScenarioResult r = RunScenario(c);
        if (!r.Ok())
        {
            state.SkipWithError(r.error.c_str());
            break;
        }
        packets += r.sender.txDataPackets;
    }
    state.SetItemsProcessed(static_cast<int64_t>(packets));
    state.SetLabel(std::string(TransportName(c.transport)) + " loss " +
                   std::to_string(lossPerMille / 10.0) + "%" +
                   (burst > 1 ? " bursts of " + std::to_string(burst) : ""));
}

/// Arguments: transport (0 MetaRoCE, 1 RoCEv2), loss per mille.
void
BM_LoopbackPerPacket(benchmark::State& state)
{
    RunLoopback(state,
                state.range(0) == 0 ? Transport::MetaRoce : Transport::RoceV2,
                state.range(1),
                1);
}

/// MetaRoCE in bursts of two packets on one path (SprayBurstPackets=2); argument: loss per
/// mille.
void
BM_LoopbackPerPacketInPairs(benchmark::State& state)
{
    RunLoopback(state, Transport::MetaRoce, state.range(0), 2);
}

BENCHMARK(BM_LoopbackPerPacketInPairs)->Arg(0)->Arg(10)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_LoopbackPerPacket)
    ->Args({0, 0})
    ->Args({0, 10})
    ->Args({1, 0})
    ->Args({1, 10})
    ->Unit(benchmark::kMillisecond);

} // namespace
} // namespace metaroce

BENCHMARK_MAIN();
