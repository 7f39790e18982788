#!/usr/bin/env python3
"""Attacks on metaroce-perf over this host's loopback (doc/runtime.md, "Security").

1. The control port. One server (--buffer=1M, --timeout=2) takes, one connection each:
   garbage, lines that are not key=value, a repeated key, an unknown key, a missing key,
   numbers that overflow, are negative, carry junk or are out of range, "nan" and "inf",
   sizes past its --buffer, too many sizes, bad plane addresses, ids and PSNs, an endless
   message without "end" (with and without line breaks), a connection that sends nothing,
   one that sends half a message and waits, one that closes half way, and valid setups
   followed by a round of a size never announced, a wrong iteration count, a bad "done", or
   a client that vanishes. Each must end its session with a "refused=..." answer (where the
   connection still reads) and one line on the server's stderr naming the reason; the endless
   message must not grow the server's memory; the server must stay up: a legitimate client
   then runs a verified transfer and the server exits 0. The control port is on 127.0.0.1
   only (the default --bind): a connection to another loopback address is refused.
2. The data path, per transport. A first legitimate run is captured (--pcap). A second runs
   through a TCP proxy of this test that reads its setup (connection ids, keys, initial PSNs,
   the target buffer's address: what an attacker who saw the setup knows) and, before and
   during the transfer, sends from off-path sockets forged WRITEs to the server and forged
   ACKs to the client carrying those values, and replays the first run's datagrams: from
   another address (foreign-address) and from the peer's address but a source port its setup
   did not announce (foreign-port). The bytes must verify, and each end must count exactly
   the datagrams sent to it, per reason. As root, the first run's datagrams are also replayed
   with the client's address and port spoofed, so that they pass the filter: the engine must
   refuse each one (ids and keys are drawn afresh per connection) and the bytes still verify.

Usage: test/runtime/attack-perf.py BUILD_DIR
"""
import collections
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import forge  # noqa: E402

# Loopback addresses of our own (127.<TAG>.1.{1 server, 2 client, 3 attacker}), apart from
# check-runtime.py's 127.100-205.*.
TAG = 210 + os.getpid() % 40
FAILURES = []
CASES = []
COUNTS = re.compile(r"rx (\d+) pkts \((\d+) refused[^)]*\).*foreign-address (\d+) "
                    r"foreign-port (\d+)")
WRONG_CONNECTION = re.compile(r"refused:[^)]*wrong-connection (\d+)")


def check(ok, message):
    if not ok:
        FAILURES.append(message)
        print("FAIL", message)
    return ok


