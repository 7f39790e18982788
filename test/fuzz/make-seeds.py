#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (test/fuzz/corpus/<target>/): a few valid inputs per
target, built from doc/spec.md's layouts (sections 5 and 10.2), so that libFuzzer starts from
packets and files the parsers accept. Run again after a wire-format change; the corpora are
committed, small, and replayed by scripts/test.sh; the regress-* inputs (each a crash found and
fixed) are left in place."""
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
ROOT = HERE.parent.parent


def common(opcode, flags, path, conn, a, b):
    return struct.pack(">BBHIII", 0x10 | opcode, flags, path, conn, a, b)


def mr_packets():
    """(name, header bytes, payload length) for each MetaRoCE opcode (spec 5.2-5.5)."""
    write = (common(1, 0x01 | 0x02 | 0x08, 0, 20, 0, 0) +
             struct.pack(">HHIIIIIQQII", 0, 0, 0, 100, 0, 100, 0, 1000, 0x10000, 1, 0))
    send = (common(2, 0x01 | 0x02 | 0x08, 1, 20, 3, 2) +
            struct.pack(">HHIIIIIQ", 1, 0, 4, 512, 0, 512, 7, 5000))
    ack = (common(3, 0x10, 1, 10, 5, 800) + struct.pack(">QHHI", 5000, 1, 2, 0) +
           bytes([0x05] + [0] * 30 + [0x80]))
    # spec 4.3: repeats of two other paths' ACKs (path, 16 SACK bits, cumulative PSN)
    ack_repeats = ack + struct.pack(">HHIHHI", 0, 0x0001, 4, 7, 0, 2)
    probe = common(4, 0x08, 2, 20, 9, 9) + struct.pack(">Q", 777)
    nak = struct.pack(">BBHIHHI", 0x15, 0, 0, 10, 1, 1, 4)
    return [("write", write, 100), ("send", send, 512), ("ack", ack, 0),
            ("ack-repeats", ack_repeats, 0), ("probe", probe, 0), ("nak", nak, 0)]


def ib_packets():
    """RoCEv2 packets (spec 10.2): BTH, extension, payload, pad, ICRC."""
    def bth(op, pad, qpn, ackreq, psn):
        return struct.pack(">BBHI", op, pad << 4, 0xFFFF, qpn) + struct.pack(
            ">I", (0x80000000 if ackreq else 0) | psn)
    reth = struct.pack(">QII", 0x10000, 1, 100)
    return [
        ("write-only", bth(0x0A, 0, 3, True, 0) + reth + bytes(100) + bytes(4)),
        ("send-first", bth(0x00, 0, 3, False, 1) + bytes(256) + bytes(4)),
        ("send-last", bth(0x02, 3, 3, True, 2) + bytes(9) + bytes(3) + bytes(4)),
        ("ack", bth(0x11, 0, 2, False, 5) + struct.pack(">I", 0x1F000003) + bytes(4)),
        ("nak", bth(0x11, 0, 2, False, 5) + struct.pack(">I", 0x60000003) + bytes(4)),
        ("cnp", bth(0x81, 0, 2, False, 0) + bytes(16) + bytes(4)),
    ]


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    # The seeds are rewritten; the inputs that found bugs (regress-*) are kept.
    for old in CORPUS.glob("*/*"):
        if not old.name.startswith("regress-"):
            old.unlink()
    for name, header, payload in mr_packets():
        # Parser targets: two bytes (extra virtual bytes, bytes cut), then the datagram.
        write("mr-parse", name, bytes([0, 0]) + header + bytes(payload))
        write("mr-parse", name + "-virtual", bytes([min(payload, 255), 0]) + header)
        write("transport-header", "mr-" + name, bytes([0]) + header + bytes(payload))
    for name, packet in ib_packets():
        write("rocev2-parse", name, bytes([0, 0]) + packet)
        write("transport-header", "ib-" + name, bytes([1]) + packet)
    for mrs in ["retx-exact-missing", "send-before-earlier", "malformed-header",
                "plane-down-requeue", "rocev2-go-back-n", "ack-coalescing", "ack-repeat-built"]:
        src = ROOT / "test" / "compliance" / "scenarios" / (mrs + ".mrs")
        write("scenario", mrs, src.read_bytes())
    write("flow-cdf", "ai-mixed",
          (ROOT / "contrib" / "metaroce" / "examples" / "flow-sizes-ai-mixed.cdf").read_bytes())
    write("flow-cdf", "two-points", b"# comment\n100 0.5\n1000 1\n")
    for i, text in enumerate([b"Mtu=1500;DataRate=10Gbps;InterframeGap=10ns",
                              b"ErrorRate=0.01;ErrorUnit=ERROR_UNIT_PACKET",
                              b"MaxSize=100p", b"Delay=2us",
                              b"Min=1;Max=2.5;Stream=3"]):
        write("attributes", "type%d" % i, bytes([i]) + text)
    # Engine target: first byte 0 = MetaRoCE, 1 = RoCEv2, 2 = MetaRoCE (bit 1 is unused),
    # 0x0c = MetaRoCE with receiver admission (credit 2 packets), 0x0e = the same, 0x42 = two
    # copies of every retransmission (Setup in fuzz-engine.cc); then operations:
    # post WRITE (0), SEND (1), RECV (2), pump (3), inject (5), replay (6), port (7), timers (8),
    # replay with one field at an edge value (250-255).
    write_ok = bytes([0, 0, 0x28, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00])
    send_ok = bytes([1, 0, 0x28, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00])
    recv_ok = bytes([2, 0, 0x28, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
    pump = bytes([3, 8] + [0] * 9)
    lossy = bytes([3, 8, 1, 0, 2, 0x51, 4, 0, 3, 0x22, 0])
    for t in (0, 1, 0x02, 0x0c, 0x0e, 0x42):
        write("engine", "write-%d" % t, bytes([t]) + write_ok + pump + bytes([8]) + pump)
        write("engine", "send-%d" % t, bytes([t]) + recv_ok + send_ok + pump + pump)
        write("engine", "lossy-%d" % t, bytes([t]) + write_ok + write_ok + lossy + bytes([8]) +
              lossy + bytes([6, 0x08, 2, 5, 0xff]) + pump)
        write("engine", "port-%d" % t, bytes([t]) + write_ok + pump + bytes([7, 0x00, 8]) +
              pump + bytes([7, 0x10]) + pump)
        # Op 250: a lost packet replayed with one header field at an edge value (the message
        # length at its maximum, flags made consistent), then the rest delivered.
        write("engine", "field-%d" % t, bytes([t]) + write_ok + bytes([3, 0, 1]) +
              bytes([250, 0, 0x85, 1, 0]) + bytes([250, 0, 0x01, 5, 3]) + pump + bytes([8]) + pump)


if __name__ == "__main__":
    main()
