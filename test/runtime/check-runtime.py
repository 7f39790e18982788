#!/usr/bin/env python3
"""The UDP runtime and metaroce-perf on this machine's loopback (doc/runtime.md).

1. Bad options: one line naming the option and the value, exit status 2.
2. Two-process transfers of a few MiB per transport, with and without 1% injected loss (and
   a 2-plane MetaRoCE run with loss, reordering and duplication), WRITE and SEND bandwidth
   and both latency tests: both processes exit 0, the server verified every byte.
3. The verification has teeth: a server that flips one received byte makes both exit 1.
4. Captures: `--pcap` files decoded by tshark with the project's dissector: every UDP 4792
   datagram decodes as MetaRoCE with nothing flagged malformed, the WRITE segments cover
   every message exactly, retransmissions carry RETX, the rkey is the one the server drew
   (the client's banner shows it); a RoCEv2
   capture decodes as InfiniBand BTH. A capture that cannot be written whole (the file size
   limit) fails the run in one line naming the file, and leaves no partial file behind.
   With --mcrc=on and injected bit errors (--corrupt) a transfer is verified, the corrupted
   datagrams are refused as bad-crc, and the dissector marks each trailer good or bad.
5. Off loopback: two network namespaces made here, joined by a veth pair with a 1500-byte MTU,
   one process in each, a MetaRoCE transfer at 1% injected loss verified (skipped, saying so,
   where namespaces cannot be made: not root, no iproute2).

Usage: test/runtime/check-runtime.py BUILD_DIR
"""
import os
import pathlib
import resource
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LUA = ROOT / "contrib" / "metaroce" / "tools" / "wireshark" / "metaroce.lua"
MALFORMED_GROUP = str(0x07000000)
FAILURES = []
# Addresses and ports of our own, so that a concurrent run elsewhere on the host (another
# clone's tests) does not collide: 127.<a>.<p+1>.{1,2} for plane p, a TCP port near them.
TAG = 100 + os.getpid() % 100
TCP_PORT = 20000 + os.getpid() % 20000


def check(ok, message):
    if not ok:
        FAILURES.append(message)
        print("FAIL", message)
    return ok


def addrs(server, planes, offset):
    return ",".join(f"127.{TAG + offset}.{p + 1}.{1 if server else 2}" for p in range(planes))


