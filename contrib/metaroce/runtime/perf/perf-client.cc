#include "perf-control.h"
#include "perf-hello.h"
#include "perf-identity.h"
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

/// The server's message, or ControlError with its reason when it ended the session.
const Message&
CheckRefused(const Message& m)
{
    if (m.Has("refused"))
    {
        throw ControlError("the server ended the session: " + Abridged(m.Get("refused")));
    }
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
        throw ControlError("the server sent nothing within --timeout");
    }
    return CheckRefused(*m);
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
    const Message ready = Await(o, s, control);
    ready.Expect({"ready", "slots"});
    // The server's targets: within the buffer it announced.
    r.slots = ready.GetU64("slots", 1, server.bufferLength / size);
    const bool finished = Drive(o, s, server, r);
    control.Send(Message().Set("done", 1).Set("posted", r.posted));
    const Message verdict = Await(o, s, control);
    verdict.Expect({"ok", "error", "counters"});
    const bool verified = verdict.GetU64("ok", 0, 1) == 1;
    if (!finished && r.error.empty())
    {
        r.error = std::to_string(r.completed) + " of " + std::to_string(r.iters) +
                  " messages completed within --timeout=" + std::to_string(o.timeoutSeconds);
    }
    if (r.error.empty() && verified)
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
    if (!verified)
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
    Identity local =
        DrawIdentity(o, o.udpAddrs.empty() ? DefaultUdpAddrs(false, o.planes, o.host) : o.udpAddrs);
    ControlChannel control =
        ControlChannel::Connect(o.host, o.tcpPort, o.bindAddr, o.timeoutSeconds);
    control.SetSendTimeout(o.timeoutSeconds);
    control.Send(EncodeHello(o, local));
    const Message reply = CheckRefused(control.Receive(o.timeoutSeconds));
    reply.Expect(IdentityKeys(true));
    const Identity server = TakeIdentity(reply, o, true);
    uint64_t bytes = 0;
    for (uint64_t size : o.sizes)
    {
        bytes = std::max(bytes, (ClientSlots(o, size) + 1) * size);
    }
    Session s(o, false, local, server, bytes);
    local.bufferAddr = s.BufferAddr();
    local.bufferLength = bytes;
    s.Driver().WatchFd(control.Fd()); // a control message ends a wait for it at once
    PrintBanner(std::cout, o, local, server);
    PrintColumns(std::cout, o.test);
    bool ok = true;
    try
    {
        for (uint64_t size : o.sizes)
        {
            ok = PlayRound(o, s, control, server, size) && ok;
            std::cout << std::flush;
        }
        control.Send(Message().Set("bye", 1));
    }
    catch (...)
    {
        try
        {
            s.FinishCapture();
        }
        catch (const std::exception&)
        {
            // The run's own error is the one reported.
        }
        throw;
    }
    s.FinishCapture();
    PrintRule(std::cout);
    std::cout << " " << (ok ? "data verified by the server: OK" : "DATA MISMATCH or FAILURE")
              << "; " << s.CountersLine() << "\n";
    return ok ? 0 : 1;
}

uint64_t
ReceiveDepth(const PerfOptions& o, uint64_t size)
{
    const uint64_t want =
        std::min<uint64_t>(o.Iterations(), IsLatency(o.test) ? 16 : 2ULL * o.txDepth);
    const uint64_t least = std::min<uint64_t>(o.Iterations(), IsLatency(o.test) ? 1 : o.txDepth);
    return std::max(least, std::min(want, o.bufferCap / size));
}

uint64_t
ServerSlots(const PerfOptions& o, uint64_t size)
{
    if (o.test == Test::SendBw || o.test == Test::SendLat)
    {
        return ReceiveDepth(o, size);
    }
    const uint64_t fit = std::max<uint64_t>(1, o.bufferCap / size);
    // Messages in flight never share a slot.
    const uint64_t floor =
        o.test == Test::WriteBw ? std::min<uint64_t>(o.txDepth, o.Iterations()) : 1;
    return std::max(floor, std::min(o.Iterations(), fit));
}

uint64_t
ClientSlots(const PerfOptions& o, uint64_t size)
{
    return IsLatency(o.test) ? 1 : std::min<uint64_t>(o.txDepth, o.Iterations());
}

} // namespace metaroce::perf
