#include "perf-control.h"
#include "perf-report.h"
#include "perf-run.h"
#include "perf-session.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace metaroce::perf
{

namespace
{

constexpr uint32_t kClientKey = 0xc1c1;
constexpr uint32_t kClientConnection = 0x12;

Message
Hello(const PerfOptions& o, const Identity& local)
{
    std::string sizes;
    for (uint64_t s : o.sizes)
    {
        sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    }
    Message m;
    m.Set("test", TestName(o.test)).Set("transport", TransportName(o.transport));
    m.Set("sizes", sizes).Set("iters", o.Iterations()).Set("txDepth", o.txDepth);
    m.Set("planes", o.planes).Set("rate", std::to_string(o.rateGbps)).Set("mtu", o.mtu);
    m.Set("loss", std::to_string(o.lossPercent)).Set("reorder", std::to_string(o.reorderPercent));
    m.Set("duplicate", std::to_string(o.duplicatePercent)).Set("delay", std::to_string(o.delayUs));
    m.Set("reorderDelay", std::to_string(o.reorderDelayUs)).Set("seed", o.seed);
    m.Set("timeout", std::to_string(o.timeoutSeconds));
    m.Set("udpAddrs", JoinComma(local.udpAddrs)).Set("udpPort", local.udpPort);
    m.Set("connection", local.connection);
    return m;
}

/// The client's side of one round.
struct Round
{
    uint64_t size{0};
    uint64_t iters{0};
    uint64_t slots{0};    ///< server slots
    uint64_t srcSlots{0}; ///< client source slots
    uint64_t posted{0};
    uint64_t completed{0};
    uint64_t startNs{0};
    std::vector<uint64_t> postNs;
    std::vector<uint64_t> doneNs;
    std::string error;
};

void
PostMessage(const PerfOptions& o, Session& s, const Identity& server, Round& r)
{
    const uint64_t i = r.posted++;
    uint8_t* src = s.Buffer() + (i % r.srcSlots) * r.size;
    FillPattern(src, r.size, o.seed, i);
    WorkRequest wr;
    wr.id = i;
    wr.op = o.test == Test::WriteBw || o.test == Test::WriteLat ? Opcode::Write : Opcode::Send;
    wr.length = r.size;
    wr.localAddr = reinterpret_cast<uint64_t>(src);
    wr.localKey = s.Key();
    if (wr.op == Opcode::Write)
    {
        wr.remoteAddr = server.bufferAddr + (i % r.slots) * r.size;
        wr.remoteKey = server.rkey;
    }
    if (o.test == Test::SendLat)
    {
        // The pong lands in the slot after the source slots.
        WorkRequest recv;
        recv.id = i;
        recv.op = Opcode::Recv;
        recv.length = r.size;
        recv.localAddr = reinterpret_cast<uint64_t>(s.Buffer() + r.srcSlots * r.size);
        recv.localKey = s.Key();
        s.Driver().PostRecv(recv);
    }
    r.postNs.push_back(s.Driver().Now());
    s.Driver().PostSend(wr);
}

/// Takes the client's completions; a latency test completes a message on its pong (SEND)
/// or its acknowledgement (WRITE).
void
TakeCompletions(const PerfOptions& o, Session& s, Round& r)
{
    while (!s.Completions().empty())
    {
        const Completion c = s.Completions().front();
        s.Completions().pop_front();
        if (c.status != CompletionStatus::Success && r.error.empty())
        {
            r.error = std::string(OpcodeName(c.op)) + " " + std::to_string(c.wrId) +
                      " completed with " + CompletionStatusName(c.status);
        }
        const bool counts = o.test == Test::SendLat ? c.op == Opcode::Recv : c.op != Opcode::Recv;
        if (!counts)
        {
            continue;
        }
        if (o.test == Test::SendLat)
        {
            const uint8_t* pong = s.Buffer() + r.srcSlots * r.size;
            if (const int64_t at = CheckPattern(pong, r.size, o.seed, c.wrId); at >= 0)
            {
                r.error =
                    "pong " + std::to_string(c.wrId) + " differs at byte " + std::to_string(at);
            }
        }
        r.doneNs.push_back(c.time);
        ++r.completed;
    }
}

/// Posts and completes the round's messages; false on timeout.
bool
Drive(const PerfOptions& o, Session& s, const Identity& server, Round& r)
{
    const uint64_t depth = IsLatency(o.test) ? 1 : o.txDepth;
    r.startNs = s.Driver().Now();
    auto step = [&] {
        TakeCompletions(o, s, r);
        while (r.error.empty() && r.posted < r.iters && r.posted - r.completed < depth)
        {
            PostMessage(o, s, server, r);
        }
        return r.completed == r.iters || !r.error.empty();
    };
    step();
    return s.Driver().RunUntil(step, r.startNs + static_cast<TimeNs>(o.timeoutSeconds * 1e9));
}

/// Runs the engine until the server's next control message.
Message
Await(const PerfOptions& o, Session& s, ControlChannel& control)
{
    std::optional<Message> m;
    auto arrived = [&] {
        if (s.Driver().TakeWatchedReadable())
        {
            m = control.TryReceive();
        }
        return m.has_value();
    };
    if (!s.Driver().RunUntil(arrived,
                             s.Driver().Now() + static_cast<TimeNs>(o.timeoutSeconds * 1e9)))
    {
        throw std::runtime_error("the server sent nothing within --timeout");
    }
    return *m;
}

void
PrintRow(const PerfOptions& o, const Round& r)
{
    if (!IsLatency(o.test))
    {
        PrintBandwidthRow(std::cout, r.size, r.startNs, r.doneNs);
        return;
    }
    std::vector<uint64_t> samples;
    for (std::size_t i = 0; i < r.doneNs.size(); ++i)
    {
        const uint64_t rtt = r.doneNs[i] - r.postNs[i];
        samples.push_back(o.test == Test::SendLat ? rtt / 2 : rtt);
    }
    PrintLatencyRow(std::cout, r.size, samples);
}

/// Plays one round; returns false when it failed (the reason is printed).
bool
PlayRound(const PerfOptions& o,
          Session& s,
          ControlChannel& control,
          const Identity& server,
          uint64_t size)
{
    Round r;
    r.size = size;
    r.iters = o.Iterations();
    r.srcSlots = ClientSlots(o, size);
    control.Send(Message().Set("round", 1).Set("size", size).Set("iters", r.iters));
    r.slots = Await(o, s, control).GetU64("slots");
    const bool finished = Drive(o, s, server, r);
    control.Send(Message().Set("done", 1).Set("posted", r.posted));
    const Message verdict = Await(o, s, control);
    if (!finished && r.error.empty())
    {
        r.error = std::to_string(r.completed) + " of " + std::to_string(r.iters) +
                  " messages completed within --timeout=" + std::to_string(o.timeoutSeconds);
    }
    if (r.error.empty() && verdict.GetU64("ok") == 1)
    {
        PrintRow(o, r);
    }
    if (o.verbose)
    {
        std::cout << "   client: " << s.CountersLine() << "\n   server: " << verdict.Get("counters")
                  << "\n";
    }
    if (!r.error.empty())
    {
        std::cerr << "metaroce-perf: size " << size << ": " << r.error << "\n";
        return false;
    }
    if (verdict.GetU64("ok") != 1)
    {
        std::cerr << "metaroce-perf: size " << size
                  << ": data mismatch at the server: " << verdict.Get("error") << "\n";
        return false;
    }
    return true;
}

} // namespace

int
RunClient(const PerfOptions& o)
{
    Identity local;
    local.udpAddrs = o.udpAddrs.empty() ? DefaultUdpAddrs(false, o.planes, o.host) : o.udpAddrs;
    local.udpPort = TransportUdpPort(o);
    local.connection = kClientConnection;
    local.rkey = kClientKey;
    ControlChannel control = ControlChannel::Connect(o.host, o.tcpPort, o.timeoutSeconds);
    control.Send(Hello(o, local));
    const Message reply = control.Receive(o.timeoutSeconds);
    Identity server;
    std::stringstream addrs(reply.Get("udpAddrs"));
    for (std::string a; std::getline(addrs, a, ',');)
    {
        server.udpAddrs.push_back(a);
    }
    server.udpPort = static_cast<uint16_t>(reply.GetU64("udpPort"));
    server.connection = static_cast<uint32_t>(reply.GetU64("connection"));
    server.bufferAddr = reply.GetU64("bufferAddr");
    server.bufferLength = reply.GetU64("bufferLength");
    server.rkey = static_cast<uint32_t>(reply.GetU64("rkey"));
    uint64_t bytes = 0;
    for (uint64_t size : o.sizes)
    {
        bytes = std::max(bytes, (ClientSlots(o, size) + 1) * size);
    }
    Session s(o, false, local, server, bytes);
    s.Driver().WatchFd(control.Fd()); // a control message ends a wait for it at once
    PrintBanner(std::cout,
                o,
                JoinComma(local.udpAddrs) + ":" + std::to_string(local.udpPort),
                JoinComma(server.udpAddrs) + ":" + std::to_string(server.udpPort));
    PrintColumns(std::cout, o.test);
    bool ok = true;
    for (uint64_t size : o.sizes)
    {
        ok = PlayRound(o, s, control, server, size) && ok;
        std::cout << std::flush;
    }
    control.Send(Message().Set("bye", 1));
    PrintRule(std::cout);
    std::cout << " " << (ok ? "data verified by the server: OK" : "DATA MISMATCH or FAILURE")
              << "; " << s.CountersLine() << "\n";
    return ok ? 0 : 1;
}

uint64_t
ReceiveDepth(const PerfOptions& o)
{
    return std::min<uint64_t>(o.Iterations(), IsLatency(o.test) ? 16 : 2ULL * o.txDepth);
}

uint64_t
ServerSlots(const PerfOptions& o, uint64_t size)
{
    if (o.test == Test::SendBw || o.test == Test::SendLat)
    {
        return ReceiveDepth(o);
    }
    const uint64_t fit = std::max<uint64_t>(1, o.bufferCap / size);
    const uint64_t floor = o.test == Test::WriteBw ? o.txDepth : 1;
    return std::max(floor, std::min(o.Iterations(), fit));
}

uint64_t
ClientSlots(const PerfOptions& o, uint64_t size)
{
    return IsLatency(o.test) ? 1 : std::min<uint64_t>(o.txDepth, o.Iterations());
}

} // namespace metaroce::perf
