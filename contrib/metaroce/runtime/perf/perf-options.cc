#include "perf-options.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <getopt.h>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace metaroce::perf
{

namespace
{

/// "--name=value: problem (allowed)".
[[noreturn]] void
Refuse(const std::string& name, const std::string& value, const std::string& allowed)
{
    throw std::invalid_argument(name + "=" + value + ": " + allowed);
}

/// An integer in [lo, hi], with an optional K/M/G suffix (powers of 1024) when `units`.
uint64_t
ParseCount(const std::string& name, const std::string& v, uint64_t lo, uint64_t hi, bool units)
{
    // Digits first: stoull would also take leading blanks and a sign.
    std::size_t used = 0;
    unsigned long long n = 0;
    try
    {
        n = !v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) ? std::stoull(v, &used)
                                                                         : 0;
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    const std::size_t digits = used;
    uint64_t scale = 1;
    if (units && digits > 0 && used + 1 == v.size())
    {
        const std::map<char, uint64_t> suffix{{'K', 1ULL << 10},
                                              {'M', 1ULL << 20},
                                              {'G', 1ULL << 30}};
        auto it = suffix.find(static_cast<char>(std::toupper(v[used])));
        scale = it == suffix.end() ? 0 : it->second;
        used += scale != 0;
    }
    std::ostringstream allowed;
    allowed << "an integer in [" << lo << ", " << hi << "]" << (units ? " (K, M, G allowed)" : "");
    if (digits == 0 || used != v.size() || scale == 0 || n > hi / scale || n * scale < lo)
    {
        Refuse(name, v, "expected " + allowed.str());
    }
    return n * scale;
}

double
ParseReal(const std::string& name, const std::string& v, double lo, double hi)
{
    // Decimal notation only: strtod would also take blanks, hexadecimal, "inf" and "nan".
    const bool decimal = !v.empty() &&
                         (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.') &&
                         v.find_first_not_of("0123456789.eE+-") == std::string::npos;
    char* end = nullptr;
    const double x = decimal ? std::strtod(v.c_str(), &end) : 0;
    if (!decimal || *end != '\0' || !(x >= lo && x <= hi))
    {
        std::ostringstream allowed;
        allowed << "expected a number in [" << lo << ", " << hi << "]";
        Refuse(name, v, allowed.str());
    }
    return x;
}

std::vector<std::string>
SplitComma(const std::string& v)
{
    std::vector<std::string> out;
    std::stringstream in(v);
    for (std::string item; std::getline(in, item, ',');)
    {
        out.push_back(item);
    }
    return out;
}

Test
ParseTest(const std::string& v)
{
    const std::map<std::string, Test> tests{{"write_bw", Test::WriteBw},
                                            {"send_bw", Test::SendBw},
                                            {"write_lat", Test::WriteLat},
                                            {"send_lat", Test::SendLat}};
    auto it = tests.find(v);
    if (it == tests.end())
    {
        Refuse("--test", v, "expected write_bw, send_bw, write_lat or send_lat");
    }
    return it->second;
}

/// `path` when a file can be made there (its directory exists and is writable).
std::string
CheckOutputPath(const std::string& name, const std::string& path)
{
    const std::size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    if (path.empty() || path.back() == '/' || access(dir.c_str(), W_OK) != 0)
    {
        Refuse(name, path, "expected a file name in an existing, writable directory");
    }
    return path;
}

using Setter = std::function<void(PerfOptions&, const std::string&)>;

/// One setter per long option; the short options map onto them in ParseOptions().
const std::map<std::string, Setter>&
Setters()
{
    static const std::map<std::string, Setter> setters{
        {"port", [](auto& o, auto& v) { o.tcpPort = ParseCount("--port", v, 1, 65535, false); }},
        {"test", [](auto& o, auto& v) { o.test = ParseTest(v); }},
        {"transport",
         [](auto& o, auto& v) {
             if (v != "metaroce" && v != "rocev2")
             {
                 Refuse("--transport", v, "expected metaroce or rocev2");
             }
             o.transport = ParseTransport(v);
         }},
        {"size",
         [](auto& o, auto& v) { o.sizes = {ParseCount("--size", v, 1, 1ULL << 32, true)}; }},
        {"all",
         [](auto& o, auto&) {
             o.sizes.clear();
             for (uint64_t s = 2; s <= (8u << 20); s *= 2)
             {
                 o.sizes.push_back(s);
             }
         }},
        {"iters",
         [](auto& o, auto& v) { o.iters = ParseCount("--iters", v, 1, 1ULL << 40, true); }},
        {"tx-depth",
         [](auto& o, auto& v) { o.txDepth = ParseCount("--tx-depth", v, 1, 1024, false); }},
        {"planes",
         [](auto& o, auto& v) { o.planes = ParseCount("--planes", v, 1, kMaxPlanes, false); }},
        {"rate", [](auto& o, auto& v) { o.rateGbps = ParseReal("--rate", v, 0.001, 400); }},
        {"mtu", [](auto& o, auto& v) { o.mtu = ParseCount("--mtu", v, 256, 8192, false); }},
        {"loss", [](auto& o, auto& v) { o.lossPercent = ParseReal("--loss", v, 0, 100); }},
        {"reorder", [](auto& o, auto& v) { o.reorderPercent = ParseReal("--reorder", v, 0, 100); }},
        {"duplicate",
         [](auto& o, auto& v) { o.duplicatePercent = ParseReal("--duplicate", v, 0, 100); }},
        {"delay", [](auto& o, auto& v) { o.delayUs = ParseReal("--delay", v, 0, 1e6); }},
        {"corrupt", [](auto& o, auto& v) { o.corruptPercent = ParseReal("--corrupt", v, 0, 100); }},
        {"mcrc",
         [](auto& o, auto& v) {
             if (v != "on" && v != "off")
             {
                 Refuse("--mcrc", v, "expected on or off");
             }
             o.mcrc = v == "on";
         }},
        {"reorder-delay",
         [](auto& o, auto& v) { o.reorderDelayUs = ParseReal("--reorder-delay", v, 0, 1e6); }},
        {"seed", [](auto& o, auto& v) { o.seed = ParseCount("--seed", v, 0, ~0ULL >> 1, false); }},
        {"udp-addrs", [](auto& o, auto& v) { o.udpAddrs = SplitComma(v); }},
        {"udp-port",
         [](auto& o, auto& v) { o.udpPort = ParseCount("--udp-port", v, 1, 65535, false); }},
        {"entropy",
         [](auto& o, auto& v) {
             if (v != "bind" && v != "fixed")
             {
                 Refuse("--entropy", v, "expected bind or fixed");
             }
             o.entropy = v == "bind" ? udp::EntropyMode::Bind : udp::EntropyMode::Fixed;
         }},
        {"pcap", [](auto& o, auto& v) { o.pcap = CheckOutputPath("--pcap", v); }},
        {"bind",
         [](auto& o, auto& v) {
             udp::ParseIpv4(v, 0, "--bind");
             o.bindAddr = v;
         }},
        {"pcap-snaplen",
         [](auto& o, auto& v) {
             o.pcapSnapLength = ParseCount("--pcap-snaplen", v, 0, 262144, false);
         }},
        {"buffer",
         [](auto& o, auto& v) { o.bufferCap = ParseCount("--buffer", v, 4096, 1ULL << 36, true); }},
        {"timeout",
         [](auto& o, auto& v) { o.timeoutSeconds = ParseReal("--timeout", v, 0.01, 1e5); }},
        {"busy-poll", [](auto& o, auto& v) { o.busyPollUs = ParseReal("--busy-poll", v, 0, 1e7); }},
        {"verbose", [](auto& o, auto&) { o.verbose = true; }},
        {"corrupt-for-test", [](auto& o, auto&) { o.corruptForTest = true; }},
    };
    return setters;
}

} // namespace

void
ValidateOptions(PerfOptions& o)
{
    if (o.transport == Transport::RoceV2 && o.planes != 1)
    {
        Refuse("--planes",
               std::to_string(o.planes),
               "a RoCEv2 queue pair is bound to one port: use --planes=1 with --transport=rocev2");
    }
    if (o.transport == Transport::RoceV2 && ((o.mtu & (o.mtu - 1)) != 0 || o.mtu > 4096))
    {
        Refuse("--mtu", std::to_string(o.mtu), "RoCEv2 allows 256, 512, 1024, 2048 or 4096");
    }
    if (o.sizes.empty())
    {
        o.sizes = {IsLatency(o.test) ? 2u : 65536u};
    }
    // A message's length travels in 32 bits (MetaRoCE, spec 5.2); RoCEv2 carries 2^31 bytes.
    const uint64_t maxSize = o.transport == Transport::RoceV2 ? 1ULL << 31 : (1ULL << 32) - 1;
    for (const uint64_t size : o.sizes)
    {
        if (size > maxSize)
        {
            Refuse("--size",
                   std::to_string(size),
                   std::string("a ") + TransportName(o.transport) + " message is at most " +
                       std::to_string(maxSize) + " bytes");
        }
    }
    // A server learns the plane count from its client (checked then, in the server).
    if (!o.server && !o.udpAddrs.empty() && o.udpAddrs.size() != o.planes)
    {
        Refuse("--udp-addrs",
               std::to_string(o.udpAddrs.size()) + " addresses",
               "give one IPv4 address per plane (--planes=" + std::to_string(o.planes) + ")");
    }
    if (o.udpAddrs.size() > kMaxPlanes)
    {
        Refuse("--udp-addrs",
               std::to_string(o.udpAddrs.size()) + " addresses",
               "at most " + std::to_string(kMaxPlanes) + ", one per plane");
    }
    for (const std::string& a : o.udpAddrs)
    {
        udp::ParseIpv4(a, 0, "--udp-addrs");
    }
}

void
ApplyOption(PerfOptions& o, const std::string& name, const std::string& value)
{
    auto it = Setters().find(name);
    if (it == Setters().end())
    {
        throw std::invalid_argument("--" + name + ": unknown option");
    }
    it->second(o, value);
}

const char*
TestName(Test t)
{
    static const char* names[] = {"write_bw", "send_bw", "write_lat", "send_lat"};
    return names[static_cast<int>(t)];
}

bool
IsLatency(Test t)
{
    return t == Test::WriteLat || t == Test::SendLat;
}

uint64_t
PerfOptions::Iterations() const
{
    return iters != 0 ? iters : (IsLatency(test) ? 1000 : 5000);
}

PerfOptions
ParseOptions(int argc, char** argv, bool& help)
{
    std::vector<option> longs;
    for (const auto& [name, setter] : Setters())
    {
        const bool flag = name == "all" || name == "verbose" || name == "corrupt-for-test";
        longs.push_back({name.c_str(), flag ? no_argument : required_argument, nullptr, 0});
    }
    longs.push_back({"help", no_argument, nullptr, 'h'});
    longs.push_back({nullptr, 0, nullptr, 0});
    const std::map<int, std::string> shorts{{'s', "size"},
                                            {'a', "all"},
                                            {'n', "iters"},
                                            {'t', "tx-depth"},
                                            {'p', "port"}};
    PerfOptions o;
    help = false;
    opterr = 0;
    optind = 1;
    for (int index = -1, c;
         (c = getopt_long(argc, argv, ":s:an:t:p:hF", longs.data(), &index)) != -1;
         index = -1)
    {
        const std::string given = optind > 1 ? argv[optind - 1] : "";
        if (c == 'h')
        {
            help = true;
            return o;
        }
        if (c == 'F')
        {
            continue; // perftest's --report_gbits: Gb/s are always reported
        }
        if (c == '?' || c == ':')
        {
            const std::string what = optopt ? std::string("-") + char(optopt) : given;
            throw std::invalid_argument(what + (c == ':' ? ": needs a value" : ": unknown option") +
                                        " (--help lists the options)");
        }
        const std::string name = index >= 0 ? longs[index].name : shorts.at(c);
        Setters().at(name)(o, optarg ? std::string(optarg) : std::string());
    }
    if (optind < argc)
    {
        o.server = false;
        o.host = argv[optind++];
        udp::ParseIpv4(o.host, 0, "host");
    }
    if (optind < argc)
    {
        throw std::invalid_argument(std::string(argv[optind]) + ": unexpected argument (one host)");
    }
    ValidateOptions(o);
    return o;
}

std::string
JoinComma(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& s : items)
    {
        out += (out.empty() ? "" : ",") + s;
    }
    return out;
}

std::vector<std::string>
DefaultUdpAddrs(bool server, uint16_t planes, const std::string& host)
{
    if (!server && host.rfind("127.", 0) != 0)
    {
        throw std::invalid_argument("--udp-addrs: needed when the server (" + host +
                                    ") is not on loopback: one local IPv4 address per plane");
    }
    std::vector<std::string> addrs;
    for (uint16_t p = 0; p < planes; ++p)
    {
        addrs.push_back("127.0." + std::to_string(p + 1) + (server ? ".1" : ".2"));
    }
    return addrs;
}

const char*
UsageText()
{
    return R"(usage: metaroce-perf [options]            server (serves until one client's test is done)
       metaroce-perf [options] SERVER_ADDR  client (runs the test, prints the report)

  --test=write_bw|send_bw|write_lat|send_lat   test (default write_bw)
  --transport=metaroce|rocev2                  transport (default metaroce)
  -s, --size=BYTES        message size (K/M/G suffixes; default 65536, latency 2)
  -a, --all               sweep sizes 2 B .. 8 MiB
  -n, --iters=N           messages per size (default 5000, latency 1000)
  -t, --tx-depth=N        outstanding work requests in bandwidth tests (default 128)
  -p, --port=PORT         TCP control port (default 18515)
  --bind=ADDR             server: the IPv4 address the control port listens on (default
                          127.0.0.1); client: the address it connects from
  --planes=N              planes = UDP sockets per side (MetaRoCE; default 1)
  --rate=GBPS             line rate each plane is paced at (default 10)
  --mtu=BYTES             payload bytes per packet (default 4096)
  --loss=PERCENT          injected loss, each direction (the server adopts the client's)
  --reorder=PERCENT, --reorder-delay=US, --duplicate=PERCENT, --delay=US, --seed=N
  --corrupt=PERCENT       injected bit errors: one bit of a datagram flipped, each direction
  --mcrc=on|off           MetaRoCE: a CRC-32C trailer on every packet, checked (default off;
                          the server adopts the client's)
  --udp-addrs=A[,B...]    this side's IPv4 address per plane (default 127.0.<p+1>.1 server,
                          .2 client); --udp-port=PORT (default 4792 MetaRoCE, 4791 RoCEv2)
  --entropy=bind|fixed    send from the engine's UDP source port (default) or one socket
  --pcap=FILE             capture this side's datagrams (LINKTYPE_RAW); --pcap-snaplen=N
  --buffer=BYTES          most bytes the server registers for its targets (default 1G)
  --timeout=SECONDS       give up on a message size, or a silent peer, after this long
                          (default 60; the server waits at most its own)
  --busy-poll=US          poll, not sleep, this long after traffic (default 200; 0: off)
  --verbose               engine and driver counters after each size
  --corrupt-for-test      (server) flip a received byte first: the run must fail
)";
}

} // namespace metaroce::perf
