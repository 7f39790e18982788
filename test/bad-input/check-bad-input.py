#!/usr/bin/env python3
"""Bad input, everywhere a user types (doc/reliability.md, "Bad input"): every case gives a
program of the build one invalid option value, argument or file, and checks that it is refused
the way the project promises:

  * a non-zero exit status (2: a refused option), within a few seconds (no hang, no run);
  * exactly one line on stderr, which names the option and the value given (a scenario file:
    the file and the line);
  * no "terminate called", no ns-3 abort report (msg=..., file=<source path>), no usage text,
    and no sanitizer report.

Values include ones the option parser takes but the model cannot (zero delays, more planes
than a NIC has ports, sizes past the wire's limits, absurd channel counts). The cases:

  * CASES below: one option value of each program;
  * program_cases.py: values the model would abort on later, options that would do nothing,
    sizes past the machine's memory, times ns-3 cannot hold, arguments ns-3 reads itself,
    result files that cannot be written (a full disk, as a file-size limit);
  * compliance_cases.py: bad compliance scenario files (metaroce-compliance --scenarios=FILE);
  * python_cases.py: the Python experiment API, which must raise metaroce.ConfigError naming
    the field, one process for all of them, then a good run (python-bad-input.py, in the
    project's virtualenv: scripts/python-env.sh).

    python3 test/bad-input/check-bad-input.py BUILD_DIR
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from compliance_cases import COMPLIANCE_CASES  # noqa: E402
from program_cases import PROGRAM_CASES  # noqa: E402
from python_cases import PYTHON_CASES  # noqa: E402

SMALL = ["--hosts=4", "--planes=2", "--hostsPerLeaf=2", "--spines=1", "--messageBytes=4096",
         "--transports=metaroce", "--workloads=allreduce-ring", "--losses=0"]

CDF_BAD = "100 0.5\n50 1\n"          # sizes decreasing
CDF_HUGE = "100 0.5\n1e12 1\n"       # a flow past the 32-bit message length
CDF_WORD = "size prob\n100 1\n"      # a heading that is not a comment
# Traffic matrices for 4 ranks (--trafficMatrix), {tm_<name>} in the cases.
MATRICES = {
    "tm_good": "0 1 1 1\n1 0 1 1\n1 1 0 1\n1 1 1 0\n",
    "tm_rows": "0 1 1 1\n1 0 1 1\n1 1 0 1\n",
    "tm_cols": "0 1 1 1\n1 0 1\n1 1 0 1\n1 1 1 0\n",
    "tm_neg": "0 1 1 1\n1 0 1 1\n1 -5 0 1\n1 1 1 0\n",
    "tm_word": "0 1 1 lots\n1 0 1 1\n1 1 0 1\n1 1 1 0\n",
    "tm_big": "0 99999999999 1 1\n1 0 1 1\n1 1 0 1\n1 1 1 0\n",
}

# Training schedules for 4 hosts (--schedule), {sch_<name>} in the cases.
SCHEDULES = {
    "sch_rank": '{"format": "metaroce-schedule/1", "groups": [{"name": "a", "ranks": [0, 4], '
                '"ops": [{"compute": "1us"}]}]}',
    "sch_json": '{"format": "metaroce-schedule/1", "groups": [',
}

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
    ("metaroce-4-plane", SMALL, "--device=ns3::CsmaNetDevice", ["--device", "ns3::CsmaNetDevice"]),
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
    ("metaroce-loopback", [], "--flowsPerPlane=0", ["--flowsPerPlane", "0"]),
    ("metaroce-loopback", [], "--messageBytes=-1", ["--messageBytes", "-1"]),
    ("metaroce-loopback", [], "--rateGbps=0", ["--rateGbps", "0"]),
    ("metaroce-loopback", [], "--rateGbps=nan", ["--rateGbps", "nan"]),
    ("metaroce-loopback", [], "--messages=0", ["--messages", "0"]),
    ("metaroce-loopback", [], "--transports=tcp", ["tcp"]),
    ("metaroce-loopback", ["--planes=64"], "--flowsPerPlane=1024", ["flowsPerPort"]),
    # The ns-3 socket example.
    ("metaroce-first", [], "--transport=tcp", ["--transport", "tcp"]),
    ("metaroce-first", [], "--bytes=0", ["--bytes", "0"]),
    ("metaroce-first", [], "--bytes=4294967296", ["--bytes", "4294967296"]),
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
    ("metaroce-perf", ["127.0.0.1"], "--corrupt=101", ["--corrupt", "101"]),
    ("metaroce-perf", ["127.0.0.1"], "--mcrc=1", ["--mcrc", "1"]),
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
    if name in ("metaroce-perf", "metaroce-compliance"):
        return os.path.join(build, name)
    if name in ("metaroce-engine-train",):
        return os.path.join(build, "bench", name)
    return os.path.join(build, "examples", name)


FORBIDDEN = ("terminate called", "file=", "msg=", "Program Options", "Sanitizer",
             "runtime error")


def judge(err, code, needles):
    """The ways a refusal `err` (stderr) with exit status `code` breaks the rules."""
    lines = [line for line in err.splitlines() if line.strip()]
    problems = []
    if code is None or code <= 0:
        problems.append(f"exit status {code}")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    for bad_text in FORBIDDEN:
        if bad_text in err:
            problems.append(f"stderr has '{bad_text}'")
    for needle in needles:
        if needle not in (lines[0] if lines else ""):
            problems.append(f"the line does not name '{needle}'")
    return problems, (lines[0] if lines else "")


def limiter(limits):
    """A preexec_fn applying a case's resource limits (file size: writes past it fail with
    EFBIG, as on a full disk; open files)."""
    def apply():
        if "fsize" in limits:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits["fsize"], limits["fsize"]))
        if "nofile" in limits:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limits["nofile"], limits["nofile"]))
    return apply


def run_program(cmd, env=None, limits=None):
    """(stderr, exit status) of `cmd`; status None when it did not end within 30 s. A "stdout"
    limit sends its standard output to that file (/dev/full: a full disk behind a redirection)."""
    limits = limits or {}
    out = open(limits["stdout"], "w") if "stdout" in limits else subprocess.PIPE
    try:
        p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, timeout=30,
                           env=env, preexec_fn=limiter(limits))
        return p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        return "(timed out: a hang or a run, not a refusal)", None
    finally:
        if out is not subprocess.PIPE:
            out.close()


def report(shown, problems, line, err):
    if problems:
        print(f"FAIL {shown}: {'; '.join(problems)}\n     stderr: {err.strip()[:400]!r}")
        return 1
    print(f"ok   {shown}: {line}")
    return 0


def program_cases(build, files):
    """CASES and program_cases.PROGRAM_CASES; returns (cases, failures)."""
    cases = [(program, base, bad, needles, extra[0] if extra else None, {})
             for program, base, bad, needles, *extra in CASES] + PROGRAM_CASES
    failures = 0
    for program, base, bad, needles, env, limits in cases:
        tmp = tempfile.mkdtemp(prefix="metaroce-bad-case-")
        names = dict(files, tmp=tmp)
        args = [a.format(**names) for a in base + [bad]]
        full_env = dict(os.environ, **env) if env else None
        opts = {k: v for k, v in limits.items() if k != "leaves_nothing"}
        err, code = run_program([program_path(build, program)] + args, full_env, opts)
        problems, line = judge(err, code, [n.format(**names) for n in needles])
        if "leaves_nothing" in limits:
            left = os.listdir(limits["leaves_nothing"].format(**names))
            if left:
                problems.append(f"left {left} behind")
        shutil.rmtree(tmp, ignore_errors=True)
        failures += report(f"{program} {bad.format(**names)}", problems, line, err)
    return len(cases), failures


def compliance_cases(build, tmp):
    """compliance_cases.COMPLIANCE_CASES through metaroce-compliance --scenarios=FILE."""
    failures = 0
    for name, text, line_number, needles in COMPLIANCE_CASES:
        path = os.path.join(tmp, name + ".mrs")
        with open(path, "w") as f:
            f.write(text)
        err, code = run_program([program_path(build, "metaroce-compliance"),
                                 f"--scenarios={path}"])
        problems, line = judge(err, code, [f"{path}:{line_number}: "] + needles)
        failures += report(f"metaroce-compliance scenario {name}", problems, line, err)
    return len(COMPLIANCE_CASES), failures


def python_cases(build):
    """python_cases.PYTHON_CASES in one process of the project's virtualenv."""
    root = os.path.dirname(os.path.dirname(HERE))
    try:
        venv = subprocess.run(["bash", os.path.join(root, "scripts", "python-env.sh")],
                              capture_output=True, text=True, check=True).stdout.strip()
        env = dict(os.environ, METAROCE_BUILD_DIR=os.path.abspath(build),
                   PYTHONPATH=os.path.join(root, "bindings", "python"))
        p = subprocess.run([os.path.join(venv, "bin", "python"),
                            os.path.join(HERE, "python-bad-input.py")],
                           capture_output=True, text=True, timeout=600, env=env)
        outcome = json.loads(p.stdout)
    except (subprocess.SubprocessError, OSError, ValueError) as e:
        for _, kwargs, field, _ in PYTHON_CASES:
            print(f"FAIL python {field}: the Python cases could not run ({e})")
        return len(PYTHON_CASES), len(PYTHON_CASES)
    failures = 0
    for (function, kwargs, field, needles), r in zip(PYTHON_CASES, outcome["cases"]):
        problems = []
        message = r["message"]
        if not r["config_error"]:
            problems.append(f"raised {r['type']}, not metaroce.ConfigError")
        if r["field"] != field:
            problems.append(f"field {r['field']!r}, not {field!r}")
        if "\n" in message.strip() or not message:
            problems.append("not one line")
        for bad_text in FORBIDDEN:
            if bad_text in message:
                problems.append(f"the message has '{bad_text}'")
        for needle in needles:
            if needle not in message:
                problems.append(f"the message does not name '{needle}'")
        failures += report(f"python {r['call'][:90]}", problems, message, message)
    good = outcome["good_run"] is True and not p.stderr.strip()
    failures += report("python: a good run after them, same process",
                       [] if good else [f"{outcome['good_run']}; stderr {p.stderr[:300]!r}"],
                       "complete", "")
    return len(PYTHON_CASES), failures


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    tmp = tempfile.mkdtemp(prefix="metaroce-bad-input-")
    files = {"file": os.path.join(tmp, "a-file")}
    with open(files["file"], "w") as f:
        f.write("not a directory\n")
    for key, text in (("bad", CDF_BAD), ("huge", CDF_HUGE), ("word", CDF_WORD),
                      ("good", "100 0.5\n1000 1\n")):
        files[key] = os.path.join(tmp, key + ".cdf")
        with open(files[key], "w") as f:
            f.write(text)
    for key, text in SCHEDULES.items():
        files[key] = os.path.join(tmp, key + ".json")
        with open(files[key], "w") as f:
            f.write(text)
    for key, text in MATRICES.items():
        files[key] = os.path.join(tmp, key + ".txt")
        with open(files[key], "w") as f:
            f.write(text)
    total = failures = 0
    counts = []
    for what, (n, failed) in (("programs", program_cases(build, files)),
                              ("compliance scenarios", compliance_cases(build, tmp)),
                              ("Python API", python_cases(build))):
        total += n
        failures += failed
        counts.append(f"{n} {what}")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"bad input: {total - failures} of {total} cases refused as promised "
          f"({', '.join(counts)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
