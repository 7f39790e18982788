/*
 * The two roles of metaroce-perf.
 *
 * The client connects the control channel, sends its hello (the test's parameters and its
 * identity; the server adopts the parameters once checked, perf-hello.h: only its own
 * addresses, ports, capture, buffer cap and timeout are its own), learns the server's
 * identity (perf-identity.h), then runs one round per message size: the server prepares
 * (posts RECVs for SEND tests) and says "ready"; the client posts its messages (at most
 * --tx-depth outstanding; one at a time in latency tests), filling each from the pattern, and
 * measures; then it says "done" and the server checks the bytes it holds (SEND: every message
 * as its RECV completes; WRITE: every slot of its buffer, which holds the last message
 * written there) and answers with its verdict. A mismatch, a failed completion or messages
 * not completed within the client's --timeout make both processes exit 1.
 *
 * Sessions. The server listens on --bind (127.0.0.1 by default) and serves one client at a
 * time until a session runs to its end (the client's "bye"), then exits with its verdict. A
 * session whose client sends what the protocol does not allow, goes silent past the server's
 * --timeout or closes the connection ends there (ControlError): the client is told why
 * ("refused=..."), the server's stderr gets one line, and the next client is served.
 *
 * Buffer slots. Message i of a size lands in slot i mod S of the server's buffer. For WRITE,
 * S covers every message when they fit under --buffer (1 GiB: a 1 GiB test is verified
 * whole) and is never below --tx-depth (or the iteration count when smaller), so that two
 * messages in flight never share a slot; for SEND, S is the number of RECVs kept posted. The
 * server refuses a test whose slots of some size exceed its --buffer (perf-hello.h).
 */
#ifndef METAROCE_RUNTIME_PERF_RUN_H
#define METAROCE_RUNTIME_PERF_RUN_H

#include "perf-options.h"

namespace metaroce::perf
{

/// Slots of the server's buffer for one message size (see above).
uint64_t ServerSlots(const PerfOptions& o, uint64_t size);

/// Slots of the client's source buffer for one message size.
uint64_t ClientSlots(const PerfOptions& o, uint64_t size);

/// RECVs the server keeps posted in a SEND test of `size`-byte messages: twice --tx-depth
/// (16 in latency tests) where its --buffer holds them, never fewer than --tx-depth.
uint64_t ReceiveDepth(const PerfOptions& o, uint64_t size);

/// The server role; returns the exit status.
int RunServer(const PerfOptions& o);

/// The client role; returns the exit status.
int RunClient(const PerfOptions& o);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_RUN_H
