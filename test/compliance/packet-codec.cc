#include "packet-codec.h"

#include "mcrc.h"
#include "rocev2-wire.h"
#include "text-values.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

using FieldList = std::vector<std::string>;

const FieldList kMetaFields = {"port", "sport", "dport", "wireSize"};

/// MetaRoCE fields per opcode, in wire order (spec 5.1, 5.2-5.5).
const std::map<std::string, FieldList>&
MetaRoceFields()
{
    static const FieldList common = {"version", "flags", "flowId", "connection"};
    static const FieldList data = {"fsn",
                                   "ackFloor",
                                   "stream",
                                   "msn",
                                   "messageLength",
                                   "offset",
                                   "payloadLength",
                                   "recvIndex",
                                   "timestamp"};
    auto join = [](FieldList a, const FieldList& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    static const std::map<std::string, FieldList> fields = {
        {"WRITE", join(join(common, data), {"remoteAddr", "remoteKey"})},
        {"SEND", join(common, data)},
        {"PROBE", join(common, {"fsn", "ackFloor", "timestamp"})},
        {"ACK", join(common, {"cumulativeFsn", "rateHint",    "echoTimestamp", "ceCount",
                              "newCount",      "credit",      "sack",          "repeats",
                              "repeat0Flow",   "repeat0Sack", "repeat0Fsn",    "repeat1Flow",
                              "repeat1Sack",   "repeat1Fsn",  "repeat2Flow",   "repeat2Sack",
                              "repeat2Fsn",    "repeat3Flow", "repeat3Sack",   "repeat3Fsn"})},
        {"NAK", join(common, {"stream", "syndrome", "msn"})},
    };
    return fields;
}

/// RoCEv2 fields per opcode name (spec 10.2).
FieldList
RoceV2Fields(const IbOpcodeInfo& info)
{
    FieldList f = {"se", "migReq", "padCount", "tver", "pKey", "destQpn", "ackReq", "psn"};
    if (info.mask & kIbHasReth)
    {
        f.insert(f.end(), {"va", "rkey", "dmaLength"});
    }
    if (info.mask & kIbHasAeth)
    {
        f.insert(f.end(), {"syndrome", "msn"});
    }
    if (info.mask & kIbHasPayload)
    {
        f.push_back("payloadLength");
    }
    return f;
}

std::optional<FieldList>
FieldsOf(Transport transport, const std::string& opcode)
{
    if (transport == Transport::MetaRoce)
    {
        const auto it = MetaRoceFields().find(opcode);
        return it == MetaRoceFields().end() ? std::nullopt : std::optional<FieldList>(it->second);
    }
    const IbOpcodeInfo* info = RoceOpcodeByName(opcode);
    return info == nullptr ? std::nullopt : std::optional<FieldList>(RoceV2Fields(*info));
}

const std::pair<const char*, uint8_t> kFlagNames[] = {
    {"FIRST", kMrFlagFirst},
    {"LAST", kMrFlagLast},
    {"RETX", kMrFlagRetx},
    {"ACKREQ", kMrFlagAckReq},
    {"ECE", kMrFlagEce},
    {"NOSACK", kMrFlagNoSack},
};

std::string
FormatFlags(uint64_t flags)
{
    std::string out;
    for (const auto& [name, bit] : kFlagNames)
    {
        if (flags & bit)
        {
            out += (out.empty() ? "" : "|") + std::string(name);
            flags &= ~static_cast<uint64_t>(bit);
        }
    }
    if (flags != 0)
    {
        std::ostringstream os;
        os << "0x" << std::hex << flags;
        out += (out.empty() ? "" : "|") + os.str();
    }
    return out.empty() ? "0" : out;
}

const std::pair<const char*, CompletionStatus> kStatusNames[] = {
    {"Success", CompletionStatus::Success},
    {"RemoteAccessError", CompletionStatus::RemoteAccessError},
    {"RetryExceeded", CompletionStatus::RetryExceeded},
    {"LocalLengthError", CompletionStatus::LocalLengthError},
    {"Flushed", CompletionStatus::Flushed},
};

void
DecodeMetaRoce(const WirePacket& pkt, DecodedPacket& d)
{
    const MrParseResult r = MrParse(pkt.bytes.data(), pkt.bytes.size(), pkt.bytes.size());
    if (!r.header)
    {
        d.parseError = std::string("does not parse: ") +
                       kDropReasons[static_cast<std::size_t>(r.reason)].specName;
        return;
    }
    const MrHeader& h = *r.header;
    d.opcode = MrLookupOpcode(static_cast<uint8_t>(h.opcode))->name;
    auto add = [&d](const char* name, uint64_t v) { d.fields.emplace_back(name, v); };
    add("version", pkt.bytes[0] >> 4);
    add("flags", h.flags);
    add("flowId", h.flowId);
    add("connection", h.connection);
    switch (h.opcode)
    {
    case MrOpcode::Write:
    case MrOpcode::Send:
        add("fsn", h.fsn);
        add("ackFloor", h.ackFloor);
        add("stream", h.stream);
        add("msn", h.msn);
        add("messageLength", h.messageLength);
        add("offset", h.offset);
        add("payloadLength", h.payloadLength);
        add("recvIndex", h.recvIndex);
        add("timestamp", h.timestamp);
        if (h.opcode == MrOpcode::Write)
        {
            add("remoteAddr", h.remoteAddr);
            add("remoteKey", h.remoteKey);
        }
        break;
    case MrOpcode::Probe:
        add("fsn", h.fsn);
        add("ackFloor", h.ackFloor);
        add("timestamp", h.timestamp);
        break;
    case MrOpcode::Ack:
        add("cumulativeFsn", h.cumulativeFsn);
        add("rateHint", h.rateHintMbps);
        add("echoTimestamp", h.echoTimestamp);
        add("ceCount", h.ceCount);
        add("newCount", h.newCount);
        add("credit", h.creditBytes);
        d.sack = h.sack;
        add("repeats", h.repeatCount);
        for (std::size_t k = 0; k < h.repeatCount; ++k)
        {
            const std::string name = "repeat" + std::to_string(k);
            d.fields.emplace_back(name + "Flow", h.repeats[k].flowId);
            d.fields.emplace_back(name + "Sack", h.repeats[k].sack);
            d.fields.emplace_back(name + "Fsn", h.repeats[k].cumulativeFsn);
        }
        break;
    case MrOpcode::Nak:
        add("stream", h.stream);
        add("syndrome", static_cast<uint64_t>(h.syndrome));
        add("msn", h.msn);
        break;
    }
}

void
DecodeRoceV2(const WirePacket& pkt, DecodedPacket& d)
{
    const IbParseResult r = IbParse(pkt.bytes.data(), pkt.bytes.size(), pkt.bytes.size());
    if (!r.packet)
    {
        d.parseError = std::string("does not parse: ") +
                       kDropReasons[static_cast<std::size_t>(r.reason)].specName;
        return;
    }
    const IbPacket& p = *r.packet;
    d.opcode = p.info->name;
    auto add = [&d](const char* name, uint64_t v) { d.fields.emplace_back(name, v); };
    add("se", p.bth.solicited);
    add("migReq", p.bth.migReq);
    add("padCount", p.bth.padCount);
    add("tver", p.bth.tver);
    add("pKey", p.bth.pKey);
    add("destQpn", p.bth.destQpn);
    add("ackReq", p.bth.ackReq);
    add("psn", p.bth.psn);
    if (p.info->mask & kIbHasReth)
    {
        add("va", p.reth.va);
        add("rkey", p.reth.rkey);
        add("dmaLength", p.reth.dmaLength);
    }
    if (p.info->mask & kIbHasAeth)
    {
        add("syndrome", p.aeth.syndrome);
        add("msn", p.aeth.msn);
    }
    if (p.info->mask & kIbHasPayload)
    {
        add("payloadLength", p.payloadLength);
    }
}

} // namespace

