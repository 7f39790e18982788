#include "dut-setup.h"

#include "metaroce-connection.h"
#include "rocev2-queue-pair.h"
#include "text-values.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace metaroce::compliance
{

namespace
{

/// Parses `text` in the unit of field `f` and stores it in `config`, range-checked.
template<typename Config>
void
SetField(Config& config, const ConfigField<Config>& f, const std::string& text)
{
    double value = 0;
    switch (f.unit)
    {
    case FieldUnit::Nanoseconds:
        value = static_cast<double>(ParseTime(text));
        break;
    case FieldUnit::Flag:
        value = ParseBool(text) ? 1 : 0;
        break;
    case FieldUnit::Real: {
        std::size_t used = 0;
        try
        {
            value = std::stod(text, &used);
        }
        catch (const std::exception&) // std::stod says only "stod"
        {
            used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(value))
        {
            throw std::invalid_argument("'" + text + "' is not a finite number");
        }
        break;
    }
    case FieldUnit::Count:
    case FieldUnit::Bytes:
    case FieldUnit::BitsPerSecond:
        value = static_cast<double>(ParseUnsigned(text));
        break;
    }
    const std::string why = f.Check(value);
    if (!why.empty())
    {
        throw std::invalid_argument(why + " (got " + text + ")");
    }
    f.set(config, value);
}

/// Sets `key` ("rtoMinNs", or "<prefix>.<member>" for a nested table) when it names a row of
/// `fields`; false when it does not.
template<typename Config>
bool
SetByKey(Config& config,
         const ConfigFields<Config>& fields,
         const std::string& prefix,
         const std::string& key,
         const std::string& value)
{
    if (key.compare(0, prefix.size(), prefix) != 0)
    {
        return false;
    }
    const ConfigField<Config>* f = FindField(fields, key.substr(prefix.size()));
    if (f == nullptr)
    {
        return false;
    }
    SetField(config, *f, value);
    return true;
}

template<typename Config>
void
AddKeys(std::vector<std::string>& out,
        const ConfigFields<Config>& fields,
        const std::string& prefix)
{
    for (const ConfigField<Config>& f : fields)
    {
        out.push_back(prefix + f.member);
    }
}

/// The settings of the configuration tables (config-field.h) - every one an attribute of
/// MetaRoceNic - and the shape of the DUT's ports. True when `key` is one of them.
bool
ApplyPortable(DutSetup& s, const std::string& key, const std::string& value)
{
    if (s.transport == Transport::MetaRoce)
    {
        if (key == "ports")
        {
            s.metaroce.ports = static_cast<uint16_t>(ParseUnsigned(value, 64));
            return true;
        }
        if (key == "portRateBps")
        {
            s.metaroce.portRateBps = ParseUnsigned(value);
            return true;
        }
        return SetByKey(s.metaroce, MetaRoceConfigFields(), "", key, value) ||
               SetByKey(s.metaroce.aimd, AimdConfigFields(), "aimd.", key, value);
    }
    if (key == "mtu")
    {
        s.rocev2.mtu = static_cast<uint32_t>(ParseUnsigned(value, 4096));
        return true;
    }
    if (key == "lineRateBps")
    {
        s.rocev2.lineRateBps = ParseUnsigned(value);
        return true;
    }
    if (key == "dcqcn.variant")
    {
        s.rocev2.dcqcn.variant = ParseDcqcnVariant(value);
        return true;
    }
    return SetByKey(s.rocev2, RoceV2ConfigFields(), "", key, value) ||
           SetByKey(s.rocev2.dcqcn, DcqcnConfigFields(), "dcqcn.", key, value);
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
    bool known = false;
    try
    {
        known = ApplyPortable(setup, key, value);
    }
    catch (const std::exception& e)
    {
        throw std::invalid_argument(key + ": " + e.what());
    }
    if (!known)
    {
        std::string keys;
        for (const std::string& k : PortableKeys(setup.transport))
        {
            keys += (keys.empty() ? "" : ", ") + k;
        }
        throw std::invalid_argument("'" + key + "' is not a portable " +
                                    TransportName(setup.transport) + " setting (portable: " + keys +
                                    ")");
    }
}

void
Finish(DutSetup& setup)
{
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
    if (transport == Transport::MetaRoce)
    {
        out = {"ports", "portRateBps"};
        AddKeys(out, MetaRoceConfigFields(), "");
        AddKeys(out, AimdConfigFields(), "aimd.");
    }
    else
    {
        out = {"mtu", "lineRateBps", "dcqcn.variant"};
        AddKeys(out, RoceV2ConfigFields(), "");
        AddKeys(out, DcqcnConfigFields(), "dcqcn.");
    }
    return out;
}

std::unique_ptr<MemoryRegistry>
MakeDutMemory(const DutSetup& setup)
{
    auto memory = std::make_unique<MemoryRegistry>();
    for (const DutRegion& r : setup.regions)
    {
        memory->Register({r.key, r.addr, r.length, nullptr});
    }
    return memory;
}

std::unique_ptr<TransportEngine>
MakeDutEngine(const DutSetup& setup, MemoryRegistry& memory)
{
    if (setup.transport == Transport::MetaRoce)
    {
        return std::make_unique<MetaRoceConnection>(setup.metaroce, &memory);
    }
    return std::make_unique<RoceV2QueuePair>(setup.rocev2, memory);
}

} // namespace metaroce::compliance
