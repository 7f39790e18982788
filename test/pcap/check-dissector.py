#!/usr/bin/env python3
"""The Wireshark dissector (contrib/metaroce/tools/wireshark/metaroce.lua) on captures.

1. Hand-made packets, built here from doc/spec.md section 5 (not from the engine): every field
   of every opcode decodes to the value written, the SACK bitvector to the FSNs its bits name
   (across the 32-bit wrap), and each malformation of the spec's validation table (5.8) raises
   its expert info while the well-formed packets raise none.
2. Captures written by `metaroce-fabric --pcap` (MetaRoCE and RoCEv2 WRITEs between two hosts
   on two planes, no loss): every UDP 4792 frame decodes as MetaRoCE with the values the run
   sent (message and payload lengths, offsets and flags of every segment - ACKREQ on every
   lone one and on the message's last one per plane - each once, remote
   addresses, flows per plane, sender timestamps, ACKs echoing a timestamp that was sent on
   their path and covering, with the waiting flows their repeats cover, exactly the FSNs
   sent); RoCEv2 frames decode as InfiniBand BTH
   (WRITE First/Middle/Last and ACKs, with the segment counts of the message); nothing is
   flagged malformed.
3. A lossy `metaroce-4-plane --pcap` run (SENDs of a ring all-reduce at 2% loss): the
   documented files appear, retransmissions decode with RETX and ACKREQ, nothing malformed;
   a bad --pcap prefix is refused with one line and a non-zero exit.
4. The mCRC trailer (spec 4.1, preference metaroce.mcrc): hand-made packets with a trailer
   computed here decode as without it and verify as good; a flipped bit in the header, the
   payload or the trailer makes it bad (checksum expert), and a datagram too short for a
   trailer is truncated.

Usage: test/pcap/check-dissector.py BUILD_DIR   (needs tshark; scripts/install-deps.sh)
"""
import collections
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LUA = ROOT / "contrib" / "metaroce" / "tools" / "wireshark" / "metaroce.lua"
ACK_DELAY_NS = 2000  # the NIC's default AckDelay
MALFORMED_GROUP = str(0x07000000)  # expert.group.MALFORMED as tshark prints it
UNDECODED_GROUP = str(0x05000000)  # where a Lua error in the dissector lands
ERROR_SEVERITY = str(0x00800000)
FIELDS = ["version", "opcode", "flags", "flags.first", "flags.last", "flags.retx",
          "flags.ackreq", "flags.ece", "flags.nosack", "flags.reserved", "flow", "conn", "fsn", "ack_floor",
          "cum_fsn", "rate_hint", "stream", "data.reserved", "msn", "msg_len", "offset",
          "payload_len", "recv_index", "timestamp", "remote_addr", "rkey", "write.reserved",
          "echo_ts", "ce_count", "new_count", "credit", "sack", "sack.count", "sack.fsns",
          "repeat.flow", "repeat.sack", "repeat.cum_fsn", "syndrome", "payload"]
EXPERTS = ["truncated", "bad_version", "bad_opcode", "bad_flags", "reserved_nonzero",
           "bad_length", "bad_placement", "bad_repeat", "bad_syndrome", "sender_rule", "trimmed",
           "retransmission", "nak"]
FAILURES = []


def check(ok, message):
    if not ok:
        FAILURES.append(message)
    return ok


def tshark(pcap, extra_fields=(), options=()):
    """One dict per frame: every MetaRoCE field and expert, plus `extra_fields`."""
    names = (["frame.number", "frame.time_epoch", "ip.src", "ip.dsfield.dscp", "udp.dstport",
              "udp.length", "_ws.malformed", "_ws.expert.group", "_ws.expert.severity"] +
             ["metaroce." + f for f in FIELDS] +
             ["metaroce." + x for x in EXPERTS] + list(extra_fields))
    cmd = ["tshark", "-n", "-X", f"lua_script:{LUA}", *options, "-r", str(pcap), "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;"]
    for n in names:
        cmd += ["-e", n]
    run = subprocess.run(cmd, capture_output=True, text=True)
    errors = [line for line in run.stderr.splitlines() if "Running as user" not in line]
    if run.returncode != 0 or errors:
        sys.exit(f"tshark failed on {pcap}:\n" + "\n".join(errors))
    rows = []
    for line in run.stdout.splitlines():
        rows.append(dict(zip(names, line.split("\t"))))
    return rows


