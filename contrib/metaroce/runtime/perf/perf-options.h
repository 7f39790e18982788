/*
 * Options of metaroce-perf, spelled as perftest spells them where perftest has them
 * (ib_write_bw, ib_send_lat: -s/--size, -a, -n/--iters, -t/--tx-depth, -p/--port,
 * -F/--report_gbits is always on) plus what a software transport over UDP adds (--transport,
 * --planes, --rate, --loss and the other impairments, --pcap, the UDP addresses).
 *
 * Parse() refuses a bad option with one line that names the option, the value given and what
 * is allowed (std::invalid_argument); main prints it and exits 2.
 */
#ifndef METAROCE_RUNTIME_PERF_OPTIONS_H
#define METAROCE_RUNTIME_PERF_OPTIONS_H

#include "transport-engine.h"
#include "udp-plane.h"

#include <cstdint>
#include <string>
#include <vector>

namespace metaroce::perf
{

/// The four tests (perftest's ib_write_bw, ib_send_bw, ib_write_lat, ib_send_lat).
enum class Test : uint8_t
{
    WriteBw,
    SendBw,
    WriteLat,
    SendLat,
};

/// "write_bw", "send_bw", "write_lat", "send_lat".
const char* TestName(Test t);

/// True for the two latency tests.
bool IsLatency(Test t);

/// Everything the command line sets.
struct PerfOptions
{
    bool server{true};       ///< no host argument: this process is the server
    std::string host;        ///< the server's address (client)
    uint16_t tcpPort{18515}; ///< control connection (perftest's default port)
    /// Server: the address its control port listens on (empty: 127.0.0.1, loopback only);
    /// client: the address its control connection comes from (empty: any).
    std::string bindAddr;
    Test test{Test::WriteBw};
    Transport transport{Transport::MetaRoce};
    std::vector<uint64_t> sizes; ///< one, or the -a sweep (2 B .. 8 MiB)
    uint64_t iters{0};           ///< 0: perftest's default (5000 bw, 1000 lat)
    uint32_t txDepth{128};       ///< outstanding work requests (bw tests)
    uint16_t planes{1};
    double rateGbps{10};      ///< per plane: pacing and the engine's line rate
    uint32_t mtu{4096};       ///< payload bytes per packet
    double lossPercent{0};    ///< injected loss, each direction
    double reorderPercent{0}; ///< packets held back up to reorderDelayUs
    double duplicatePercent{0};
    double corruptPercent{0}; ///< injected bit errors, each direction: one bit of a datagram
    bool mcrc{false};         ///< MetaRoCE: the mCRC trailer on every packet (spec 4.1)
    double delayUs{0};        ///< added to every packet
    double reorderDelayUs{50};
    uint64_t seed{1};
    std::vector<std::string> udpAddrs; ///< this side's per-plane IPv4 addresses
    uint16_t udpPort{0};               ///< 0: the transport's (4792, 4791)
    udp::EntropyMode entropy{udp::EntropyMode::Bind};
    std::string pcap;
    uint32_t pcapSnapLength{0};
    uint64_t bufferCap{1ULL << 30}; ///< most bytes the server registers for its targets
    double timeoutSeconds{60};      ///< per message size
    double busyPollUs{200};         ///< poll instead of sleeping this long after traffic
    bool verbose{false};
    /// Self-test of the verification (server): flip one received byte before checking, so
    /// that a test can see a mismatch fail the run.
    bool corruptForTest{false};

    /// The sizes' iteration count after defaults.
    uint64_t Iterations() const;
};

/// Most planes (UDP sockets per side) a test may use.
constexpr uint16_t kMaxPlanes = 16;

/// Parses argv; throws std::invalid_argument with a one-line message. Sets `help` for -h.
PerfOptions ParseOptions(int argc, char** argv, bool& help);

/// Sets the long option `name` (without "--") to `value`, checked as the command line checks
/// it; throws std::invalid_argument naming the option and the value. The server reads a
/// client's test parameters with it.
void ApplyOption(PerfOptions& o, const std::string& name, const std::string& value);

/// Checks the options against each other (defaults the sizes); throws std::invalid_argument.
void ValidateOptions(PerfOptions& o);

/// The usage text.
const char* UsageText();

/// `items` separated by commas: the form --udp-addrs takes, for the control exchange.
std::string JoinComma(const std::vector<std::string>& items);

/// The default per-plane addresses of one side when none are given: loopback addresses
/// 127.0.<plane+1>.1 (server) and .2 (client), so both ends can bind the transport's port.
std::vector<std::string> DefaultUdpAddrs(bool server, uint16_t planes, const std::string& host);

} // namespace metaroce::perf

#endif // METAROCE_RUNTIME_PERF_OPTIONS_H
