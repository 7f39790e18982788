#include "perf-hello.h"

#include "perf-run.h"

#include <algorithm>
#include <sstream>

namespace metaroce::perf
{

namespace
{

/// The test parameters of a hello, by long option name; "sizes" is the list of sizes.
const std::vector<std::string>&
ParameterKeys()
{
    static const std::vector<std::string> keys{"test",
                                               "transport",
                                               "sizes",
                                               "iters",
                                               "tx-depth",
                                               "planes",
                                               "rate",
                                               "mtu",
                                               "loss",
                                               "reorder",
                                               "duplicate",
                                               "delay",
                                               "reorder-delay",
                                               "seed",
                                               "corrupt",
                                               "mcrc",
                                               "timeout"};
    return keys;
}

/// The sizes of a hello, each read as --size reads it.
std::vector<uint64_t>
TakeSizes(const std::string& text)
{
    std::vector<uint64_t> sizes;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
    {
        if (sizes.size() == kMaxSizes)
        {
            throw ControlError("hello: more than " + std::to_string(kMaxSizes) + " sizes");
        }
        PerfOptions one;
        ApplyOption(one, "size", item);
        sizes.push_back(one.sizes.front());
    }
    if (sizes.empty() || text.back() == ',')
    {
        throw ControlError("hello: sizes='" + text + "': expected sizes separated by commas");
    }
    return sizes;
}

/// The server's caps on an adopted test (see the header).
void
CheckCaps(const PerfOptions& own, const PerfOptions& o)
{
    if (!own.udpAddrs.empty() && own.udpAddrs.size() != o.planes)
    {
        throw ControlError("hello: --planes=" + std::to_string(o.planes) + ": this server has " +
                           std::to_string(own.udpAddrs.size()) + " plane addresses (--udp-addrs)");
    }
    for (const uint64_t size : o.sizes)
    {
        const uint64_t slots = ServerSlots(o, size);
        if (slots > o.bufferCap / size)
        {
            std::ostringstream what;
            what << "hello: --size=" << size << " with --tx-depth=" << o.txDepth << " makes the "
                 << TestName(o.test) << " server register " << slots << " x " << size
                 << " bytes, above its --buffer=" << o.bufferCap;
            throw ControlError(what.str());
        }
    }
}

} // namespace

Message
EncodeHello(const PerfOptions& o, const Identity& local)
{
    std::string sizes;
    for (uint64_t s : o.sizes)
    {
        sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    }
    Message m;
    m.Set("test", TestName(o.test)).Set("transport", TransportName(o.transport));
    m.Set("sizes", sizes).Set("iters", o.Iterations()).Set("tx-depth", o.txDepth);
    m.Set("planes", o.planes).SetReal("rate", o.rateGbps).Set("mtu", o.mtu);
    m.SetReal("loss", o.lossPercent).SetReal("reorder", o.reorderPercent);
    m.SetReal("duplicate", o.duplicatePercent).SetReal("delay", o.delayUs);
    m.SetReal("reorder-delay", o.reorderDelayUs).Set("seed", o.seed);
    m.SetReal("corrupt", o.corruptPercent).Set("mcrc", o.mcrc ? "on" : "off");
    m.SetReal("timeout", o.timeoutSeconds);
    PutIdentity(m, local, false);
    return m;
}

PerfOptions
AdoptHello(const PerfOptions& own, const Message& hello)
{
    std::vector<std::string> keys = ParameterKeys();
    const std::vector<std::string> identity = IdentityKeys(false);
    keys.insert(keys.end(), identity.begin(), identity.end());
    hello.Expect(keys);
    PerfOptions o = own;
    try
    {
        for (const std::string& key : ParameterKeys())
        {
            if (key != "sizes")
            {
                ApplyOption(o, key, hello.Get(key));
            }
        }
        o.sizes = TakeSizes(hello.Get("sizes"));
        ValidateOptions(o);
    }
    catch (const std::invalid_argument& e)
    {
        throw ControlError(std::string("hello: ") + e.what());
    }
    o.timeoutSeconds = std::min(own.timeoutSeconds, o.timeoutSeconds);
    CheckCaps(own, o);
    return o;
}

uint64_t
ServerBufferBytes(const PerfOptions& o)
{
    uint64_t bytes = 0;
    for (const uint64_t size : o.sizes)
    {
        bytes = std::max(bytes, ServerSlots(o, size) * size);
    }
    return bytes;
}

} // namespace metaroce::perf