def pair(perf, args, server_args=(), planes=1, offset=0, timeout=60):
    """Runs a server and a client; returns (server, client) CompletedProcess-like tuples."""
    port = str(TCP_PORT + offset)
    server = subprocess.Popen([perf, "-p", port, f"--udp-addrs={addrs(True, planes, offset)}",
                               "--timeout=30", *server_args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client = subprocess.run([perf, "-p", port, f"--udp-addrs={addrs(False, planes, offset)}",
                             f"--planes={planes}", "--timeout=30", *args, "127.0.0.1"],
                            capture_output=True, text=True, timeout=timeout)
    out, err = server.communicate(timeout=timeout)
    return (server.returncode, out, err), (client.returncode, client.stdout, client.stderr)


def check_options(perf):
    for args, words in [(["--size=abc"], ["--size=abc", "integer"]),
                        (["--transport=ib"], ["--transport=ib", "metaroce or rocev2"]),
                        (["--loss=150"], ["--loss=150", "[0, 100]"]),
                        (["--mcrc=yes"], ["--mcrc=yes", "on or off"]),
                        (["--corrupt=-1"], ["--corrupt=-1", "[0, 100]"]),
                        (["--transport=rocev2", "--planes=2"], ["--planes=2", "one port"]),
                        (["--bogus"], ["--bogus", "unknown option"])]:
        r = subprocess.run([perf, *args], capture_output=True, text=True, timeout=10)
        line = r.stderr.strip()
        check(r.returncode == 2 and "\n" not in line and all(w in line for w in words),
              f"options {args}: exit {r.returncode}, stderr {line!r}")


def check_transfers(perf):
    runs = []
    for transport in ["metaroce", "rocev2"]:
        for loss in ["0", "1"]:
            runs.append([f"--transport={transport}", f"--loss={loss}", "-s", "1M", "-n", "4"])
        runs.append([f"--transport={transport}", "--test=send_bw", "--loss=1", "-s", "256K",
                     "-n", "16"])
    runs.append(["--test=send_lat", "-s", "4096", "-n", "200", "--loss=1"])
    runs.append(["--test=write_lat", "-s", "64", "-n", "200", "--transport=rocev2"])
    for i, args in enumerate(runs):
        t0 = time.time()
        (src, sout, serr), (crc, cout, cerr) = pair(perf, args, offset=i % 3)
        label = " ".join(args)
        check(crc == 0 and "data verified by the server: OK" in cout,
              f"transfer {label}: client exit {crc}: {cerr.strip()}")
        check(src == 0 and "all bytes verified" in sout,
              f"transfer {label}: server exit {src}: {serr.strip()}")
        print(f"ok   {label} ({time.time() - t0:.1f} s)")
    args = ["--planes=2", "--loss=1", "--reorder=1", "--duplicate=1", "-s", "1M", "-n", "4"]
    (src, _, serr), (crc, cout, cerr) = pair(perf, args, planes=2, offset=3)
    check(crc == 0 and src == 0 and "OK" in cout, f"2 planes, impaired: {cerr} {serr}")
    print("ok   2 planes with loss, reordering and duplication")


def check_mismatch(perf):
    for test in ["write_bw", "send_bw"]:
        (src, _, serr), (crc, _, cerr) = pair(perf, [f"--test={test}", "-s", "64K", "-n", "8"],
                                              server_args=["--corrupt-for-test"], offset=4)
        check(crc == 1 and src == 1 and "data mismatch" in cerr and "data mismatch" in serr,
              f"corrupted {test}: client {crc} {cerr!r}, server {src} {serr!r}")
    print("ok   a corrupted byte fails both processes")


def tshark(pcap, fields, options=()):
    cmd = ["tshark", "-n", "-X", f"lua_script:{LUA}", *options, "-r", str(pcap), "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]


def server_rkey(client_stdout):
    """The server's rkey, from the client's "remote address: ... RKey 0x..." banner line."""
    for line in client_stdout.splitlines():
        words = line.split()
        if line.startswith(" remote address:") and "RKey" in words:
            return int(words[words.index("RKey") + 1], 16)
    check(False, "no remote address line in the client's banner")
    return -1


def check_capture(perf, tmp):
    size, iters = 20000, 20
    pcap = tmp / "metaroce.pcap"
    (src, _, _), (crc, cout, _) = pair(perf, ["--loss=2", "-s", str(size), "-n", str(iters),
                                              f"--pcap={pcap}"], offset=5)
    check(crc == 0 and src == 0, "captured run failed")
    fields = ["udp.dstport", "_ws.malformed", "_ws.expert.group", "metaroce.opcode",
              "metaroce.flags.retx", "metaroce.msn", "metaroce.offset", "metaroce.payload_len",
              "metaroce.msg_len", "metaroce.rkey"]
    rows = [r for r in tshark(pcap, fields) if r["udp.dstport"] == "4792"]
    check(len(rows) > 0, "no MetaRoCE frame in the capture")
    bad = [r for r in rows if r["_ws.malformed"] or MALFORMED_GROUP in r["_ws.expert.group"]
           or not r["metaroce.opcode"]]
    check(not bad, f"{len(bad)} frames undecoded or malformed, e.g. {bad[:1]}")
    writes = [r for r in rows if r["metaroce.opcode"] == "1"]
    segments = {(int(r["metaroce.msn"]), int(r["metaroce.offset"]), int(r["metaroce.payload_len"]))
                for r in writes}
    covered = {}
    for msn, offset, length in segments:
        covered[msn] = covered.get(msn, 0) + length
    check(covered == {m: size for m in range(iters)}, f"WRITE segments cover {covered}")
    rkey = server_rkey(cout)
    check(all(r["metaroce.msg_len"] == str(size) and int(r["metaroce.rkey"], 0) == rkey
              for r in writes), f"a WRITE with another message length or rkey than {rkey:#x}")
    check(any(r["metaroce.flags.retx"] in ("1", "True") for r in writes),
          "no retransmission (RETX) in a capture at 2% loss")
    check(any(r["metaroce.opcode"] == "3" for r in rows), "no ACK in the capture")
    pcap = tmp / "rocev2.pcap"
    pair(perf, ["--transport=rocev2", "-s", "8192", "-n", "4", f"--pcap={pcap}"], offset=5)
    ib = tshark(pcap, ["udp.dstport", "infiniband.bth.opcode"])
    check(ib and all(r["infiniband.bth.opcode"] for r in ib if r["udp.dstport"] == "4791"),
          "RoCEv2 capture does not decode as InfiniBand")
    print(f"ok   captures decode ({len(rows)} MetaRoCE frames, {len(ib)} RoCEv2)")


def check_mcrc(perf, tmp):
    """The mCRC (doc/spec.md 4.1): with --mcrc=on and injected bit errors a transfer is still
    verified byte for byte, the engines refuse the corrupted datagrams as bad-crc, and the
    dissector (preference metaroce.mcrc) shows every trailer, good where the bytes are intact and
    flagged bad where a bit was flipped."""
    pcap = tmp / "mcrc.pcap"
    (src, sout, serr), (crc, cout, cerr) = pair(
        perf, ["--mcrc=on", "--corrupt=3", "-s", "20000", "-n", "40", "--verbose",
               f"--pcap={pcap}"], offset=7)
    check(crc == 0 and "data verified by the server: OK" in cout,
          f"mCRC transfer with bit errors: client exit {crc}: {cerr.strip()}")
    check(src == 0 and "all bytes verified" in sout,
          f"mCRC transfer with bit errors: server exit {src}: {serr.strip()}")
    check("bad-crc" in sout + cout, "no bad-crc refusal in either end's counters")
    fields = ["udp.dstport", "_ws.malformed", "_ws.expert.group", "metaroce.opcode",
              "metaroce.mcrc", "metaroce.mcrc.status"]
    cmd_pref = ["-o", "metaroce.mcrc:TRUE"]
    rows = [r for r in tshark(pcap, fields, cmd_pref) if r["udp.dstport"] == "4792"]
    good = [r for r in rows if r["metaroce.mcrc.status"] == "good"]
    bad = [r for r in rows if r["metaroce.mcrc.status"] == "bad"]
    check(rows and len(good) + len(bad) == len(rows), "a MetaRoCE frame without an mCRC status")
    check(bad, "no frame flagged with a bad mCRC in a capture with 3% bit errors")
    check(all(r["metaroce.opcode"] and not r["_ws.malformed"] and
              MALFORMED_GROUP not in r["_ws.expert.group"] for r in good),
          "a frame with a good mCRC does not decode cleanly")
    print(f"ok   mCRC: verified under bit errors ({len(good)} good, {len(bad)} bad trailers)")


def check_capture_errors(perf, tmp):
    """A capture is written under a temporary name and renamed when whole; a write error (here
    the file size limit, RLIMIT_FSIZE) fails the run in one line naming the file, and leaves
    neither the file nor its temporary behind."""
    pcap = tmp / "limited.pcap"

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))

    port = str(TCP_PORT + 6)
    server = subprocess.Popen([perf, "-p", port, f"--udp-addrs={addrs(True, 1, 6)}",
                               "--timeout=30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    client = subprocess.run([perf, "-p", port, f"--udp-addrs={addrs(False, 1, 6)}", "--timeout=30",
                             "-s", "64K", "-n", "16", f"--pcap={pcap}", "127.0.0.1"],
                            capture_output=True, text=True, timeout=60, preexec_fn=limit)
    server.communicate(timeout=60)
    lines = client.stderr.strip().splitlines()
    check(client.returncode == 1 and len(lines) == 1 and str(pcap) in lines[0] and
          "File too large" in lines[0], f"capture past the size limit: exit {client.returncode}, "
          f"stderr {client.stderr!r}")
    left = sorted(p.name for p in tmp.iterdir() if p.name.startswith("limited.pcap"))
    check(not left, f"a failed capture left {left}")
    pcap = tmp / "whole.pcap"
    pair(perf, ["-s", "8192", "-n", "4", f"--pcap={pcap}"], offset=6)
    left = sorted(p.name for p in tmp.iterdir() if p.name.startswith("whole.pcap"))
    check(left == ["whole.pcap"], f"a whole capture: {left}, expected whole.pcap alone")
    print("ok   a capture write error fails the run in one line; a whole capture is renamed")


def netns(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def check_namespaces(perf):
    a, b = f"mrperf-a{TAG}", f"mrperf-b{TAG}"
    va, vb = f"mrva{TAG}", f"mrvb{TAG}"
    made = netns("netns", "add", a).returncode == 0
    if not made:
        print("skip network namespaces: `ip netns add` refused (needs root and iproute2)")
        return
    try:
        steps = [["netns", "add", b], ["link", "add", va, "type", "veth", "peer", "name", vb],
                 ["link", "set", va, "netns", a], ["link", "set", vb, "netns", b],
                 ["-n", a, "addr", "add", "10.77.0.1/24", "dev", va],
                 ["-n", b, "addr", "add", "10.77.0.2/24", "dev", vb],
                 ["-n", a, "link", "set", va, "up"], ["-n", b, "link", "set", vb, "up"],
                 ["-n", a, "link", "set", "lo", "up"], ["-n", b, "link", "set", "lo", "up"]]
        for step in steps:
            r = netns(*step)
            if not check(r.returncode == 0, f"ip {' '.join(step)}: {r.stderr.strip()}"):
                return
        port = str(TCP_PORT + 50)
        server = subprocess.Popen(["ip", "netns", "exec", a, perf, "-p", port, "--bind=10.77.0.1",
                                   "--udp-addrs=10.77.0.1", "--mtu=1024", "--timeout=30"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        client = subprocess.run(["ip", "netns", "exec", b, perf, "-p", port,
                                 "--udp-addrs=10.77.0.2", "--mtu=1024", "--timeout=30",
                                 "-s", "256K", "-n", "32", "--loss=1", "10.77.0.1"],
                                capture_output=True, text=True, timeout=90)
        sout, serr = server.communicate(timeout=90)
        check(client.returncode == 0 and "data verified by the server: OK" in client.stdout,
              f"veth transfer, client: {client.stderr.strip()}")
        check(server.returncode == 0 and "all bytes verified" in sout,
              f"veth transfer, server: {serr.strip()}")
        print("ok   two namespaces over veth (MTU 1500, 1% loss): bytes verified")
    finally:
        for ns in (a, b):
            netns("netns", "del", ns)


def main():
    perf = str(pathlib.Path(sys.argv[1]).resolve() / "metaroce-perf")
    t0 = time.time()
    check_options(perf)
    check_transfers(perf)
    check_mismatch(perf)
    with tempfile.TemporaryDirectory() as tmp:
        check_capture(perf, pathlib.Path(tmp))
        check_mcrc(perf, pathlib.Path(tmp))
        check_capture_errors(perf, pathlib.Path(tmp))
    check_namespaces(perf)
    if FAILURES:
        print(f"check-runtime: {len(FAILURES)} failures")
        return 1
    print(f"check-runtime: all checks passed ({time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
