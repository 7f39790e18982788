/*
 * The client's first control message, its hello: the test's parameters, keyed by the long
 * options' names (test, transport, sizes, iters, tx-depth, planes, rate, mtu, loss, reorder,
 * duplicate, delay, reorder-delay, seed, timeout), and the client's identity
 * (perf-identity.h).
 *
 * The server adopts the parameters as its own only after checking each one as its command
 * line would (the same parser: range, no trailing junk, suffixes), every key present and no
 * other, and then against its own caps: its --buffer bounds the memory the test makes it
 * register (every size's target slots or RECV buffers), its --udp-addrs the plane count, its
 * --timeout how long it waits on the client. What the server keeps its own (addresses, ports,
 * capture, entropy mode, buffer cap) is not in a hello at all.
 */
#ifndef METAROCE_RUNTIME_PERF_HELLO_H
#define METAROCE_RUNTIME_PERF_HELLO_H

#include "perf-control.h"
#include "perf-identity.h"
#include "perf-options.h"

namespace metaroce::perf
{

/// Most message sizes in one test (the -a sweep has 23).
constexpr std::size_t kMaxSizes = 64;

/// The client's hello for `o`, carrying its identity `local`.
Message EncodeHello(const PerfOptions& o, const Identity& local);

/// The server's options for a client's hello: `own` with the client's test parameters, each
/// checked as the command line checks it and against the server's caps (see above). Throws
/// ControlError naming the first bad key or the cap it exceeds.
PerfOptions AdoptHello(const PerfOptions& own, const Message& hello);

/// Bytes the server registers for a test of `o`: the largest size's slots (perf-run.h).
uint64_t ServerBufferBytes(const PerfOptions& o);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_HELLO_H