const IbOpcodeInfo*
RoceOpcodeByName(const std::string& name)
{
    for (unsigned v = 0; v < 256; ++v)
    {
        const IbOpcodeInfo* info = IbLookupOpcode(static_cast<uint8_t>(v));
        if (info != nullptr && name == info->name)
        {
            return info;
        }
    }
    return nullptr;
}

const MrOpcodeInfo*
MetaOpcodeByName(const std::string& name)
{
    for (unsigned v = 0; v < 16; ++v)
    {
        const MrOpcodeInfo* info = MrLookupOpcode(static_cast<uint8_t>(v));
        if (info != nullptr && name == info->name)
        {
            return info;
        }
    }
    return nullptr;
}

std::optional<uint64_t>
DecodedPacket::Get(const std::string& name) const
{
    for (const auto& [n, v] : fields)
    {
        if (n == name)
        {
            return v;
        }
    }
    return std::nullopt;
}

std::string
DecodedPacket::ToString() const
{
    std::ostringstream os;
    os << (opcode.empty() ? "?" : opcode);
    for (const auto& [name, v] : fields)
    {
        os << ' ' << name << '=';
        if (name == "flags" && opcode.rfind("RC_", 0) != 0)
        {
            os << FormatFlags(v);
        }
        else if (name == "syndrome" && opcode.rfind("RC_", 0) == 0)
        {
            os << "0x" << std::hex << v << std::dec;
        }
        else
        {
            os << v;
        }
    }
    if (sack)
    {
        os << " sack=" << FormatSack(*sack);
    }
    if (!parseError.empty())
    {
        os << " (" << parseError << ')';
    }
    return os.str();
}