def sack_set(text):
    """The FSNs of the dissector's "12-14,17" (no wrap inside a range in these short runs)."""
    psns = set()
    for item in filter(None, text.split(",")):
        low, _, high = item.partition("-")
        psns.update(range(int(low), int(high or low) + 1))
    return psns


def brief(row):
    """A frame for a failure message: its number and the MetaRoCE fields it has."""
    fields = {k[9:]: v for k, v in row.items() if k.startswith("metaroce.") and v}
    return f"frame {row['frame.number']} {fields}"


def num(row, field):
    """The field's value; -1 when it is missing (a check then reports the frame)."""
    text = row["metaroce." + field]
    return int(text, 0) if text else -1


def ns(row):
    sec, _, frac = row["frame.time_epoch"].partition(".")
    return int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])


# --- 1. hand-made packets -------------------------------------------------------------------

def ipv4_udp(payload, udp_length=None, dscp=0, ip_payload=None):
    """PPP (as ns-3's PppHeader writes it: the 2-byte protocol) | IPv4 | UDP 4792 | payload."""
    udp = struct.pack(">HHHH", 50000, 4792, udp_length or 8 + len(payload), 0) + payload
    if ip_payload is not None:
        udp = udp[:ip_payload]
    header = struct.pack(">BBHHHBBH4s4s", 0x45, dscp << 2, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                         bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    words = struct.unpack(">10H", header)
    total = sum(words)
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    header = header[:10] + struct.pack(">H", ~total & 0xFFFF) + header[12:]
    return b"\x00\x21" + header + udp


def write_pcap(path, frames):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 9))  # DLT_PPP
        for i, frame in enumerate(frames):
            out.write(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)


def common(op, flags, path, conn, a, b, version=1):
    return struct.pack(">BBHIII", version << 4 | op, flags, path, conn, a, b)


