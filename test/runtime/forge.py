"""What an attacker sends metaroce-perf (test/runtime/attack-perf.py uses it).

* MetaRoCE headers built from their fields (contrib/metaroce/engine/metaroce/metaroce-wire.h):
  a WRITE that places bytes, an ACK that acknowledges PSNs.
* RoCEv2 packets (IBA BTH, RETH, AETH, zero ICRC as the engine carries it): an RDMA WRITE
  Only and an ACKNOWLEDGE.
* The runtime's captures read back (nanosecond pcap, LINKTYPE_RAW: IPv4 + UDP + payload).
* Datagrams with a spoofed IPv4 source address and UDP source port, through a raw socket
  (root only), to test what passes the runtime's peer filter: the engine's own checks.
"""
import socket
import struct

MR_VERSION = 1
MR_WRITE, MR_ACK = 1, 3
MR_FIRST, MR_LAST, MR_ACKREQ, MR_NOSACK = 0x01, 0x02, 0x08, 0x20
IB_WRITE_ONLY, IB_ACK = 0x0A, 0x11
IB_PKEY = 0xFFFF
PCAP_NS_MAGIC = 0xA1B23C4D


def mr_common(opcode, flags, path, conn, word8, word12):
    return struct.pack(">BBHIII", MR_VERSION << 4 | opcode, flags, path, conn & 0xFFFFFFFF,
                       word8 & 0xFFFFFFFF, word12 & 0xFFFFFFFF)


def mr_write(conn, path, psn, ack_floor, msn, addr, rkey, payload, stream=0, timestamp=0,
             flags=MR_FIRST | MR_LAST | MR_ACKREQ, msg_len=None, offset=0):
    """A MetaRoCE WRITE packet (64-byte header, then the payload)."""
    head = mr_common(MR_WRITE, flags, path, conn, psn, ack_floor)
    head += struct.pack(">HHIIIIIQQII", stream, 0, msn, len(payload) if msg_len is None else msg_len,
                        offset, len(payload), 0, timestamp, addr, rkey, 0)
    return head + payload


def mr_ack(conn, path, cumulative, echo=0, new=1, credit=0):
    """A MetaRoCE ACK without SACK or repeats (flag NOSACK, 32 bytes)."""
    return (mr_common(MR_ACK, MR_NOSACK, path, conn, cumulative, 0) +
            struct.pack(">QHHI", echo, 0, new, credit))


def mr_fields(packet):
    """The fields of a MetaRoCE WRITE, as mr_write() takes them (None for another opcode)."""
    if len(packet) < 64 or packet[0] != (MR_VERSION << 4 | MR_WRITE):
        return None
    _, flags, path, conn, psn, floor = struct.unpack(">BBHIII", packet[:16])
    (stream, _, msn, msg_len, offset, length, _, timestamp, addr,
     rkey, _) = struct.unpack(">HHIIIIIQQII", packet[16:64])
    return dict(conn=conn, path=path, psn=psn, ack_floor=floor, msn=msn, addr=addr, rkey=rkey,
                payload=packet[64:64 + length], stream=stream, timestamp=timestamp, flags=flags,
                msg_len=msg_len, offset=offset)


def ib_bth(opcode, qpn, psn, pad=0, ackreq=False):
    return struct.pack(">BBHII", opcode, pad << 4, IB_PKEY, qpn & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))


def ib_write_only(qpn, psn, va, rkey, payload, ackreq=True):
    """A RoCEv2 RDMA WRITE Only: BTH, RETH, payload, pad, ICRC (zero, as the engine sends it)."""
    pad = -len(payload) % 4
    return (ib_bth(IB_WRITE_ONLY, qpn, psn, pad, ackreq) + struct.pack(">QII", va, rkey, len(payload))
            + payload + bytes(pad) + bytes(4))


def ib_ack(qpn, psn, msn, syndrome=0x1F):
    """A RoCEv2 ACKNOWLEDGE: BTH, AETH (ACK, no credit limit), ICRC."""
    return ib_bth(IB_ACK, qpn, psn) + struct.pack(">I", syndrome << 24 | msn & 0xFFFFFF) + bytes(4)


def ib_fields(packet):
    """The fields of a RoCEv2 WRITE Only, as ib_write_only() takes them (None otherwise)."""
    if len(packet) < 32 or packet[0] != IB_WRITE_ONLY:
        return None
    _, flags, _, qpn, word = struct.unpack(">BBHII", packet[:12])
    va, rkey, length = struct.unpack(">QII", packet[12:28])
    return dict(qpn=qpn, psn=word & 0xFFFFFF, va=va, rkey=rkey, payload=packet[28:28 + length],
                ackreq=bool(word >> 31))


def read_pcap(path):
    """The datagrams of a runtime capture: (source, sport, destination, dport, payload)."""
    with open(path, "rb") as f:
        data = f.read()
    (magic,) = struct.unpack("<I", data[:4])
    if magic != PCAP_NS_MAGIC:
        raise ValueError(f"{path}: not a nanosecond pcap of this host's byte order")
    out, pos = [], 24
    while pos + 16 <= len(data):
        _, _, kept, _ = struct.unpack("<IIII", data[pos:pos + 16])
        frame = data[pos + 16:pos + 16 + kept]
        pos += 16 + kept
        ihl = (frame[0] & 0x0F) * 4
        sport, dport = struct.unpack(">HH", frame[ihl:ihl + 4])
        out.append((socket.inet_ntoa(frame[12:16]), sport, socket.inet_ntoa(frame[16:20]), dport,
                    frame[ihl + 8:]))
    return out


def raw_socket():
    """A raw IPv4 socket that sends whole datagrams (IP_HDRINCL), or None when not allowed."""
    try:
        return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    except PermissionError:
        return None


def spoof(raw, source, sport, destination, dport, payload):
    """Sends `payload` as a UDP datagram from source:sport (spoofed) to destination:dport."""
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, socket.IPPROTO_UDP,
                     0, socket.inet_aton(source), socket.inet_aton(destination))
    raw.sendto(ip + udp, (destination, 0))
