#include "perf-control.h"
#include "perf-run.h"
#include "perf-session.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace metaroce::perf
{

namespace
{

constexpr uint32_t kServerKey = 0x5e5e;
constexpr uint32_t kServerConnection = 0x11;

std::vector<std::string>
Split(const std::string& v)
{
    std::vector<std::string> out;
    std::stringstream in(v);
    for (std::string item; std::getline(in, item, ',');)
    {
        out.push_back(item);
    }
    return out;
}

/// The server's options: its own, with the client's test parameters.
PerfOptions
Adopt(const PerfOptions& own, const Message& hello)
{
    PerfOptions o = own;
    o.test = hello.Get("test") == "write_bw"    ? Test::WriteBw
             : hello.Get("test") == "send_bw"   ? Test::SendBw
             : hello.Get("test") == "write_lat" ? Test::WriteLat
                                                : Test::SendLat;
    o.transport = ParseTransport(hello.Get("transport"));
    o.sizes.clear();
    for (const std::string& s : Split(hello.Get("sizes")))
    {
        o.sizes.push_back(std::stoull(s));
    }
    o.iters = hello.GetU64("iters");
    o.txDepth = static_cast<uint32_t>(hello.GetU64("txDepth"));
    o.planes = static_cast<uint16_t>(hello.GetU64("planes"));
    o.rateGbps = hello.GetDouble("rate");
    o.mtu = static_cast<uint32_t>(hello.GetU64("mtu"));
    o.lossPercent = hello.GetDouble("loss");
    o.reorderPercent = hello.GetDouble("reorder");
    o.duplicatePercent = hello.GetDouble("duplicate");
    o.delayUs = hello.GetDouble("delay");
    o.reorderDelayUs = hello.GetDouble("reorderDelay");
    o.seed = hello.GetU64("seed");
    o.timeoutSeconds = hello.GetDouble("timeout");
    if (!own.udpAddrs.empty() && own.udpAddrs.size() != o.planes)
    {
        throw std::invalid_argument("--udp-addrs: the client asks for " + std::to_string(o.planes) +
                                    " planes");
    }
    return o;
}

/// One round's state at the server.
struct Round
{
    uint64_t size{0};
    uint64_t iters{0};
    uint64_t slots{0};
    uint64_t recvPosted{0};
    uint64_t recvDone{0};
    std::string error;
};

void
PostReceive(Session& s, Round& r)
{
    WorkRequest wr;
    wr.id = r.recvPosted;
    wr.op = Opcode::Recv;
    wr.length = r.size;
    wr.localAddr = s.BufferAddr() + (r.recvPosted % r.slots) * r.size;
    wr.localKey = s.Key();
    s.Driver().PostRecv(wr);
    ++r.recvPosted;
}

/// Handles the server's completions: checks each received message and keeps RECVs posted;
/// in the SEND latency test, sends each message back.
void
ServeCompletions(const PerfOptions& o, Session& s, Round& r)
{
    while (!s.Completions().empty())
    {
        const Completion c = s.Completions().front();
        s.Completions().pop_front();
        if (c.op != Opcode::Recv || r.slots == 0)
        {
            continue; // the pong SENDs of send_lat; a failed round's late RECVs
        }
        const uint64_t slot = (c.wrId % r.slots) * r.size;
        if (o.corruptForTest && c.wrId == 0)
        {
            s.Buffer()[slot] ^= 0x01;
        }
        if (c.status != CompletionStatus::Success || c.bytes != r.size)
        {
            r.error = "RECV " + std::to_string(c.wrId) + " completed with " +
                      CompletionStatusName(c.status) + ", " + std::to_string(c.bytes) + " bytes";
        }
        else if (const int64_t at = CheckPattern(s.Buffer() + slot, r.size, o.seed, c.wrId);
                 at >= 0 && r.error.empty())
        {
            r.error =
                "message " + std::to_string(c.wrId) + " differs at byte " + std::to_string(at);
        }
        ++r.recvDone;
        if (o.test == Test::SendLat)
        {
            WorkRequest pong;
            pong.id = c.wrId;
            pong.op = Opcode::Send;
            pong.length = r.size;
            pong.localAddr = s.BufferAddr() + slot;
            pong.localKey = s.Key();
            s.Driver().PostSend(pong);
        }
        if (r.recvPosted < r.iters)
        {
            PostReceive(s, r);
        }
    }
}

/// WRITE tests: slot j holds the last message i < iters with i mod slots == j.
std::string
CheckWrites(const PerfOptions& o, Session& s, const Round& r)
{
    for (uint64_t j = 0; j < std::min(r.slots, r.iters); ++j)
    {
        const uint64_t last = j + (r.iters - 1 - j) / r.slots * r.slots;
        const int64_t at = CheckPattern(s.Buffer() + j * r.size, r.size, o.seed, last);
        if (at >= 0)
        {
            return "message " + std::to_string(last) + " (slot " + std::to_string(j) +
                   ") differs at byte " + std::to_string(at);
        }
    }
    return {};
}

/// Runs the engine until the client's next control message.
Message
Serve(const PerfOptions& o, Session& s, ControlChannel& control, Round& r)
{
    std::optional<Message> m;
    const bool ok = s.Driver().RunUntil(
        [&] {
            ServeCompletions(o, s, r);
            if (s.Driver().TakeWatchedReadable())
            {
                m = control.TryReceive();
            }
            return m.has_value();
        },
        s.Driver().Now() + static_cast<TimeNs>(o.timeoutSeconds * 1e9));
    if (!ok)
    {
        throw std::runtime_error("the client sent nothing for " + std::to_string(o.timeoutSeconds) +
                                 " s (--timeout)");
    }
    return *m;
}

/// Plays one round; returns false when its bytes were wrong.
bool
PlayRound(const PerfOptions& o, Session& s, ControlChannel& control, const Message& start)
{
    Round r;
    r.size = start.GetU64("size");
    r.iters = start.GetU64("iters");
    r.slots = ServerSlots(o, r.size);
    const bool sends = o.test == Test::SendBw || o.test == Test::SendLat;
    while (sends && r.recvPosted < std::min(r.iters, ReceiveDepth(o)))
    {
        PostReceive(s, r);
    }
    control.Send(Message().Set("ready", 1).Set("slots", r.slots));
    Serve(o, s, control, r); // "done"
    // The last RECVs may complete after the client saw its SENDs acknowledged.
    const TimeNs limit = s.Driver().Now() + 1'000'000'000;
    s.Driver().RunUntil(
        [&] {
            ServeCompletions(o, s, r);
            return !sends || r.recvDone == r.iters;
        },
        limit);
    if (sends && r.recvDone != r.iters && r.error.empty())
    {
        r.error =
            std::to_string(r.recvDone) + " of " + std::to_string(r.iters) + " RECVs completed";
    }
    if (!sends)
    {
        if (o.corruptForTest)
        {
            s.Buffer()[r.size / 2] ^= 0x01;
        }
        r.error = CheckWrites(o, s, r);
    }
    control.Send(Message()
                     .Set("ok", r.error.empty() ? 1 : 0)
                     .Set("error", r.error)
                     .Set("counters", s.CountersLine()));
    if (!r.error.empty())
    {
        std::cerr << "metaroce-perf: size " << r.size << ": data mismatch: " << r.error << "\n";
    }
    else if (o.verbose)
    {
        std::cout << " size " << r.size << ": " << r.iters << " messages verified; "
                  << s.CountersLine() << "\n";
    }
    return r.error.empty();
}

} // namespace

int
RunServer(const PerfOptions& own)
{
    std::cout << "metaroce-perf server: waiting for a client on TCP port " << own.tcpPort << "\n"
              << std::flush;
    ControlChannel control = ControlChannel::Accept(own.tcpPort, 3600);
    const Message hello = control.Receive(own.timeoutSeconds);
    const PerfOptions o = Adopt(own, hello);
    Identity local;
    local.udpAddrs = own.udpAddrs.empty() ? DefaultUdpAddrs(true, o.planes, "") : own.udpAddrs;
    local.udpPort = TransportUdpPort(o);
    local.connection = kServerConnection;
    local.rkey = kServerKey;
    Identity peer;
    peer.udpAddrs = Split(hello.Get("udpAddrs"));
    peer.udpPort = static_cast<uint16_t>(hello.GetU64("udpPort"));
    peer.connection = static_cast<uint32_t>(hello.GetU64("connection"));
    uint64_t bytes = 0;
    for (uint64_t size : o.sizes)
    {
        bytes = std::max(bytes, ServerSlots(o, size) * size);
    }
    Session s(o, true, local, peer, bytes);
    s.Driver().WatchFd(control.Fd()); // a control message ends a wait for it at once
    control.Send(Message()
                     .Set("udpAddrs", JoinComma(local.udpAddrs))
                     .Set("udpPort", local.udpPort)
                     .Set("connection", local.connection)
                     .Set("bufferAddr", s.BufferAddr())
                     .Set("bufferLength", bytes)
                     .Set("rkey", s.Key()));
    bool ok = true;
    for (Round idle;;)
    {
        const Message m = Serve(o, s, control, idle);
        if (m.Has("bye"))
        {
            break;
        }
        ok = PlayRound(o, s, control, m) && ok;
    }
    std::cout << "metaroce-perf server: " << (ok ? "all bytes verified" : "DATA MISMATCH") << "; "
              << s.CountersLine() << "\n";
    return ok ? 0 : 1;
}

} // namespace metaroce::perf