def data(op, flags, psn=7, length=8192, offset=0, payload=4096, recv=0, res16=0, res32=0,
         extra=0):
    body = common(op, flags, 3, 0x01020304, psn, 5) + struct.pack(
        ">HHIIIIIQ", 9, res16, 11, length, offset, payload, recv, 123456789012)
    if op == 1:
        body += struct.pack(">QII", 0x1122334455667788, 0xCAFE, res32)
    return body + bytes(range(256)) * (payload // 256) + bytes(payload % 256 + extra)


def ack(flags=0, cum=4294967290, bits=(0, 8, 9, 10, 255), ce=0, credit=0, extra=0, repeats=()):
    sack = bytearray(32)
    for i in bits:
        sack[i // 8] |= 1 << (i % 8)  # spec 5.3: byte 32 + i/8, bit i%8 from the LSB
    if flags & 0x20:
        sack = b""  # NOSACK: the (empty) SACK is left out, repeats follow the credit
    # spec 5.3: each repeat is path, 16 SACK bits, cumulative FSN, after the SACK
    tail = b"".join(struct.pack(">HHI", path, bits16, rcum) for path, bits16, rcum in repeats)
    return (common(3, flags, 6, 77, cum, 25000) +
            struct.pack(">QHHI", 987654321, ce, 4, credit) + bytes(sack) + tail + bytes(extra))


def probe(flags=0x08):
    return common(4, flags, 2, 88, 41, 40) + struct.pack(">Q", 55555)


def nak(flags=0, syndrome=1):
    return common(5, flags, 0, 99, 12 << 16 | syndrome, 31)


WRITE_FIELDS = {"version": 1, "opcode": 1, "flags": 0x0B, "flags.first": 1, "flags.last": 1,
                "flags.ackreq": 1, "flags.retx": 0, "flow": 3, "conn": 0x01020304, "fsn": 7,
                "ack_floor": 5, "stream": 9, "data.reserved": 0, "msn": 11, "msg_len": 8192,
                "offset": 0, "payload_len": 4096, "recv_index": 0, "timestamp": 123456789012,
                "remote_addr": 0x1122334455667788, "rkey": 0xCAFE, "write.reserved": 0}
CASES = [
    # (name, UDP payload or a full frame, expected fields, expected experts)
    ("WRITE", data(1, 0x01 | 0x02 | 0x08, length=4096), dict(WRITE_FIELDS, msg_len=4096),
     set()),
    ("SEND", data(2, 0x02 | 0x04 | 0x08, offset=4096, recv=17),
     {"opcode": 2, "flags.last": 1, "flags.retx": 1, "offset": 4096, "recv_index": 17,
      "msn": 11, "timestamp": 123456789012}, {"retransmission"}),
    ("ACK", ack(), {"opcode": 3, "flow": 6, "conn": 77, "cum_fsn": 4294967290,
                    "rate_hint": 25000, "echo_ts": 987654321, "ce_count": 0, "new_count": 4,
                    "credit": 0, "sack.count": 5}, set()),
    ("ACK+ECE", ack(flags=0x10, ce=3, bits=()), {"flags.ece": 1, "ce_count": 3,
                                                 "sack.count": 0}, set()),
    ("PROBE", probe(), {"opcode": 4, "flow": 2, "conn": 88, "fsn": 41, "ack_floor": 40,
                        "timestamp": 55555, "flags.ackreq": 1}, set()),
    ("NAK", nak(), {"opcode": 5, "conn": 99, "stream": 12, "syndrome": 1, "msn": 31}, {"nak"}),
    ("short", common(1, 1, 0, 0, 0, 0)[:10], {}, {"truncated"}),
    ("version 2", common(1, 0, 0, 0, 0, 0, version=2) + bytes(48), {"version": 2},
     {"bad_version"}),
    ("opcode 7", common(7, 0, 0, 0, 0, 0) + bytes(48), {"version": 1}, {"bad_opcode"}),
    ("opcode 0", common(0, 0, 0, 0, 0, 0), {}, {"bad_opcode"}),
    ("WRITE flag 0x20", data(1, 0x20 | 0x01, length=8192), {}, {"bad_flags"}),
    ("ACK with FIRST", ack(flags=0x01), {}, {"bad_flags"}),
    ("NAK with a flag", nak(flags=0x08), {}, {"bad_flags", "nak"}),
    ("PROBE with LAST", probe(flags=0x0A), {}, {"bad_flags"}),
    ("WRITE header cut", data(1, 0x01, length=8192)[:40], {}, {"truncated"}),
    ("DATA reserved u16", data(2, 0x01, res16=1), {"data.reserved": 1}, {"reserved_nonzero"}),
    ("WRITE reserved u32", data(1, 0x01, res32=2), {"write.reserved": 2}, {"reserved_nonzero"}),
    ("WRITE receive index", data(1, 0x01, recv=3), {}, {"reserved_nonzero"}),
    ("ACK credit", ack(credit=70000), {"credit": 70000}, set()),
    ("ACK too long", ack(extra=4), {}, {"bad_length"}),
    ("ACK repeat", ack(repeats=[(7, 0x8001, 42)]),
     {"flow": 6, "cum_fsn": 4294967290, "repeat.flow": 7, "repeat.sack": 0x8001,
      "repeat.cum_fsn": 42}, set()),
    ("ACK repeats its own path", ack(repeats=[(6, 0, 1)]), {}, {"bad_repeat"}),
    ("ACK five repeats", ack(repeats=[(k, 0, 0) for k in range(7, 12)]), {}, {"bad_length"}),
    ("PROBE too long", probe() + bytes(1), {}, {"bad_length"}),
    ("DATA longer than payload", data(2, 0x01, extra=8), {}, {"bad_length"}),
    ("DATA shorter than payload", data(2, 0x01)[:-100], {}, {"truncated"}),
    ("FIRST not at 0", data(2, 0x01, offset=4096), {}, {"bad_placement"}),
    ("no FIRST at 0", data(2, 0x00), {}, {"bad_placement"}),
    ("LAST not at end", data(2, 0x01 | 0x02 | 0x08), {}, {"bad_placement"}),
    ("offset past end", data(2, 0x00, offset=8192), {}, {"bad_placement"}),
    ("payload 0", data(2, 0x01, payload=0), {}, {"bad_placement"}),
    ("NAK syndrome 3", nak(syndrome=3), {"syndrome": 3}, {"bad_syndrome"}),
    ("LAST without ACKREQ", data(2, 0x02, offset=4096), {}, {"sender_rule"}),
    ("ECE without CE", ack(flags=0x10), {}, {"sender_rule"}),
    ("ACK without SACK", ack(flags=0x20, credit=9000, repeats=[(7, 0x8001, 42)]),
     {"flags.nosack": 1, "cum_fsn": 4294967290, "credit": 9000, "repeat.flow": 7,
      "repeat.sack": 0x8001, "repeat.cum_fsn": 42}, set()),
    ("ACK without SACK cut", ack(flags=0x20)[:28], {}, {"truncated"}),
    ("ACK without SACK too long", ack(flags=0x20, extra=12), {}, {"bad_length"}),
    ("PROBE with NOSACK", probe(flags=0x28), {}, {"bad_flags"}),
    ("ACK flag 0x40", ack(flags=0x40), {}, {"bad_flags"}),
    ("tail marker: PROBE without ACKREQ", probe(flags=0), {"flags.ackreq": 0}, set()),
]
SACK_FSNS = "4294967291,3-5,250"  # cum 2^32-6: bits 0, 8-10, 255 -> cum+1, cum+9..11, cum+256


def check_handmade(tmp):
    frames = [ipv4_udp(p) for _, p, _, _ in CASES]
    # A switch's trimming (metaroce-switch.h): IPv4 cut after the header, UDP length kept, CS6.
    trimmed = data(1, 0x01, length=8192)
    frames.append(ipv4_udp(trimmed, dscp=48, ip_payload=8 + 64))
    path = tmp / "handmade.pcap"
    write_pcap(path, frames)
    rows = tshark(path)
    check(len(rows) == len(frames), f"handmade: {len(rows)} frames decoded of {len(frames)}")
    for (name, _, fields, experts), row in zip(CASES, rows):
        for field, value in fields.items():
            got = row["metaroce." + field]
            check(got != "" and int(got, 0) == value,
                  f"handmade {name}: metaroce.{field} = '{got}', not {value}")
        raised = {x for x in EXPERTS if row["metaroce." + x]}
        check(UNDECODED_GROUP not in row["_ws.expert.group"].split(";"),
              f"handmade {name}: Lua error in the dissector")
        check(raised == experts,
              f"handmade {name}: experts {sorted(raised)}, not {sorted(experts)}")
    check(rows[0]["metaroce.payload"] == (bytes(range(256)) * 16).hex(),
          "handmade WRITE: payload bytes")
    check(rows[2]["metaroce.sack.fsns"] == SACK_FSNS,
          f"handmade ACK: SACK FSNs '{rows[2]['metaroce.sack.fsns']}', not '{SACK_FSNS}'")
    check(rows[2]["metaroce.sack"] == "01070000" + "00" * 27 + "80",
          f"handmade ACK: SACK bytes {rows[2]['metaroce.sack']}")
    for name in ("WRITE", "ACK", "PROBE", "NAK"):
        row = rows[[c[0] for c in CASES].index(name)]
        check(MALFORMED_GROUP not in row["_ws.expert.group"].split(";"),
              f"handmade {name}: flagged malformed")
    check(rows[-1]["metaroce.trimmed"] == "1" and not rows[-1]["metaroce.truncated"],
          "handmade: a trimmed WRITE (CS6, UDP length kept) is not reported as trimmed")
    return len(frames)


def crc32c(data):
    """CRC-32C (Castagnoli), bitwise: a reference independent of the dissector's table."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def with_mcrc(packet):
    """The packet with its mCRC trailer (spec 4.1): CRC-32C of every byte, big-endian."""
    return packet + struct.pack(">I", crc32c(packet))


def flipped(packet, bit):
    out = bytearray(packet)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def check_handmade_mcrc(tmp):
    """With the preference metaroce.mcrc the last 4 bytes are the mCRC: decoded, verified (good
    or bad, a bad one in the checksum expert group, never malformed by itself), and the packet
    before it decodes as without the option."""
    check(crc32c(b"123456789") == 0xE3069283, "the reference CRC-32C's check value")
    write = data(1, 0x01 | 0x02 | 0x08, length=4096)
    cases = [  # (name, UDP payload, mCRC status, fields)
        ("WRITE", with_mcrc(write), "good", dict(WRITE_FIELDS, msg_len=4096)),
        ("ACK", with_mcrc(ack(repeats=[(7, 0x8001, 42)])), "good",
         {"opcode": 3, "sack.count": 5, "repeat.flow": 7}),
        ("ACK without SACK", with_mcrc(ack(flags=0x20)), "good", {"flags.nosack": 1}),
        ("PROBE", with_mcrc(probe()), "good", {"opcode": 4, "fsn": 41}),
        ("WRITE payload bit", flipped(with_mcrc(write), 8 * 100 + 3), "bad", {"opcode": 1}),
        ("WRITE header bit", flipped(with_mcrc(write), 8 * 8), "bad", {"fsn": 7 ^ (1 << 24)}),
        ("WRITE trailer bit", flipped(with_mcrc(write), 8 * (len(write) + 2)), "bad",
         {"payload_len": 4096}),
    ]
    path = tmp / "mcrc.pcap"
    write_pcap(path, [ipv4_udp(p) for _, p, _, _ in cases] + [ipv4_udp(b"\x13\x00\x00")])
    rows = tshark(path, ["metaroce.mcrc", "metaroce.mcrc.status", "metaroce.bad_mcrc"],
                  ["-o", "metaroce.mcrc:TRUE"])
    check(len(rows) == len(cases) + 1, f"mcrc: {len(rows)} frames decoded of {len(cases) + 1}")
    for (name, packet, status, fields), row in zip(cases, rows):
        check(row["metaroce.mcrc.status"] == status,
              f"mcrc {name}: status '{row['metaroce.mcrc.status']}', not {status}")
        check(int(row["metaroce.mcrc"] or "-1", 0) == struct.unpack(">I", packet[-4:])[0],
              f"mcrc {name}: trailer '{row['metaroce.mcrc']}'")
        check((row["metaroce.bad_mcrc"] != "") == (status == "bad"),
              f"mcrc {name}: bad_mcrc expert '{row['metaroce.bad_mcrc']}'")
        for field, value in fields.items():
            got = row["metaroce." + field]
            check(got != "" and int(got, 0) == value,
                  f"mcrc {name}: metaroce.{field} = '{got}', not {value}")
        check(UNDECODED_GROUP not in row["_ws.expert.group"].split(";"),
              f"mcrc {name}: Lua error in the dissector")
        if status == "good":
            check(MALFORMED_GROUP not in row["_ws.expert.group"].split(";"),
                  f"mcrc {name}: flagged malformed")
    check(rows[-1]["metaroce.truncated"] != "", "mcrc: a 3-byte datagram is not truncated")
    return len(rows)


# --- 2. metaroce-fabric captures --------------------------------------------------------------

MESSAGE = 65536
PLANES = 2


def run(args, env=None):
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r


def check_no_malformed(label, rows):
    bad = [r["frame.number"] for r in rows
           if r["_ws.malformed"] or MALFORMED_GROUP in r["_ws.expert.group"].split(";") or
           ERROR_SEVERITY in r["_ws.expert.severity"].split(";")]
    check(not bad, f"{label}: frames flagged malformed: {bad[:10]}")
    undecoded = [r["frame.number"] for r in rows
                 if r["udp.dstport"] == "4792" and r["metaroce.opcode"] == ""]
    check(not undecoded, f"{label}: UDP 4792 frames not decoded as MetaRoCE: {undecoded[:10]}")


def check_metaroce_host(label, plane_rows, host):
    """Host 0's files: its WRITE to host 1 (out) and the ACKs host 1 returns (in)."""
    sent = collections.defaultdict(dict)  # (conn, offset) -> row
    psns = collections.defaultdict(set)   # (conn, path) -> FSNs sent
    stamps = collections.defaultdict(set)  # (conn, path) -> timestamps sent
    last_sent = {}  # (conn, plane) -> timestamp of its latest WRITE so far
    paths = {}
    acks = []
    markers = []
    for plane, rows in plane_rows.items():
        check_no_malformed(f"{label} plane {plane}", rows)
        paths[plane] = set()
        host_ip = f"10.{plane}.0.{host + 1}"  # host h on plane p: 10.p.l.(i+1)
        for r in rows:
            if r["metaroce.opcode"] == "1" and r["ip.src"] == host_ip:
                conn, off, length = num(r, "conn"), num(r, "offset"), num(r, "payload_len")
                check((conn, off) not in sent, f"{label}: offset {off} sent twice without loss")
                sent[(conn, off)] = r
                key = (conn, num(r, "flow"))
                # A lone packet (its plane silent for the ACK delay before it) asks for its ACK,
                # as does each of the message's last PLANES packets (spec 4.2, A48).
                on = (conn, plane)
                lone = (on not in last_sent or
                        num(r, "timestamp") - last_sent[on] > ACK_DELAY_NS or
                        off // 4096 + PLANES >= MESSAGE // 4096)
                last_sent[on] = num(r, "timestamp")
                psns[key].add(num(r, "fsn"))
                stamps[key].add(num(r, "timestamp"))
                paths[plane].add(num(r, "flow"))
                check(num(r, "version") == 1 and num(r, "msg_len") == MESSAGE and
                      length == 4096 and off % 4096 == 0 and num(r, "msn") == 0 and
                      num(r, "stream") == 0 and num(r, "recv_index") == 0,
                      f"{label}: WRITE fields {brief(r)}")
                check(int(r["udp.length"]) == 8 + 64 + length and
                      len(r["metaroce.payload"]) == 2 * length and
                      num(r, "ack_floor") <= num(r, "fsn"),
                      f"{label}: UDP length, payload or ack floor {brief(r)}")
                check(num(r, "flags.first") == (off == 0) and
                      num(r, "flags.last") == (off + length == MESSAGE) and
                      num(r, "flags.ackreq") == lone and
                      num(r, "flags.retx") == 0, f"{label}: flags at offset {off}: {brief(r)}")
                check(num(r, "remote_addr") - off == 0 and num(r, "rkey") == 0,
                      f"{label}: remote address {r['metaroce.remote_addr']} at offset {off}")
                check(0 <= ns(r) - num(r, "timestamp") < 100_000,
                      f"{label}: timestamp {r['metaroce.timestamp']} at {ns(r)} ns")
            elif r["metaroce.opcode"] == "4" and r["ip.src"] == host_ip:
                # Tail markers behind the message's last packet and every other path's newest
                # one still in flight (spec 4.5): PROBEs in the data class (DSCP 0) and without
                # ACKREQ that take a FSN of their path and are acknowledged like data.
                key = (num(r, "conn"), num(r, "flow"))
                psns[key].add(num(r, "fsn"))
                stamps[key].add(num(r, "timestamp"))
                markers.append(r)
                check(int(r["ip.dsfield.dscp"], 0) == 0 and num(r, "flags.ackreq") == 0 and
                      not r.get("metaroce.sender_rule") and int(r["udp.length"]) == 8 + 24,
                      f"{label}: tail marker fields {brief(r)}")
            elif r["metaroce.opcode"] == "3" and r["ip.src"] != host_ip:
                acks.append(r)
    conns = {c for c, _ in sent}
    check(len(conns) == 1 and sorted(o for _, o in sent) == list(range(0, MESSAGE, 4096)),
          f"{label}: the message's offsets, each once: {sorted(sent)}")
    ordered = [paths[p] for p in sorted(paths)]
    check(all(ordered) and all(max(a) < min(b) for a, b in zip(ordered, ordered[1:])),
          f"{label}: each plane has its own paths: {ordered}")
    check(acks, f"{label}: no ACK decoded")
    marked = collections.Counter((num(r, "conn"), num(r, "flow")) for r in markers)
    check(markers and max(marked.values()) == 1 and len(marked) <= len(psns),
          f"{label}: one tail marker at most per path that sent data: {dict(marked)}")
    for r in markers:
        key = (num(r, "conn"), num(r, "flow"))
        data = psns[key] - {num(r, "fsn")}
        check(data and num(r, "fsn") == max(data) + 1,
              f"{label}: a tail marker right behind its path's last packet: {brief(r)}")
    final = {}
    for r in acks:
        key = (next(iter(conns)), num(r, "flow"))
        if not check(key in psns, f"{label}: ACK for a path that sent nothing: {brief(r)}"):
            continue
        check(num(r, "echo_ts") in stamps[key],
              f"{label}: ACK echoes an unsent timestamp: {brief(r)}")
        sacked = sack_set(r["metaroce.sack.fsns"])
        # Spec 5.3: an ACK leaves its SACK out exactly when it is empty (CompactAcks, default).
        nosack = num(r, "flags.nosack") == 1
        check(not r["metaroce.sack"] if nosack else num(r, "sack.count") > 0,
              f"{label}: an empty SACK on the wire, or a SACK left out: {brief(r)}")
        check(num(r, "ce_count") == 0 and num(r, "credit") == 0 and
              0 <= num(r, "new_count") <= 256 and (nosack or num(r, "sack.count") == len(sacked)) and
              num(r, "flags.ece") == 0 and 0 <= num(r, "rate_hint") <= 100_000 * PLANES,
              f"{label}: ACK fields {brief(r)}")
        check(num(r, "cum_fsn") <= max(psns[key]) + 1 and sacked <= psns[key],
              f"{label}: ACK covers FSNs never sent: {brief(r)}")
        final[key] = max(final.get(key, 0), num(r, "cum_fsn"))
        # The waiting flows an ACK covers, and earlier ACKs it repeats (spec 4.2).
        if r["metaroce.repeat.flow"]:
            for path, cum in zip(r["metaroce.repeat.flow"].split(";"),
                                 r["metaroce.repeat.cum_fsn"].split(";")):
                other = (key[0], int(path, 0))
                check(other in psns and int(cum, 0) <= max(psns[other]) + 1,
                      f"{label}: ACK repeat covers FSNs never sent: {brief(r)}")
                final[other] = max(final.get(other, 0), int(cum, 0))
    check(all(final.get(k) == max(v) + 1 for k, v in psns.items()),
          f"{label}: the last ACKs do not cover every FSN sent: {final} vs {dict(psns)}")
    return len(acks) + len(sent)


def check_rocev2_host(label, plane_rows, host):
    count = 0
    for plane, rows in plane_rows.items():
        host_ip = f"10.{plane}.0.{host + 1}"
        check_no_malformed(f"{label} plane {plane}", rows)
        ops = collections.Counter(r["infiniband.bth.opcode"] for r in rows
                                  if r["ip.src"] == host_ip and r["infiniband.bth.opcode"] != "17")
        acks = [r for r in rows if r["ip.src"] != host_ip and r["infiniband.bth.opcode"] == "17"]
        undecoded = [r["frame.number"] for r in rows if r["udp.dstport"] == "4791" and
                     r["infiniband.bth.opcode"] == ""]
        check(not undecoded, f"{label}: UDP 4791 frames not decoded as BTH: {undecoded[:10]}")
        # Each plane's QP writes MESSAGE / PLANES bytes: First, Middle x 6, Last of 4096 bytes.
        per_qp = MESSAGE // PLANES // 4096
        check(ops == {"6": 1, "7": per_qp - 2, "8": 1}, f"{label} plane {plane}: opcodes {ops}")
        check(acks and all(int(r["infiniband.bth.destqp"], 0) > 0 for r in acks),
              f"{label} plane {plane}: no ACKNOWLEDGE decoded")
        count += len(rows)
    return count


def check_fabric(tmp, build):
    prefix = tmp / "fabric"
    run([build / "examples" / "metaroce-fabric", "--hosts=2", f"--planes={PLANES}",
         "--hostsPerLeaf=2", "--spines=0", "--pattern=permutation", "--loss=0",
         "--transports=metaroce,rocev2", f"--messageBytes={MESSAGE}", f"--pcap={prefix}"])
    frames = 0
    for transport, checker, extra in (
            ("metaroce", check_metaroce_host, ()),
            ("rocev2", check_rocev2_host, ("infiniband.bth.opcode", "infiniband.bth.destqp"))):
        files = {p: pathlib.Path(f"{prefix}-{transport}-loss0-host0-plane{p}.pcap")
                 for p in range(PLANES)}
        for p, f in files.items():
            check(f.exists(), f"fabric: {f.name} missing")
        rows = {p: tshark(f, extra) for p, f in files.items() if f.exists()}
        frames += checker(f"fabric {transport}", rows, 0)
    return frames


# --- 3. an experiment with loss, and option checks ----------------------------------------------

def check_experiment(tmp, build):
    example = build / "examples" / "metaroce-4-plane"
    prefix = tmp / "exp"
    run([example, "--hosts=4", "--hostsPerLeaf=2", "--spines=1", "--messageBytes=262144",
         "--workloads=allreduce-ring", "--transports=metaroce", "--losses=0.02",
         f"--pcap={prefix}", "--pcapSwitches=true"])
    run_prefix = "exp-allreduce-ring-metaroce-loss2"
    names = {f"{run_prefix}-host{h}-plane{p}.pcap" for h in range(4) for p in range(4)}
    # Per plane: two leaves (two hosts and one spine each), one spine (two leaves).
    names |= {f"{run_prefix}-leaf{i}-plane{p}-port{k}.pcap"
              for i in range(2) for p in range(4) for k in range(3)}
    names |= {f"{run_prefix}-spine0-plane{p}-port{k}.pcap" for p in range(4) for k in range(2)}
    written = {f.name for f in tmp.glob("exp-*")}
    check(written == names, f"experiment: files {sorted(written ^ names)} differ from the help")
    check_no_malformed("experiment spine port",
                       tshark(tmp / f"{run_prefix}-spine0-plane1-port0.pcap"))
    rows = tshark(tmp / f"{run_prefix}-host0-plane0.pcap")
    check_no_malformed("experiment", rows)
    ops = collections.Counter(r["metaroce.opcode"] for r in rows)
    retx = [r for r in rows if r["metaroce.flags.retx"] == "1"]
    check(ops["2"] > 0 and ops["3"] > 0, f"experiment: SENDs and ACKs expected, got {ops}")
    check(retx and all(r["metaroce.flags.ackreq"] == "1" and r["metaroce.retransmission"] == "1"
                       for r in retx), "experiment: retransmissions not decoded with RETX|ACKREQ")
    for bad in (f"--pcap={tmp}/no-such-dir/x", f"--pcap={tmp}/", "--pcapSwitches=true"):
        r = subprocess.run([example, "--hosts=2", bad], capture_output=True, text=True)
        check(r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and
              "--pcap" in r.stderr and not list(tmp.glob("no-such-dir*")),
              f"experiment {bad}: exit {r.returncode}, stderr {r.stderr!r}")
    return len(rows)


def check_install(tmp, pcap):
    """scripts/install-dissector.sh into a scratch home: tshark then decodes without -X."""
    env = dict(os.environ, HOME=str(tmp / "home"))
    script = ROOT / "scripts" / "install-dissector.sh"
    run([script], env)
    r = subprocess.run(["tshark", "-n", "-r", str(pcap), "-T", "fields", "-e", "metaroce.opcode"],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 0 and "1" in r.stdout.split(),
          f"install-dissector.sh: the installed plugin does not decode {pcap}: {r.stderr}")
    subprocess.run([script, "--uninstall"], check=True, capture_output=True, env=env)
    check(not list((tmp / "home").rglob("metaroce.lua")), "install-dissector.sh --uninstall")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = pathlib.Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory(prefix="metaroce-pcap-") as d:
        tmp = pathlib.Path(d)
        counts = (check_handmade(tmp) + check_handmade_mcrc(tmp), check_fabric(tmp, build),
                  check_experiment(tmp, build))
        check_install(tmp, tmp / "fabric-metaroce-loss0-host0-plane0.pcap")
    for failure in FAILURES[:40]:
        print("FAIL:", failure)
    if FAILURES:
        sys.exit(f"check-dissector: {len(FAILURES)} failures")
    print(f"check-dissector: {counts[0]} hand-made packets, {counts[1]} frames of metaroce-fabric "
          f"captures, {counts[2]} of a lossy experiment: decoded as sent, none malformed")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    main()
