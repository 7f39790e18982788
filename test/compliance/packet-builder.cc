/*
 * Building the packets a compliance scenario injects (Build(), declared in packet-codec.h):
 * the field values a scenario wrote, over the defaults a compliant peer would use, serialised
 * with the engine's own wire code. Decoding is in packet-codec.cc.
 */
#include "mcrc.h"
#include "packet-codec.h"
#include "rocev2-wire.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

uint64_t
Value(const std::map<std::string, uint64_t>& values, const std::string& name, uint64_t fallback)
{
    const auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
}

template<typename T>
T
Narrow(const std::map<std::string, uint64_t>& values, const std::string& name, uint64_t fallback)
{
    const uint64_t v = Value(values, name, fallback);
    if (v > std::numeric_limits<T>::max())
    {
        throw std::invalid_argument(name + "=" + std::to_string(v) + " does not fit its field");
    }
    return static_cast<T>(v);
}

std::vector<uint8_t>
BuildMetaRoce(const DutSetup& setup,
              const MrOpcodeInfo& info,
              const std::map<std::string, uint64_t>& v,
              const std::optional<std::bitset<kSackBits>>& sack,
              TimeNs now)
{
    MrHeader h;
    h.opcode = info.opcode;
    h.flowId = Narrow<uint16_t>(v, "flowId", 0);
    h.connection = Narrow<uint32_t>(v, "connection", kDutConnection);
    uint32_t payload = 0;
    if (info.mask & kMrOpSequenced)
    {
        h.psn = Narrow<uint32_t>(v, "psn", 0);
        h.ackFloor = Narrow<uint32_t>(v, "ackFloor", 0);
        h.timestamp = Value(v, "timestamp", now);
    }
    switch (info.opcode)
    {
    case MrOpcode::Write:
    case MrOpcode::Send: {
        h.stream = Narrow<uint16_t>(v, "stream", 0);
        h.msn = Narrow<uint32_t>(v, "msn", 0);
        h.offset = Narrow<uint32_t>(v, "offset", 0);
        if (!v.count("messageLength") && !v.count("payloadLength"))
        {
            throw std::invalid_argument(std::string(info.name) +
                                        " needs messageLength or payloadLength");
        }
        h.messageLength = Narrow<uint32_t>(v, "messageLength", Value(v, "payloadLength", 0));
        const uint64_t rest = h.messageLength > h.offset ? h.messageLength - h.offset : 0;
        h.payloadLength =
            Narrow<uint32_t>(v, "payloadLength", std::min<uint64_t>(rest, setup.metaroce.mtu));
        h.recvIndex = Narrow<uint32_t>(v, "recvIndex", 0);
        h.remoteAddr = Value(v, "remoteAddr", 0);
        h.remoteKey = Narrow<uint32_t>(v, "remoteKey", 0);
        const bool last = uint64_t{h.offset} + h.payloadLength == h.messageLength;
        h.flags = static_cast<uint8_t>((h.offset == 0 ? kMrFlagFirst : 0) |
                                       (last ? kMrFlagLast | kMrFlagAckReq : 0));
        payload = h.payloadLength;
        break;
    }
    case MrOpcode::Probe:
        h.flags = kMrFlagAckReq;
        break;
    case MrOpcode::Ack:
        h.cumulativeFsn = Narrow<uint32_t>(v, "cumulativeFsn", 0);
        h.rateHintMbps = Narrow<uint32_t>(v, "rateHint", 0);
        h.echoTimestamp = Value(v, "echoTimestamp", 0);
        h.ceCount = Narrow<uint16_t>(v, "ceCount", 0);
        h.newCount = Narrow<uint16_t>(v, "newCount", 0);
        h.creditBytes = Narrow<uint32_t>(v, "credit", 0);
        h.sack = sack.value_or(std::bitset<kSackBits>());
        h.flags = h.ceCount > 0 ? kMrFlagEce : 0;
        h.repeatCount = Narrow<uint8_t>(v, "repeats", 0);
        if (h.repeatCount > kMrMaxAckRepeats)
        {
            throw std::invalid_argument("repeats=" + std::to_string(h.repeatCount) +
                                        ": an ACK carries at most " +
                                        std::to_string(kMrMaxAckRepeats));
        }
        for (std::size_t k = 0; k < h.repeatCount; ++k)
        {
            const std::string name = "repeat" + std::to_string(k);
            h.repeats[k] = MrAckRepeat{Narrow<uint16_t>(v, name + "Path", 0),
                                       Narrow<uint16_t>(v, name + "Sack", 0),
                                       Narrow<uint32_t>(v, name + "Psn", 0)};
        }
        break;
    case MrOpcode::Nak:
        h.stream = Narrow<uint16_t>(v, "stream", 0);
        h.syndrome = static_cast<MrNakSyndrome>(Narrow<uint16_t>(v, "syndrome", 1));
        h.msn = Narrow<uint32_t>(v, "msn", 0);
        break;
    }
    h.flags = Narrow<uint8_t>(v, "flags", h.flags);
    std::vector<uint8_t> out(h.Size() + payload, 0);
    MrSerialize(h, out.data());
    if (v.count("version"))
    {
        out[0] = static_cast<uint8_t>(Narrow<uint8_t>(v, "version", 1) << 4 | (out[0] & 0x0f));
    }
    return out;
}