DecodedPacket
Decode(Transport transport, const WirePacket& pkt, bool mcrc)
{
    DecodedPacket d;
    d.time = pkt.time;
    d.bytes = pkt.bytes;
    d.fields = {{"port", pkt.port},
                {"sport", pkt.udpSrcPort},
                {"dport", pkt.udpDstPort},
                {"wireSize", pkt.bytes.size()}};
    if (transport == Transport::MetaRoce && mcrc)
    {
        WirePacket body = pkt;
        body.bytes.resize(pkt.bytes.size() >= kMcrcSize ? pkt.bytes.size() - kMcrcSize : 0);
        DecodeMetaRoce(body, d);
    }
    else if (transport == Transport::MetaRoce)
    {
        DecodeMetaRoce(pkt, d);
    }
    else
    {
        DecodeRoceV2(pkt, d);
    }
    return d;
}

bool
IsOpcode(Transport transport, const std::string& opcode)
{
    return FieldsOf(transport, opcode).has_value();
}

bool
IsField(Transport transport, const std::string& opcode, const std::string& field)
{
    const std::optional<FieldList> fields = FieldsOf(transport, opcode);
    if (!fields)
    {
        return false;
    }
    return std::find(kMetaFields.begin(), kMetaFields.end(), field) != kMetaFields.end() ||
           std::find(fields->begin(), fields->end(), field) != fields->end();
}

bool
IsInjectOnlyField(const std::string& field)
{
    return field == "ce" || field == "datagram";
}

uint64_t
ParseFieldValue(const std::string& field, const std::string& text)
{
    if (field == "flags" && !text.empty() && (text[0] < '0' || text[0] > '9'))
    {
        uint64_t flags = 0;
        std::size_t start = 0;
        while (start <= text.size())
        {
            const std::size_t bar = std::min(text.find('|', start), text.size());
            const std::string name = text.substr(start, bar - start);
            const auto it = std::find_if(std::begin(kFlagNames),
                                         std::end(kFlagNames),
                                         [&](const auto& f) { return name == f.first; });
            if (it == std::end(kFlagNames))
            {
                throw std::invalid_argument("unknown flag '" + name +
                                            "' (FIRST, LAST, RETX, ACKREQ, ECE)");
            }
            flags |= it->second;
            start = bar + 1;
        }
        return flags;
    }
    if (field == "timestamp" || field == "echoTimestamp")
    {
        return ParseTime(text);
    }
    return ParseUnsigned(text);
}

std::bitset<kSackBits>
ParseSack(const std::string& text)
{
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    {
        throw std::invalid_argument("a SACK is written {i,j,k-l}, not '" + text + "'");
    }
    std::bitset<kSackBits> sack;
    const std::string body = text.substr(1, text.size() - 2);
    std::size_t start = 0;
    while (start < body.size())
    {
        const std::size_t comma = std::min(body.find(',', start), body.size());
        const std::string item = body.substr(start, comma - start);
        const std::size_t dash = item.find('-');
        const uint64_t lo = ParseUnsigned(item.substr(0, dash), kSackBits - 1);
        const uint64_t hi =
            dash == std::string::npos ? lo : ParseUnsigned(item.substr(dash + 1), kSackBits - 1);
        if (hi < lo)
        {
            throw std::invalid_argument("SACK range '" + item + "' runs backwards");
        }
        for (uint64_t i = lo; i <= hi; ++i)
        {
            sack.set(i);
        }
        start = comma + 1;
    }
    return sack;
}

std::string
FormatSack(const std::bitset<kSackBits>& sack)
{
    std::string out;
    for (std::size_t i = 0; i < kSackBits; ++i)
    {
        if (!sack.test(i))
        {
            continue;
        }
        std::size_t j = i;
        while (j + 1 < kSackBits && sack.test(j + 1))
        {
            ++j;
        }
        out += (out.empty() ? "" : ",") + std::to_string(i);
        if (j > i)
        {
            out += "-" + std::to_string(j);
        }
        i = j;
    }
    return "{" + out + "}";
}

std::optional<uint64_t>
CounterValue(const Counters& c, const std::string& name)
{
    for (const CounterField& field : kCounterFields)
    {
        if (name == field.name)
        {
            return c.*field.member;
        }
    }
    const std::string prefix = "drops.";
    if (name.rfind(prefix, 0) == 0)
    {
        if (const auto reason = DropReasonBySpecName(name.substr(prefix.size())))
        {
            return c.Drops(*reason);
        }
    }
    return std::nullopt;
}

std::vector<std::string>
CounterNames()
{
    std::vector<std::string> out;
    for (const CounterField& field : kCounterFields)
    {
        out.emplace_back(field.name);
    }
    for (const auto& reason : kDropReasons)
    {
        out.push_back(std::string("drops.") + reason.specName);
    }
    return out;
}

std::optional<CompletionStatus>
ParseStatus(const std::string& text)
{
    for (const auto& [name, status] : kStatusNames)
    {
        if (text == name)
        {
            return status;
        }
    }
    return std::nullopt;
}

const char*
StatusName(CompletionStatus status)
{
    for (const auto& [name, s] : kStatusNames)
    {
        if (s == status)
        {
            return name;
        }
    }
    return "?";
}

} // namespace metaroce::compliance
