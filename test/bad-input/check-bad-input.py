#!/usr/bin/env python3
"""Bad input, everywhere a user types (doc/reliability.md, "Bad input"): every case runs a
program of the build with one invalid option value and checks that it is refused the way the
project promises:

  * a non-zero exit status (2: a refused option), within a few seconds (no hang, no run);
  * exactly one line on stderr, which names the option and the value given;
  * no "terminate called", no ns-3 abort report (msg=..., file=<source path>), no usage text,
    and no sanitizer report.

Values include ones the option parser takes but the model cannot (zero delays, more planes
than a NIC has ports, sizes past the wire's limits, absurd channel counts).

    python3 test/bad-input/check-bad-input.py BUILD_DIR
"""
import os
import subprocess
import sys
import tempfile

SMALL = ["--hosts=4", "--planes=2", "--hostsPerLeaf=2", "--spines=1", "--messageBytes=4096",
         "--transports=metaroce", "--workloads=allreduce-ring", "--losses=0"]

CDF_BAD = "100 0.5\n50 1\n"          # sizes decreasing
CDF_HUGE = "100 0.5\n1e12 1\n"       # a flow past the 32-bit message length
CDF_WORD = "size prob\n100 1\n"      # a heading that is not a comment

# (program, base arguments, the bad option, substrings its one line must contain)
CASES = [
    # The examples' comparison runner (metaroce-4-plane / metaroce-8-plane).
    ("metaroce-4-plane", SMALL, "--seed=0", ["--seed", "0"]),
    ("metaroce-4-plane", SMALL, "--messageBytes=-1", ["--messageBytes", "-1"]),
    ("metaroce-4-plane", SMALL, "--messageBytes=0", ["--messageBytes", "0"]),
    ("metaroce-4-plane", SMALL, "--messageBytes=4294967296", ["--messageBytes", "4294967296"]),
    ("metaroce-4-plane", SMALL + ["--transports=rocev2"], "--messageBytes=3000000000",
     ["--messageBytes", "3000000000"]),
    ("metaroce-4-plane", SMALL, "--hosts=abc", ["--hosts", "abc"]),
    ("metaroce-4-plane", SMALL, "--hosts=4x", ["--hosts", "4x"]),
    ("metaroce-4-plane", SMALL, "--hosts=1", ["--hosts", "1"]),
    ("metaroce-4-plane", SMALL, "--hosts=-4", ["--hosts", "-4"]),
    ("metaroce-4-plane", SMALL, "--planes=0", ["--planes", "0"]),
    ("metaroce-4-plane", SMALL, "--planes=65", ["--planes", "65"]),
    ("metaroce-4-plane", SMALL, "--hostsPerLeaf=255", ["--hostsPerLeaf", "255"]),
    ("metaroce-4-plane", SMALL, "--spines=0", ["--spines", "spines"]),
    ("metaroce-4-plane", SMALL, "--channels=70000", ["--channels", "70000"]),
    ("metaroce-4-plane", SMALL, "--channels=2000", ["--channels", "2000"]),
    ("metaroce-4-plane", SMALL + ["--messageBytes=2"], "--channels=4", ["--messageBytes", "2"]),
    ("metaroce-4-plane", SMALL, "--hostDelay=0s", ["--hostDelay", "0s"]),
    ("metaroce-4-plane", SMALL, "--fabricDelay=0", ["--fabricDelay", "0"]),
    ("metaroce-4-plane", SMALL, "--hostDelay=-1us", ["--hostDelay", "-1us"]),
    ("metaroce-4-plane", SMALL, "--hostDelay=1parsec", ["--hostDelay", "1parsec"]),
    ("metaroce-4-plane", SMALL, "--hostRate=fast", ["--hostRate", "fast"]),
    ("metaroce-4-plane", SMALL, "--hostRate=0Gbps", ["--hostRate", "0Gbps"]),
    ("metaroce-4-plane", SMALL, "--losses=1.5", ["--loss", "1.5"]),
    ("metaroce-4-plane", SMALL, "--losses=0,,0.1", ["--loss", "0,,0.1"]),
    ("metaroce-4-plane", SMALL, "--transports=tcp", ["--transport", "tcp"]),
    ("metaroce-4-plane", SMALL, "--workloads=ring", ["ring"]),
    ("metaroce-4-plane", SMALL, "--topology=torus", ["--topology", "torus"]),
    ("metaroce-4-plane", SMALL, "--lossPlane=-2", ["--lossPlane", "-2"]),
    ("metaroce-4-plane", SMALL, "--lossPlane=5", ["--lossPlane", "5"]),
    ("metaroce-4-plane", SMALL + ["--failure=plane"], "--failurePlane=7", ["--failurePlane", "7"]),
    ("metaroce-4-plane", SMALL + ["--failure=plane"], "--failureAt=2s", ["--failureAt", "2s"]),
    ("metaroce-4-plane", SMALL, "--failure=meteor", ["--failure", "meteor"]),
    ("metaroce-4-plane", SMALL, "--pcapSwitches=maybe", ["--pcapSwitches", "maybe"]),
    ("metaroce-4-plane", SMALL, "--pcap=/no/such/dir/run", ["--pcap", "/no/such/dir"]),
    ("metaroce-4-plane", SMALL, "--stopTime=0s", ["--stopTime"]),
    ("metaroce-4-plane", SMALL, "--scheduler=ns3::Nothing", ["--scheduler", "ns3::Nothing"]),
    ("metaroce-4-plane", SMALL, "--repetitions=0", ["--repetitions", "0"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=Mtux=1", ["--nicAttributes", "Mtux"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=Mtu=big", ["--nicAttributes", "big"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=RtoMin=5 us", ["--nicAttributes", "5 us"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=AdmissionRtt=2s", ["--nicAttributes", "2s"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=AdmissionRtt=-1us",
     ["--nicAttributes", "-1us"]),
    ("metaroce-4-plane", SMALL,
     "--nicAttributes=CongestionControl=ns3::NoSuchCc", ["--nicAttributes", "ns3::NoSuchCc"]),
    ("metaroce-4-plane", SMALL, "--nicAttributes=CongestionControl=115", ["--nicAttributes", "115"]),
    ("metaroce-4-plane", SMALL,
     "--nicAttributes=CongestionControl=ns3::Object", ["--nicAttributes", "ns3::Object"]),
    ("metaroce-4-plane", SMALL,
     "--nicAttributes=CongestionControl=ns3::PbbPacket", ["--nicAttributes", "ns3::PbbPacket"]),
    ("metaroce-4-plane", SMALL,
     "--switchAttributes=EcnMarker=ns3::MetaRoceDynamicThresholdAdmission",
     ["--switchAttributes", "ns3::MetaRoceDynamicThresholdAdmission"]),
    ("metaroce-4-plane", SMALL, "--switchAttributes=EcnPmax=0x1", ["--switchAttributes", "0x1"]),
    ("metaroce-4-plane", SMALL, "--switchAttributes=EcnKmin=-5", ["--switchAttributes", "-5"]),
    ("metaroce-4-plane", SMALL + ["--workloads=flows"], "--cdfFile=/no/such.cdf",
     ["/no/such.cdf"]),
    ("metaroce-4-plane", SMALL + ["--workloads=flows"], "--cdfFile={bad}", ["line 2"]),
    ("metaroce-4-plane", SMALL + ["--workloads=flows"], "--cdfFile={huge}", ["line 2"]),
    ("metaroce-4-plane", SMALL + ["--workloads=flows"], "--cdfFile={word}", ["line 1", "size"]),
    ("metaroce-4-plane", SMALL + ["--workloads=flows", "--cdfFile={good}"], "--load=0",
     ["--load", "0"]),
    ("metaroce-8-plane", [], "--seed=-3", ["--seed", "-3"]),
    # The fabric example.
    ("metaroce-fabric", [], "--hosts=1", ["--hosts", "1"]),
    ("metaroce-fabric", [], "--planes=100", ["--planes", "100"]),
    ("metaroce-fabric", [], "--pattern=ring", ["--pattern", "ring"]),
    ("metaroce-fabric", [], "--topology=ring", ["--topology", "ring"]),
    ("metaroce-fabric", [], "--transports=udp", ["--transports", "udp"]),
    ("metaroce-fabric", [], "--loss=2", ["--loss", "2"]),
    ("metaroce-fabric", [], "--rate=slow", ["--rate", "slow"]),
    ("metaroce-fabric", [], "--seed=0", ["--seed", "0"]),
    ("metaroce-fabric", ["--hosts=32", "--hostsPerLeaf=4"], "--spines=0", ["spines"]),
    ("metaroce-fabric", ["--topology=fat-tree", "--hosts=16", "--hostsPerLeaf=4",
                         "--leavesPerPod=2", "--spines=2"], "--cores=3", ["Cores (3)"]),
    ("metaroce-fabric", [], "--output=/no/such/dir/x.csv", ["--output", "/no/such/dir"]),
    # The loopback sweep.
    ("metaroce-loopback", [], "--planes=65", ["--planes", "65"]),
    ("metaroce-loopback", [], "--pathsPerPlane=0", ["--pathsPerPlane", "0"]),
    ("metaroce-loopback", [], "--messageBytes=-1", ["--messageBytes", "-1"]),
    ("metaroce-loopback", [], "--rateGbps=0", ["--rateGbps", "0"]),
    ("metaroce-loopback", [], "--rateGbps=nan", ["--rateGbps", "nan"]),
    ("metaroce-loopback", [], "--messages=0", ["--messages", "0"]),
    ("metaroce-loopback", [], "--transports=tcp", ["tcp"]),
    ("metaroce-loopback", ["--planes=64"], "--pathsPerPlane=1024", ["pathsPerPort"]),
    # The ns-3 socket example.
    ("metaroce-bulk-send", [], "--bytes=0", ["--bytes", "0"]),
    ("metaroce-bulk-send", [], "--planes=0", ["--planes", "0"]),
    ("metaroce-bulk-send", [], "--delay=0s", ["--delay", "0s"]),
    ("metaroce-bulk-send", [], "--rate=fast", ["--rate", "fast"]),
    ("metaroce-bulk-send", [], "--transport=tcp", ["tcp"]),
    # The user-written congestion control example (every experiment field).
    ("metaroce-custom-congestion", [], "--seed=0", ["--seed", "0"]),
    ("metaroce-custom-congestion", [], "--workload=ring", ["ring"]),
    # metaroce-perf (its own parser, doc/runtime.md).
    ("metaroce-perf", ["127.0.0.1"], "--size=0", ["--size", "0"]),
    ("metaroce-perf", ["127.0.0.1"], "--size=4G", ["--size", "4294967296"]),
    ("metaroce-perf", ["127.0.0.1", "--transport=rocev2"], "--size=3G", ["--size"]),
    ("metaroce-perf", ["127.0.0.1", "--transport=rocev2"], "--mtu=8192", ["--mtu", "8192"]),
    ("metaroce-perf", ["127.0.0.1"], "--planes=65", ["--planes", "65"]),
    ("metaroce-perf", ["127.0.0.1"], "--loss=200", ["--loss", "200"]),
    ("metaroce-perf", ["127.0.0.1"], "--test=read_bw", ["--test", "read_bw"]),
    ("metaroce-perf", ["127.0.0.1"], "--port=0", ["--port", "0"]),
    ("metaroce-perf", [], "--bind=localhost", ["--bind", "localhost"]),
    ("metaroce-perf", [], "--bind=127.0.0.256", ["--bind", "127.0.0.256"]),
    ("metaroce-perf", ["127.0.0.1"], "--bind=", ["--bind"]),
    ("metaroce-perf", [], "--pcap=/nonexistent-dir/x.pcap", ["--pcap", "/nonexistent-dir/x.pcap"]),
    ("metaroce-perf", [], "--pcap=/tmp/", ["--pcap", "/tmp/"]),
    ("metaroce-perf", ["127.0.0.1"], "--iters=1099511627776G", ["--iters", "1099511627776G"]),
    ("metaroce-perf", ["127.0.0.1"], "--size= 64", ["--size", " 64"]),
    ("metaroce-perf", ["127.0.0.1"], "--size=+64", ["--size", "+64"]),
    ("metaroce-perf", ["127.0.0.1"], "--loss=nan", ["--loss", "nan"]),
    ("metaroce-perf", ["127.0.0.1"], "--rate=inf", ["--rate", "inf"]),
    ("metaroce-perf", ["127.0.0.1"], "--delay=0x10", ["--delay", "0x10"]),
    ("metaroce-perf", [], "--udp-addrs=" + ",".join(["127.0.0.1"] * 17),
     ["--udp-addrs", "17 addresses"]),
    ("metaroce-perf", [], "--buffer=1K", ["--buffer", "1K"]),
    # The engine's training workload (scripts/engine-profile.sh) takes no value at all.
    ("metaroce-engine-train", [], "--scenarios=3", ["unknown argument", "--scenarios=3"]),
    # A distributed run's partition (a rank per host, or "leaf").
    ("metaroce-8-plane", SMALL, "--partition=0,1", ["--partition", "rank of 2 hosts", "has 4"]),
    ("metaroce-8-plane", SMALL, "--partition=0,1,x,1", ["--partition", "'x' is not a rank"]),
    # Launched by mpirun (issue 15): one experiment per distributed run, and only where ns-3 has
    # its MPI module (the standalone build has none); never N copies of a sequential run.
    ("metaroce-8-plane", SMALL, "--losses=0,0.01", ["2 MPI processes", "one experiment", "not 2"],
     {"OMPI_COMM_WORLD_SIZE": "2"}),
    ("metaroce-8-plane", SMALL, "--seed=1", ["MPI module", "--enable-mpi"],
     {"OMPI_COMM_WORLD_SIZE": "2"}),
]


def program_path(build, name):
    if name in ("metaroce-perf",):
        return os.path.join(build, name)
    if name in ("metaroce-engine-train",):
        return os.path.join(build, "bench", name)
    return os.path.join(build, "examples", name)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    tmp = tempfile.mkdtemp(prefix="metaroce-bad-input-")
    files = {}
    for key, text in (("bad", CDF_BAD), ("huge", CDF_HUGE), ("word", CDF_WORD),
                      ("good", "100 0.5\n1000 1\n")):
        files[key] = os.path.join(tmp, key + ".cdf")
        with open(files[key], "w") as f:
            f.write(text)
    failures = 0
    for program, base, bad, needles, *extra in CASES:
        args = [a.format(**files) for a in base + [bad]]
        cmd = [program_path(build, program)] + args
        env = dict(os.environ, **extra[0]) if extra else None
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)
            err, code = p.stderr, p.returncode
        except subprocess.TimeoutExpired:
            err, code = "(timed out: a hang or a run, not a refusal)", None
        lines = [line for line in err.splitlines() if line.strip()]
        problems = []
        if code is None or code <= 0:
            problems.append(f"exit status {code}")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr")
        for bad_text in ("terminate called", "file=", "msg=", "Program Options",
                         "Sanitizer", "runtime error"):
            if bad_text in err:
                problems.append(f"stderr has '{bad_text}'")
        for needle in needles:
            if needle.format(**files) not in (lines[0] if lines else ""):
                problems.append(f"the line does not name '{needle}'")
        shown = f"{program} {bad.format(**files)}"
        if problems:
            failures += 1
            print(f"FAIL {shown}: {'; '.join(problems)}\n     stderr: {err.strip()[:400]!r}")
        else:
            print(f"ok   {shown}: {lines[0]}")
    print(f"bad input: {len(CASES) - failures} of {len(CASES)} cases refused as promised")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
