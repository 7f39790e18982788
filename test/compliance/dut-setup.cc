#include "dut-setup.h"

#include "text-values.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

using Setter = std::function<void(DutSetup&, const std::string&)>;

/// MetaRoCE settings a NIC exposes as attributes (MetaRoceNic: Mtu, PathsPerPort, ...).
const std::map<std::string, Setter>&
MetaRoceKeys()
{
    static const std::map<std::string, Setter> keys = {
        {"ports",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.ports = static_cast<uint16_t>(ParseUnsigned(v, 64));
         }},
        {"pathsPerPort",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.pathsPerPort = static_cast<uint16_t>(ParseUnsigned(v, 1024));
         }},
        {"streams",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.streams = static_cast<uint16_t>(ParseUnsigned(v, 65535));
         }},
        {"mtu",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.mtu = static_cast<uint32_t>(ParseUnsigned(v, 9000));
         }},
        {"portRateBps",
         [](DutSetup& s, const std::string& v) { s.metaroce.portRateBps = ParseUnsigned(v); }},
        {"initialPathWindowPackets",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.initialPathWindowPackets = static_cast<uint32_t>(ParseUnsigned(v, 256));
         }},
        {"ackEveryPackets",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.ackEveryPackets = static_cast<uint32_t>(ParseUnsigned(v, 256));
         }},
        {"ackDelayNs",
         [](DutSetup& s, const std::string& v) { s.metaroce.ackDelayNs = ParseTime(v); }},
        {"rtoMinNs", [](DutSetup& s, const std::string& v) { s.metaroce.rtoMinNs = ParseTime(v); }},
        {"rtoMaxNs", [](DutSetup& s, const std::string& v) { s.metaroce.rtoMaxNs = ParseTime(v); }},
        {"initialRttNs",
         [](DutSetup& s, const std::string& v) { s.metaroce.initialRttNs = ParseTime(v); }},
        {"initialRtoNs",
         [](DutSetup& s, const std::string& v) { s.metaroce.initialRtoNs = ParseTime(v); }},
        {"maxTailProbes",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.maxTailProbes = static_cast<uint32_t>(ParseUnsigned(v, 64));
         }},
        {"pathDownTimeouts",
         [](DutSetup& s, const std::string& v) {
             s.metaroce.pathDownTimeouts = static_cast<uint32_t>(ParseUnsigned(v, 1000));
         }},
        {"probeIntervalNs",
         [](DutSetup& s, const std::string& v) { s.metaroce.probeIntervalNs = ParseTime(v); }},
        {"honourRateHint",
         [](DutSetup& s, const std::string& v) { s.metaroce.honourRateHint = ParseBool(v); }},
    };
    return keys;
}

/// RoCEv2 settings a NIC exposes as attributes (Mtu, RoceWindow, RoceRto, ...).
const std::map<std::string, Setter>&
RoceV2Keys()
{
    static const std::map<std::string, Setter> keys = {
        {"mtu",
         [](DutSetup& s, const std::string& v) {
             s.rocev2.mtu = static_cast<uint32_t>(ParseUnsigned(v, 4096));
         }},
        {"lineRateBps",
         [](DutSetup& s, const std::string& v) { s.rocev2.lineRateBps = ParseUnsigned(v); }},
        {"windowPackets",
         [](DutSetup& s, const std::string& v) {
             s.rocev2.windowPackets = static_cast<uint32_t>(ParseUnsigned(v, 1u << 22));
         }},
        {"rtoNs", [](DutSetup& s, const std::string& v) { s.rocev2.rtoNs = ParseTime(v); }},
        {"retryLimit",
         [](DutSetup& s, const std::string& v) {
             s.rocev2.retryLimit = static_cast<uint32_t>(ParseUnsigned(v, 7));
         }},
        {"dcqcn", [](DutSetup& s, const std::string& v) { s.rocev2.dcqcn.enabled = ParseBool(v); }},
    };
    return keys;
}

const std::map<std::string, Setter>&
KeysOf(Transport transport)
{
    return transport == Transport::MetaRoce ? MetaRoceKeys() : RoceV2Keys();
}

} // namespace

uint16_t
DutSetup::Ports() const
{
    return transport == Transport::MetaRoce ? metaroce.ports : 1;
}

uint64_t
DutSetup::PortRateBps() const
{
    return transport == Transport::MetaRoce ? metaroce.portRateBps : rocev2.lineRateBps;
}

DutSetup
DefaultSetup(Transport transport)
{
    DutSetup s;
    s.transport = transport;
    s.metaroce.localConnection = kDutConnection;
    s.metaroce.remoteConnection = kDutConnection;
    s.rocev2.localQpn = kDutConnection;
    s.rocev2.remoteQpn = kDutConnection;
    return s;
}

void
ApplySetting(DutSetup& setup, const std::string& key, const std::string& value)
{
    const auto& keys = KeysOf(setup.transport);
    const auto it = keys.find(key);
    if (it == keys.end())
    {
        std::string known;
        for (const std::string& k : PortableKeys(setup.transport))
        {
            known += (known.empty() ? "" : ", ") + k;
        }
        throw std::invalid_argument("'" + key + "' is not a portable " +
                                    TransportName(setup.transport) +
                                    " setting (portable: " + known + ")");
    }
    try
    {
        it->second(setup, value);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(key + ": " + e.what());
    }
}

void
Finish(DutSetup& setup)
{
    // As MetaRoceNic does: a path is suspect after one timeout unless fewer take it down.
    setup.metaroce.pathSuspectTimeouts =
        std::min<uint32_t>(1, std::max<uint32_t>(setup.metaroce.pathDownTimeouts, 1));
    if (setup.transport == Transport::MetaRoce)
    {
        setup.metaroce.Validate();
    }
    else
    {
        setup.rocev2.Validate();
    }
}

std::vector<std::string>
PortableKeys(Transport transport)
{
    std::vector<std::string> out;
    for (const auto& [key, setter] : KeysOf(transport))
    {
        out.push_back(key);
    }
    return out;
}

} // namespace metaroce::compliance