std::vector<uint8_t>
BuildRoceV2(const IbOpcodeInfo& info, const std::map<std::string, uint64_t>& v)
{
    IbBth bth;
    bth.opcode = info.opcode;
    bth.solicited = Value(v, "se", 0) != 0;
    bth.migReq = Value(v, "migReq", 0) != 0;
    bth.tver = Narrow<uint8_t>(v, "tver", 0);
    bth.pKey = Narrow<uint16_t>(v, "pKey", kIbDefaultPKey);
    bth.destQpn = Narrow<uint32_t>(v, "destQpn", kDutConnection);
    bth.ackReq = Value(v, "ackReq", 0) != 0;
    bth.psn = Narrow<uint32_t>(v, "psn", 0);
    const uint32_t payload =
        (info.mask & kIbHasPayload) ? Narrow<uint32_t>(v, "payloadLength", 0) : 0;
    bth.padCount = Narrow<uint8_t>(v, "padCount", IbPadCount(payload));
    IbReth reth;
    reth.va = Value(v, "va", 0);
    reth.rkey = Narrow<uint32_t>(v, "rkey", 0);
    reth.dmaLength = Narrow<uint32_t>(v, "dmaLength", payload);
    IbAeth aeth;
    aeth.syndrome = Narrow<uint8_t>(v, "syndrome", IbAckSyndrome());
    aeth.msn = Narrow<uint32_t>(v, "msn", 0);
    std::vector<uint8_t> out = IbSerializeHeader(bth, reth, aeth).ToVector();
    const uint32_t trailer =
        (info.mask & kIbHasPayload) ? IbTrailedSize(payload) : static_cast<uint32_t>(kIbIcrcSize);
    out.resize(out.size() + trailer, 0);
    return out;
}

} // namespace

WirePacket
Build(const DutSetup& setup,
      const std::string& opcode,
      const std::map<std::string, uint64_t>& values,
      const std::optional<std::bitset<kSackBits>>& sack,
      const BytePatches& patches,
      TimeNs now)
{
    WirePacket pkt;
    pkt.time = now;
    pkt.port = Narrow<uint16_t>(values, "port", 0);
    pkt.udpSrcPort = Narrow<uint16_t>(values, "sport", 49152);
    pkt.ecnCe = Value(values, "ce", 0) != 0;
    if (setup.transport == Transport::MetaRoce)
    {
        const MrOpcodeInfo* info = MetaOpcodeByName(opcode);
        if (info == nullptr)
        {
            throw std::invalid_argument("'" + opcode + "' is not a MetaRoCE opcode");
        }
        pkt.udpDstPort = Narrow<uint16_t>(values, "dport", kMetaRoceUdpPort);
        pkt.bytes = BuildMetaRoce(setup, *info, values, sack, now);
    }
    else
    {
        const IbOpcodeInfo* info = RoceOpcodeByName(opcode);
        if (info == nullptr)
        {
            throw std::invalid_argument("'" + opcode + "' is not a RoCEv2 opcode");
        }
        pkt.udpDstPort = Narrow<uint16_t>(values, "dport", kRoceV2UdpPort);
        pkt.bytes = BuildRoceV2(*info, values);
    }
    if (values.count("datagram"))
    {
        pkt.bytes.resize(Value(values, "datagram", 0), 0);
    }
    if (setup.transport == Transport::MetaRoce && setup.metaroce.mcrc)
    {
        // The trailer covers the datagram as built; an @N patch after it is a bit error.
        const uint32_t crc = McrcCompute(pkt.bytes.data(), pkt.bytes.size());
        for (int shift = 24; shift >= 0; shift -= 8)
        {
            pkt.bytes.push_back(static_cast<uint8_t>(crc >> shift));
        }
    }
    for (const auto& [offset, byte] : patches)
    {
        if (offset >= pkt.bytes.size())
        {
            throw std::invalid_argument("@" + std::to_string(offset) + " is beyond the " +
                                        std::to_string(pkt.bytes.size()) + "-byte datagram");
        }
        pkt.bytes[offset] = byte;
    }
    return pkt;
}

} // namespace metaroce::compliance
