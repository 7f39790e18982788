#include "requester-packets.h"

namespace metaroce
{

namespace
{

OutPacket
Serialised(const MrHeader& h)
{
    OutPacket out;
    out.header.resize(h.Size());
    MrSerialize(h, out.header.data());
    return out;
}

} // namespace

OutPacket
MakeDataPacket(const MetaRoceConfig& config,
               uint32_t destination,
               MemoryRegistry* memory,
               const Flow& flow,
               const SendQueue::Message& m,
               uint32_t index,
               uint32_t payloadBytes,
               bool retx,
               TimeNs now,
               bool askAck)
{
    MrHeader h;
    h.opcode = m.wr.op == Opcode::Write ? MrOpcode::Write : MrOpcode::Send;
    h.flowId = flow.id;
    h.connection = destination;
    h.fsn = static_cast<uint32_t>(flow.nextFsn);
    h.ackFloor = static_cast<uint32_t>(flow.Floor());
    h.stream = m.wr.stream;
    h.msn = m.msn;
    h.messageLength = static_cast<uint32_t>(m.wr.length);
    h.offset = index * config.mtu;
    h.payloadLength = payloadBytes;
    h.recvIndex = m.recvIndex;
    h.timestamp = now;
    h.remoteAddr = m.wr.remoteAddr + h.offset;
    h.remoteKey = m.wr.remoteKey;
    // A retransmission asks for an immediate ACK: the message it belongs to is waiting on it.
    h.flags = (h.offset == 0 ? kMrFlagFirst : 0) | (retx ? kMrFlagRetx | kMrFlagAckReq : 0) |
              (askAck ? kMrFlagAckReq : 0);
    if (index + 1 == m.packets)
    {
        // The last packet asks for an immediate ACK so that completion is not delayed.
        h.flags |= kMrFlagLast | kMrFlagAckReq;
    }

    OutPacket out = Serialised(h);
    out.payloadSize = h.payloadLength;
    if (m.wr.localKey != 0 && memory != nullptr)
    {
        const uint64_t addr = m.wr.localAddr + h.offset;
        if (const MemoryRegion* r = memory->Check(m.wr.localKey, addr, h.payloadLength))
        {
            out.payload.resize(h.payloadLength);
            if (!memory->Read(*r, addr, out.payload.data(), h.payloadLength))
            {
                out.payload.clear();
            }
        }
    }
    return out;
}

OutPacket
MakeProbePacket(uint32_t destination, const Flow& flow, TimeNs now, bool ackRequest)
{
    MrHeader h;
    h.opcode = MrOpcode::Probe;
    h.flags = ackRequest ? kMrFlagAckReq : 0;
    h.flowId = flow.id;
    h.connection = destination;
    h.fsn = static_cast<uint32_t>(flow.nextFsn);
    h.ackFloor = static_cast<uint32_t>(flow.Floor());
    h.timestamp = now;
    OutPacket out = Serialised(h);
    out.isControl = true;
    return out;
}

} // namespace metaroce