def addr(host):
    return f"127.{TAG}.1.{host}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def udp_socket(address, below_entropy=False):
    """A UDP socket bound to `address`: any port, or one below the entropy ports (49152)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for port in range(20000 + os.getpid() % 9000, 30000) if below_entropy else [0]:
        try:
            s.bind((address, port))
            return s
        except OSError:
            continue
    raise OSError(f"no free UDP port on {address}")


class Server:
    """A metaroce-perf server whose stderr goes to a file the test reads while it runs."""

    def __init__(self, perf, tmp, args):
        self.port = free_port()
        self.err_path = tmp / f"server-{self.port}.err"
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen([perf, "-p", str(self.port), f"--udp-addrs={addr(1)}",
                                          *args], stdout=subprocess.PIPE, stderr=err, text=True)
        self.proc.stdout.readline()  # "waiting for a client": the port listens

    def errors(self):
        return [line for line in self.err_path.read_text().splitlines() if line.strip()]

    def rss_kib(self):
        status = pathlib.Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))

    def finish(self, timeout=60):
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        return self.proc.returncode, out


def client(perf, port, args, timeout=60):
    return subprocess.run([perf, "-p", str(port), f"--udp-addrs={addr(2)}", "--timeout=20",
                           *args, "127.0.0.1"], capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# 1. The control port.

def hello(**over):
    """A valid hello of a client at 127.<TAG>.1.9, with fields replaced (None: left out)."""
    fields = {"test": "write_bw", "transport": "metaroce", "sizes": "65536", "iters": "8",
              "tx-depth": "4", "planes": "1", "rate": "10", "mtu": "4096", "loss": "0",
              "reorder": "0", "duplicate": "0", "delay": "0", "reorder-delay": "50", "seed": "1",
              "corrupt": "0", "mcrc": "off", "timeout": "5", "udp-addrs": addr(9), "udp-port": "4792", "src-port-base": "49152",
              "src-port-count": "16384", "connection": "305419896", "psn": "7"}
    fields.update({k.replace("_", "-"): v for k, v in over.items()})
    return ("".join(f"{k}={v}\n" for k, v in fields.items() if v is not None) + "end\n").encode()


READ_REPLY = "read the server's setup reply"
ROUND = b"round=1\nsize=65536\niters=8\nend\n"


def read_until_end(sock, timeout, whole=False):
    """What the server sends: its first message, or (`whole`) everything until it closes."""
    sock.settimeout(timeout)
    data = b""
    try:
        while whole or not (data.startswith(b"end\n") or b"\nend\n" in data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return data


def control_case(server, name, steps, expect, answer=True):
    """Runs one attacking connection: `steps` are bytes to send, seconds to wait, READ_REPLY
    or "close". The server must refuse with `expect` in its answer and its one stderr line."""
    before = len(server.errors())
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    reply = b""
    try:
        for step in steps:
            if isinstance(step, bytes):
                sock.sendall(step)
            elif isinstance(step, float):
                time.sleep(step)
            elif step == READ_REPLY:
                check(b"rkey=" in read_until_end(sock, 10), f"{name}: no setup reply")
            elif step == "close":
                sock.close()
                sock = None
                break
        if sock is not None:
            reply = read_until_end(sock, 10, whole=True)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server refused before taking everything
    finally:
        if sock is not None:
            sock.close()
    deadline = time.time() + 10
    while len(server.errors()) == before and time.time() < deadline:
        time.sleep(0.05)
    new = server.errors()[before:]
    line = new[0] if new else ""
    ok = check(len(new) == 1 and expect in line and "client 127.0.0.1:" in line and
               len(line) < 500,  # what the client sent is quoted, not copied whole
               f"control {name}: server stderr {new!r}, expected one line with {expect!r}")
    if answer:
        refusal = reply[reply.find(b"refused="):] if b"refused=" in reply else b""
        ok = check(refusal.endswith(b"\nend\n") and expect.encode() in refusal,
                   f"control {name}: answer {reply[:200]!r}") and ok
    ok = check(server.proc.poll() is None, f"control {name}: the server died") and ok
    CASES.append(name)
    if ok:
        print(f"ok   control: {name}: {line.split(': ', 2)[-1]}")


def control_cases():
    """(name, steps, what the refusal names, whether an answer can be read)."""
    endless = b"k=v\n" * (1 << 18)
    return [
        ("binary garbage", [b"\x00\x01\xff\xfeGET / HTTP/1.1\r\n\r\nend\n"], "not key=value", True),
        ("a line without '='", [b"hello\nend\n"], "not key=value", True),
        ("upper-case key", [hello().replace(b"seed=", b"SEED=")], "not key=value", True),
        ("a key twice", [b"test=write_bw\n" + hello()], "twice", True),
        ("an unknown key", [hello(entropy="fixed")], "unexpected key 'entropy'", True),
        ("another message first", [b"bye=1\nend\n"], "unexpected key 'bye'", True),
        ("a missing key", [hello(transport=None)], "without 'transport'", True),
        ("an empty message", [b"end\n"], "without 'test'", True),
        ("a number that overflows", [hello(iters="99999999999999999999999")],
         "--iters=99999999999999999999999", True),
        ("a multiplier that overflows", [hello(iters="1099511627776G")], "--iters=1099511627776G",
         True),
        ("a negative number", [hello(seed="-1")], "--seed=-1", True),
        ("a leading blank", [hello(mtu=" 4096")], "--mtu= 4096", True),
        ("trailing junk", [hello(sizes="65536x")], "--size=65536x", True),
        ("nan", [hello(loss="nan")], "--loss=nan", True),
        ("inf", [hello(rate="inf")], "--rate=inf", True),
        ("hexadecimal", [hello(delay="0x10")], "--delay=0x10", True),
        ("tx-depth out of range", [hello(tx_depth="5000")], "--tx-depth=5000", True),
        ("too many planes", [hello(planes="1000")], "--planes=1000", True),
        ("planes the server has no address for", [hello(planes="2")], "--planes=2", True),
        ("mtu out of range", [hello(mtu="100")], "--mtu=100", True),
        ("an unknown test", [hello(test="read_bw")], "--test=read_bw", True),
        ("RoCEv2 on two planes", [hello(transport="rocev2", planes="2")], "--planes=2", True),
        ("WRITE targets beyond --buffer", [hello(sizes="4194304")], "--buffer=1048576", True),
        ("RECVs beyond --buffer", [hello(test="send_bw", sizes="262144", tx_depth="8",
                                         iters="64")], "--buffer=1048576", True),
        ("a size beyond the wire's", [hello(sizes="4294967296")], "--size=4294967296", True),
        ("too many sizes", [hello(sizes=",".join(["64"] * 65))], "more than 64 sizes", True),
        ("an empty size", [hello(sizes="64,,128")], "--size=", True),
        ("an unspecified address", [hello(udp_addrs="0.0.0.0")], "not a unicast address", True),
        ("a multicast address", [hello(udp_addrs="224.0.0.1")], "not a unicast address", True),
        ("a bad address", [hello(udp_addrs="127.0.0.300")], "udp-addrs='127.0.0.300'", True),
        ("two addresses for one plane", [hello(udp_addrs=f"{addr(9)},{addr(8)}")],
         "2 addresses for 1 planes", True),
        ("connection id 0", [hello(connection="0")], "connection='0'", True),
        ("a RoCEv2 QPN beyond 24 bits", [hello(transport="rocev2", connection="16777215")],
         "connection='16777215'", True),
        ("a RoCEv2 PSN beyond 24 bits", [hello(transport="rocev2", connection="4660",
                                               psn="16777216")],
         "psn='16777216'", True),
        ("source ports beyond 65535", [hello(src_port_base="65000", src_port_count="1000")],
         "src-port-count='1000'", True),
        ("UDP port 0", [hello(udp_port="0")], "udp-port='0'", True),
        ("a 16 KiB value", [hello(sizes="1" * 16000)], "--size=1111", True),
        ("an endless message of lines", [endless], f"longer than 16384 bytes", False),
        ("an endless line", [b"k=" + b"v" * (1 << 20)], "longer than 16384 bytes", False),
        ("a connection that sends nothing", [], "no whole control message within 2 s", True),
        ("half a message, then silence", [b"test=write_bw\ntransp"],
         "no whole control message within 2 s", True),
        ("half a message, then closed", [b"test=write_bw\ntransp", "close"],
         "closed the control connection", False),
        ("a round of a size never announced",
         [hello(), READ_REPLY, b"round=1\nsize=4096\niters=8\nend\n"], "not a size of the hello",
         True),
        ("a round with another iteration count",
         [hello(), READ_REPLY, b"round=1\nsize=65536\niters=9\nend\n"], "iters='9'", True),
        ("a done claiming more messages than the round",
         [hello(), READ_REPLY, ROUND, 0.2, b"done=1\nposted=999\nend\n"], "posted='999'", True),
        ("a client that vanishes mid-session", [hello(), READ_REPLY, "close"],
         "closed the control connection", False),
        ("a client that goes silent mid-session", [hello(), READ_REPLY, ROUND],
         "no whole control message for 2 s", True),
    ]


def check_control(perf, tmp):
    server = Server(perf, tmp, ["--buffer=1M", "--timeout=2"])
    try:
        with socket.socket() as s:
            refused = s.connect_ex(("127.0.0.2", server.port)) != 0
        check(refused, "the control port answers on 127.0.0.2: it must listen on 127.0.0.1 only")
        CASES.append("the control port on another loopback address")
        print("ok   control: 127.0.0.2 refused (the port listens on 127.0.0.1 only)")
        for name, steps, expect, answer in control_cases():
            rss = server.rss_kib()
            control_case(server, name, steps, expect, answer)
            if name.startswith("an endless"):
                grown = server.rss_kib() - rss
                check(grown < 4096, f"control {name}: the server grew by {grown} KiB")
        legit = client(perf, server.port, ["-s", "64K", "-n", "16"])
        check(legit.returncode == 0 and "data verified by the server: OK" in legit.stdout,
              f"the legitimate client after the attacks: {legit.returncode} {legit.stderr!r}")
    finally:
        code, out = server.finish()
    check(code == 0 and "all bytes verified" in out, f"server after the attacks: exit {code}")
    sessions = len(control_cases())
    check(len(server.errors()) == sessions,
          f"server stderr: {len(server.errors())} lines for {sessions} refused sessions")
    print(f"ok   control: the server then served a legitimate client, verified, exit {code}")


# ---------------------------------------------------------------------------------------------
# 2. The data path.

def parse_message(text):
    return dict(line.split("=", 1) for line in text.decode().splitlines() if "=" in line)


class Proxy(threading.Thread):
    """A relay between the client and the server's control port that reads the setup and
    lets the test act before each client message passes on (on_client)."""

    def __init__(self, server_port, on_client):
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.server_port = server_port
        self.on_client = on_client
        self.from_server = []

    def run(self):
        c, _ = self.listener.accept()
        s = socket.create_connection(("127.0.0.1", self.server_port))
        back = threading.Thread(target=self.pump, args=(s, c, None), daemon=True)
        back.start()
        self.pump(c, s, self.on_client)
        back.join()

    def pump(self, src, dst, hook):
        buffer = b""
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            buffer += data
            while True:
                end = 0 if buffer.startswith(b"end\n") else buffer.find(b"\nend\n") + 1
                if end == 0 and not buffer.startswith(b"end\n"):
                    break  # no whole message yet
                message, buffer = buffer[:end + 4], buffer[end + 4:]
                if hook:
                    hook(parse_message(message))
                else:
                    self.from_server.append(parse_message(message))
                dst.sendall(message)


class Attacker:
    """Sends forged and replayed datagrams to both ends, counting them per target and reason."""

    def __init__(self, transport, client_id, server_id, replays):
        self.transport = transport
        self.c, self.s = client_id, server_id
        self.replays = replays
        self.far = udp_socket(addr(3))
        # The peers' own addresses, from a port neither announced (below the entropy range).
        self.as_client = udp_socket(addr(2), below_entropy=True)
        self.as_server = udp_socket(addr(1), below_entropy=True)
        self.raw = forge.raw_socket()
        self.sent = collections.Counter()
        self.spoofed = 0
        self.stop = threading.Event()

    def close(self):
        for s in (self.far, self.as_client, self.as_server, self.raw):
            if s is not None:
                s.close()

    def to_server(self, payloads):
        target = (self.s["udp-addrs"], int(self.s["udp-port"]))
        for p in payloads:
            self.far.sendto(p, target)
            self.as_client.sendto(p, target)
        self.sent["server", "foreign-address"] += len(payloads)
        self.sent["server", "foreign-port"] += len(payloads)

    def to_client(self, payloads):
        target = (self.c["udp-addrs"], int(self.c["udp-port"]))
        for p in payloads:
            self.far.sendto(p, target)
            self.as_server.sendto(p, target)
        self.sent["client", "foreign-address"] += len(payloads)
        self.sent["client", "foreign-port"] += len(payloads)

    def forged(self, k):
        """Forged WRITEs for the server (the next PSNs of the client's paths, the server's key
        and buffer) and forged ACKs for the client (acknowledging what it has not sent)."""
        conn, rkey, base = int(self.s["connection"]), int(self.s["rkey"]), int(self.s["buffer-addr"])
        psn, client_conn = int(self.c["psn"]), int(self.c["connection"])
        junk = bytes([0xEE]) * 1024
        if self.transport == "rocev2":
            writes = [forge.ib_write_only(conn, psn + k + i, base + i * 1024, rkey, junk)
                      for i in range(4)]
            acks = [forge.ib_ack(client_conn, psn + k + 64, k + 1)]
            return writes, acks
        writes = [forge.mr_write(conn, path, psn + k, psn, k, base + k * 1024, rkey, junk)
                  for path in range(8)]
        acks = [forge.mr_ack(client_conn, path, psn + k + 64) for path in range(8)]
        return writes, acks

    def burst(self):
        """Before the transfer: forged packets for the first PSNs, the first run's replays."""
        for k in range(4):
            writes, acks = self.forged(k)
            self.to_server(writes)
            self.to_client(acks)
        self.to_server(self.replays)
        if self.raw is not None:
            for p in self.replays:
                forge.spoof(self.raw, self.c["udp-addrs"], int(self.c["udp-port"]),
                            self.s["udp-addrs"], int(self.s["udp-port"]), p)
                self.spoofed += 1

    def during(self):
        """While the transfer runs: forged packets every 2 ms for the PSNs in flight."""
        k = 4
        while not self.stop.is_set():
            writes, acks = self.forged(k)
            self.to_server(writes)
            self.to_client(acks)
            k += 1
            time.sleep(0.002)


