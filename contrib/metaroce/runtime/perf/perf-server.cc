#include "perf-control.h"
#include "perf-hello.h"
#include "perf-identity.h"
#include "perf-run.h"
#include "perf-session.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

namespace metaroce::perf
{

namespace
{

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
        std::ostringstream what;
        what << "the client sent no whole control message for " << o.timeoutSeconds
             << " s (--timeout)";
        throw ControlError(what.str());
    }
    return *m;
}

/// A round's start ("round", a size of the hello, its iteration count); ControlError else.
Round
StartRound(const PerfOptions& o, const Message& start)
{
    start.Expect({"round", "size", "iters"});
    start.GetU64("round", 1, 1);
    Round r;
    r.size = start.GetU64("size", 1, UINT64_MAX);
    if (std::find(o.sizes.begin(), o.sizes.end(), r.size) == o.sizes.end())
    {
        throw ControlError("round: size=" + std::to_string(r.size) + ": not a size of the hello");
    }
    r.iters = start.GetU64("iters", o.Iterations(), o.Iterations());
    r.slots = ServerSlots(o, r.size);
    return r;
}

/// Plays one round; returns false when its bytes were wrong.
bool
PlayRound(const PerfOptions& o, Session& s, ControlChannel& control, const Message& start)
{
    Round r = StartRound(o, start);
    const bool sends = o.test == Test::SendBw || o.test == Test::SendLat;
    while (sends && r.recvPosted < std::min(r.iters, r.slots))
    {
        PostReceive(s, r);
    }
    control.Send(Message().Set("ready", 1).Set("slots", r.slots));
    const Message done = Serve(o, s, control, r);
    done.Expect({"done", "posted"});
    done.GetU64("done", 1, 1);
    done.GetU64("posted", 0, r.iters);
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

/// Plays rounds until the client's "bye"; returns false when some round's bytes were wrong.
/// The capture is completed whatever ends the session.
bool
PlayRounds(const PerfOptions& o, Session& s, ControlChannel& control)
{
    bool ok = true;
    try
    {
        for (Round idle;;)
        {
            const Message m = Serve(o, s, control, idle);
            if (m.Has("bye"))
            {
                m.Expect({"bye"});
                m.GetU64("bye", 1, 1);
                break;
            }
            ok = PlayRound(o, s, control, m) && ok;
        }
    }
    catch (...)
    {
        try
        {
            s.FinishCapture();
        }
        catch (const std::exception&)
        {
            // The session's own error is the one reported.
        }
        throw;
    }
    s.FinishCapture();
    return ok;
}

/// One client's session: setup, then rounds until "bye"; returns the exit status. Throws
/// ControlError when the client's messages are wrong or it goes silent.
int
ServeClient(const PerfOptions& own, ControlChannel& control)
{
    control.SetSendTimeout(own.timeoutSeconds);
    const Message hello = control.Receive(own.timeoutSeconds);
    const PerfOptions o = AdoptHello(own, hello);
    const Identity peer = TakeIdentity(hello, o, false);
    Identity local =
        DrawIdentity(o, own.udpAddrs.empty() ? DefaultUdpAddrs(true, o.planes, "") : own.udpAddrs);
    local.bufferLength = ServerBufferBytes(o);
    std::unique_ptr<Session> s;
    try
    {
        s = std::make_unique<Session>(o, true, local, peer, local.bufferLength);
    }
    catch (const std::invalid_argument& e)
    {
        throw ControlError(std::string("the engine refuses the client's parameters: ") + e.what());
    }
    local.bufferAddr = s->BufferAddr();
    s->Driver().WatchFd(control.Fd()); // a control message ends a wait for it at once
    Message reply;
    PutIdentity(reply, local, true);
    control.Send(reply);
    const bool ok = PlayRounds(o, *s, control);
    std::cout << "metaroce-perf server: " << (ok ? "all bytes verified" : "DATA MISMATCH") << "; "
              << s->CountersLine() << "\n";
    return ok ? 0 : 1;
}

} // namespace

int
RunServer(const PerfOptions& own)
{
    const std::string addr = own.bindAddr.empty() ? "127.0.0.1" : own.bindAddr;
    ControlListener listener(addr, own.tcpPort);
    std::cout << "metaroce-perf server: waiting for a client on TCP " << addr << ":" << own.tcpPort
              << "\n"
              << std::flush;
    while (true)
    {
        std::optional<ControlChannel> control = listener.Accept(3600);
        if (!control)
        {
            throw std::runtime_error("no client connected within an hour");
        }
        try
        {
            return ServeClient(own, *control);
        }
        catch (const ControlError& e)
        {
            // The client's fault: it hears why, the operator gets one line, the next client
            // is served.
            const std::string reason = Abridged(e.what());
            std::cerr << "metaroce-perf: client " << control->Peer() << ": " << reason
                      << "; session ended, waiting for the next client\n"
                      << std::flush;
            try
            {
                control->SetSendTimeout(1);
                control->Send(Message().Set("refused", reason));
            }
            catch (const ControlError&)
            {
                // Gone or not reading: nothing more to tell it.
            }
        }
    }
}

} // namespace metaroce::perf