def first_run(perf, tmp, transport):
    """A legitimate captured run; returns the client's datagrams to the server."""
    server = Server(perf, tmp, ["--timeout=20"])
    capture = tmp / f"{transport}-first.pcap"
    c = client(perf, server.port, [f"--transport={transport}", "-s", "4096", "-n", "16",
                                   f"--pcap={capture}"])
    code, _ = server.finish()
    check(c.returncode == 0 and code == 0, f"{transport} first run: {c.stderr!r}")
    sent = [p for (_, _, dst, _, p) in forge.read_pcap(capture) if dst == addr(1)]
    # The forged headers are the real ones: a captured WRITE rebuilt from its fields is equal.
    rebuilt = 0
    for p in sent:
        fields = forge.ib_fields(p) if transport == "rocev2" else forge.mr_fields(p)
        if fields is not None:
            build = forge.ib_write_only if transport == "rocev2" else forge.mr_write
            rebuilt += check(build(**fields) == p, f"{transport}: forge builds another WRITE")
    check(rebuilt > 0, f"{transport}: no WRITE in the first run's capture")
    return sent


def attacked_run(perf, tmp, transport, replays):
    failures = len(FAILURES)
    server = Server(perf, tmp, ["--timeout=20"])
    state = {}

    def on_client(message):
        if "test" in message:
            state["hello"] = message
        elif "round" in message:
            attacker = Attacker(transport, state["hello"], proxy.from_server[0], replays)
            state["attacker"] = attacker
            attacker.burst()
            state["thread"] = threading.Thread(target=attacker.during, daemon=True)
            state["thread"].start()
        elif "done" in message:
            state["attacker"].stop.set()
            state["thread"].join()
            time.sleep(0.3)  # both ends read what was sent before the round ends

    proxy = Proxy(server.port, on_client)
    proxy.start()
    c = client(perf, proxy.port, [f"--transport={transport}", "-s", "256K", "-n", "64"])
    code, out = server.finish()
    attacker = state.get("attacker")
    if not check(attacker is not None, f"{transport}: the attacked run never started a round"):
        return
    check(c.returncode == 0 and "data verified by the server: OK" in c.stdout,
          f"{transport} attacked: client exit {c.returncode}: {c.stderr.strip()!r}")
    check(code == 0 and "all bytes verified" in out, f"{transport} attacked: server exit {code}")
    for side, text in (("server", out), ("client", c.stdout)):
        m = COUNTS.search(text)
        if not check(m is not None, f"{transport}: no counters from the {side}"):
            continue
        got = {"foreign-address": int(m.group(3)), "foreign-port": int(m.group(4))}
        for reason, count in got.items():
            check(count == attacker.sent[side, reason] > 0,
                  f"{transport} {side}: {reason} counted {count}, "
                  f"sent {attacker.sent[side, reason]}")
        if side == "server" and attacker.raw is not None:
            # Each replay of the first run carries that run's connection id or QP number.
            w = WRONG_CONNECTION.search(text)
            refused = int(w.group(1)) if w else 0
            check(refused == attacker.spoofed,
                  f"{transport}: the engine refused {refused} of {attacker.spoofed} spoofed "
                  f"replays as wrong-connection")
    attacker.close()
    CASES.extend([f"{transport}: forged WRITEs", f"{transport}: forged ACKs",
                  f"{transport}: replays off-path"] +
                 ([f"{transport}: spoofed replays"] if attacker.raw is not None else []))
    n = dict(attacker.sent)
    if len(FAILURES) == failures:
        print(f"ok   data {transport}: bytes verified; the server dropped "
              f"{n['server', 'foreign-address']} + {n['server', 'foreign-port']}, the client "
              f"{n['client', 'foreign-address']} + {n['client', 'foreign-port']} (foreign address "
              f"+ port)" + (f"; {attacker.spoofed} spoofed replays refused by the engine"
                            if attacker.raw is not None else "; spoofing skipped (not root)"))


def main():
    perf = str(pathlib.Path(sys.argv[1]).resolve() / "metaroce-perf")
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        check_control(perf, tmp)
        for transport in ("metaroce", "rocev2"):
            attacked_run(perf, tmp, transport, first_run(perf, tmp, transport))
    if FAILURES:
        print(f"attack-perf: {len(FAILURES)} failures")
        return 1
    print(f"attack-perf: {len(CASES)} attacks, all refused or dropped and counted; "
          f"transfers verified ({time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
