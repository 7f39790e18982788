"""Bad input to the programs beyond single option values (doc/reliability.md, "Bad input"):
values the model would abort on later (the NIC's and switches' attributes across fields),
options that would do nothing, sizes past the machine's memory or a run's time limit, times
ns-3 cannot hold, arguments ns-3 itself would read (unknown options, attribute defaults,
global values), result files that cannot be written (a path, a full disk), the compliance
runner's own arguments.

Each case is (program, base arguments, the bad argument, substrings of the one stderr line,
environment, limits); limits are resource limits for the program ("fsize": bytes a file may
grow to, as a full disk: a write fails with EFBIG; "nofile": files it may open) and
"leaves_nothing": a directory that must be empty afterwards (no final or temporary file);
"stdout": a file standard output goes to (/dev/full: a full disk behind a redirection).
Arguments may name {tmp} (an empty directory of the run), {file} (a regular file) and the
CDF files of check-bad-input.py ({good}).
"""

SMALL = ["--hosts=4", "--planes=2", "--hostsPerLeaf=2", "--spines=1", "--messageBytes=4096",
         "--transports=metaroce", "--workloads=allreduce-ring", "--losses=0"]
FABRIC = ["--hosts=4", "--planes=2", "--hostsPerLeaf=2", "--spines=1", "--transports=metaroce",
          "--loss=0", "--messageBytes=4096"]
FLOWS = [a for a in SMALL if not a.startswith("--messageBytes")] + ["--workloads=flows",
                                                                     "--cdfFile={good}"]


def case(program, base, bad, needles, env=None, **limits):
    return (program, base, bad, needles, env, limits)


PROGRAM_CASES = [
    # The switches' attributes across fields (MetaRoceSwitch::GetConfigProblem): the switch
    # aborted when it started.
    case("metaroce-4-plane", SMALL, "--switchAttributes=EcnKmin=500000",
         ["--switchAttributes", "EcnKmin=500000", "Kmax (400000)"]),
    case("metaroce-4-plane", SMALL, "--switchAttributes=EcnKmax=10",
         ["--switchAttributes", "EcnKmax=10", "Kmin (100000)"]),
    case("metaroce-4-plane", SMALL, "--switchAttributes=EcnPmax=2", ["--switchAttributes", "Pmax"]),
    case("metaroce-4-plane", SMALL,
         "--switchAttributes=EcnMarker=ns3::MetaRoceRedEcnMarker[Kmin=10|Kmax=5]",
         ["--switchAttributes", "Kmin (10)", "Kmax (5)"]),
    case("metaroce-4-plane", SMALL,
         "--switchAttributes=BufferAdmission=ns3::MetaRoceDynamicThresholdAdmission[Alpha=0]",
         ["--switchAttributes", "Alpha", "0"]),
    case("metaroce-4-plane", SMALL + ["--transports=rocev2-pfc"],
         "--switchAttributes=PfcXon=200000", ["--switchAttributes", "PfcXon (200000)"]),
    case("metaroce-4-plane", SMALL + ["--transports=rocev2-pfc"],
         "--switchAttributes=BufferSize=1000", ["--switchAttributes", "BufferSize (1000)"]),
    case("metaroce-4-plane", SMALL, "--switchAttributes=PfcEnabled=true;PfcXoff=100",
         ["--switchAttributes", "PfcXoff (100)"]),
    case("metaroce-4-plane", SMALL, "--switchAttributes=BufferSize=100",
         ["--switchAttributes", "BufferSize (100)", "cannot hold one packet"]),
    # The NICs' attributes (MetaRoceNic::GetConfigProblem): a fatal error at the first
    # connection of the later transport, after the first one's rows.
    case("metaroce-4-plane", SMALL + ["--transports=metaroce,rocev2"], "--nicAttributes=Mtu=8192",
         ["--nicAttributes", "Mtu=8192", "RoceV2Config.mtu"]),
    case("metaroce-4-plane", SMALL + ["--transports=metaroce,rocev2"],
         "--nicAttributes=RoceRateControl=ns3::MetaRoceDcqcn[MinRate=200Gbps]",
         ["--nicAttributes", "MinRate=200Gbps", "minRateBps"]),
    case("metaroce-4-plane", SMALL + ["--planes=64"], "--nicAttributes=PathsPerPort=1024",
         ["--nicAttributes", "PathsPerPort=1024", "pathsPerPort"]),
    case("metaroce-4-plane", SMALL + ["--channels=4"], "--nicAttributes=Streams=2",
         ["--nicAttributes", "Streams=2", "4 channels"]),
    case("metaroce-4-plane", SMALL, "--nicAttributes=RtoMin=5ms;RtoMax=1ms",
         ["--nicAttributes", "RtoMin=5ms", "rtoMaxNs"]),
    case("metaroce-4-plane", SMALL, "--hostRate=1bps", ["--hostRate", "1bps", "1 Mb/s"]),
    case("metaroce-fabric", FABRIC, "--rate=1bps", ["--rate=1bps", "1 Mb/s"]),
    case("metaroce-bulk-send", [], "--rate=1bps", ["--rate=1bps", "1 Mb/s"]),
    # Options that would do nothing without another (refused unless some run of a grid uses
    # them).
    case("metaroce-4-plane", SMALL, "--failurePlane=1", ["--failurePlane=1", "--failure"]),
    case("metaroce-4-plane", SMALL + ["--failure=plane"], "--failureIndex=1",
         ["--failureIndex=1", "--failure=spine"]),
    case("metaroce-4-plane", SMALL + ["--failure=spine"], "--failureSpine=1",
         ["--failureSpine=1", "fabric-link"]),
    case("metaroce-4-plane", SMALL, "--failureAt=5us", ["--failureAt=5us", "--failure"]),
    case("metaroce-4-plane", SMALL, "--failureUntil=50us", ["--failureUntil=50us", "--failure"]),
    case("metaroce-4-plane", SMALL, "--cdfFile={good}", ["--cdfFile={good}", "flows"]),
    case("metaroce-4-plane", SMALL, "--load=0.3", ["--load=0.3", "flows"]),
    case("metaroce-4-plane", SMALL, "--flowsPerHost=5", ["--flowsPerHost=5", "flows"]),
    case("metaroce-4-plane", FLOWS, "--messageBytes=4096", ["--messageBytes=4096", "flows"]),
    case("metaroce-4-plane", FLOWS, "--channels=2", ["--channels=2", "flows"]),
    case("metaroce-4-plane", FLOWS, "--repetitions=3", ["--repetitions=3", "flows"]),
    case("metaroce-4-plane", SMALL, "--lossPlane=1", ["--lossPlane=1", "loss"]),
    case("metaroce-4-plane", SMALL, "--cores=8", ["--cores=8", "leaf-spine"]),
    case("metaroce-4-plane", SMALL, "--leavesPerPod=4", ["--leavesPerPod=4", "leaf-spine"]),
    case("metaroce-4-plane", SMALL, "--coreRate=400Gbps", ["--coreRate=400Gbps", "leaf-spine"]),
    case("metaroce-4-plane", SMALL, "--coreDelay=2us", ["--coreDelay=2us", "leaf-spine"]),
    case("metaroce-custom-congestion", [], "--failurePlane=3", ["--failurePlane=3"]),
    case("metaroce-4-plane", SMALL, "--sync=fast", ["--sync", "fast"]),
    # Sizes the machine's memory or the run's limits cannot hold (MetaRoceMemoryEstimate).
    case("metaroce-4-plane", SMALL, "--repetitions=4000000000",
         ["--repetitions=4000000000", "GiB", "memory"]),
    case("metaroce-4-plane", FLOWS, "--flowsPerHost=4000000000",
         ["--flowsPerHost=4000000000", "GiB", "memory"]),
    case("metaroce-4-plane", SMALL + ["--hostsPerLeaf=254", "--spines=4", "--channels=64",
                                      "--messageBytes=4294967295"], "--hosts=64000",
         ["--hosts=64000", "GiB", "memory"]),
    case("metaroce-fabric", ["--hostsPerLeaf=100", "--spines=2", "--planes=1"], "--hosts=16000",
         ["--hosts=16000", "GiB", "memory"]),
    case("metaroce-loopback", ["--rateGbps=10000", "--planes=64", "--transports=metaroce",
                               "--messageBytes=2147483648"], "--messages=1000000",
         ["--messages=1000000", "GiB", "memory"]),
    case("metaroce-loopback", ["--rateGbps=0.001", "--messageBytes=2147483648"],
         "--messages=1000000", ["--messages=1000000", "60 s"]),
    case("metaroce-loopback", [], "--delayNs=2000000", ["--delayNs", "2000000"]),
    case("metaroce-4-plane", SMALL, "--messageBytes=7", ["--messageBytes", "7", "allreduce-ring"]),
    case("metaroce-4-plane", SMALL + ["--workloads=alltoall", "--hosts=16", "--hostsPerLeaf=8"],
         "--messageBytes=31", ["--messageBytes", "31", "alltoall"]),
    case("metaroce-4-plane", SMALL + ["--failure=fabric-link"], "--failureSpine=9",
         ["--failureSpine", "spine 9 of 1"]),
    case("metaroce-4-plane", SMALL + ["--failure=host-link"], "--failureIndex=99",
         ["--failureIndex", "host 99 of 4"]),
    case("metaroce-4-plane", SMALL + ["--hosts=64", "--hostsPerLeaf=32", "--planes=8"],
         "--pcap={tmp}/cap", ["--pcap", "512 capture files", "ulimit"], nofile=256),
    case("metaroce-fabric", FABRIC + ["--pcap={tmp}/cap"], "--pcapSwitches",
         ["--pcap", "capture files", "ulimit"], nofile=64),
    # Times ns-3 cannot hold (64-bit nanoseconds).
    case("metaroce-4-plane", SMALL, "--stopTime=1e30s", ["--stopTime", "1e30s", "292 years"]),
    case("metaroce-4-plane", SMALL, "--throughputInterval=0.0001ns",
         ["--throughputInterval", "0.0001ns", "resolution"]),
    case("metaroce-4-plane", SMALL, "--hostDelay=0.5ns", ["--hostDelay", "0.5ns"]),
    case("metaroce-4-plane", SMALL + ["--failure=plane"], "--failureAt=1e12s",
         ["--failureAt", "1e12s"]),
    case("metaroce-bulk-send", [], "--delay=1e300s", ["--delay", "1e300s"]),
    case("metaroce-fabric", FABRIC, "--stopTime=0s", ["--stopTime", "0s"]),
    # The flow workload's inputs, read before any run.
    case("metaroce-4-plane", FLOWS[:-1], "--cdfFile=/etc", ["--cdfFile", "/etc"]),
    case("metaroce-4-plane", FLOWS, "--load=1e-300", ["--load", "1e-300"]),
    case("metaroce-4-plane", FLOWS, "--load=2", ["--load", "2"]),
    case("metaroce-4-plane", SMALL + ["--workloads=incast,flows"], "--cdfFile=/no/such.cdf",
         ["--cdfFile", "/no/such.cdf"]),
    # Arguments ns-3's CommandLine would read itself (usage text, or an abort).
    case("metaroce-4-plane", SMALL, "--foo=1", ["'--foo=1'", "not an option"]),
    case("metaroce-fabric", FABRIC, "extra", ["'extra'", "not an option"]),
    case("metaroce-fabric", FABRIC, "-x", ["'-x'", "not an option"]),
    case("metaroce-4-plane", SMALL, "--ns3::MetaRoceNic::Mtu=big",
         ["--ns3::MetaRoceNic::Mtu", "'big'"]),
    case("metaroce-fabric", FABRIC, "--ns3::NoSuch::X=1", ["--ns3::NoSuch::X", "no such"]),
    case("metaroce-fabric", FABRIC, "--ns3::MetaRoceNic::Nope=1",
         ["--ns3::MetaRoceNic::Nope", "no such"]),
    case("metaroce-fabric", FABRIC, "--ns3::MetaRoceSwitch::EcnKmin=999999999",
         ["Kmin (999999999)"]),
    case("metaroce-4-plane", SMALL, "--ns3::MetaRoceRedEcnMarker::Kmax=5",
         ["--switchAttributes", "Kmax (5)"]),
    case("metaroce-4-plane", SMALL, "--RngRun=3", ["--RngRun=3", "--run"]),
    case("metaroce-4-plane", SMALL, "--RngSeed=7", ["--RngSeed=7", "--seed"]),
    case("metaroce-4-plane", SMALL, "--SchedulerType=ns3::MapScheduler",
         ["--SchedulerType=ns3::MapScheduler", "--scheduler"]),
    case("metaroce-fabric", FABRIC, "--SchedulerType=ns3::Node",
         ["--SchedulerType", "ns3::Node"]),
    case("metaroce-fabric", FABRIC, "--SimulatorImplementationType=foo",
         ["--SimulatorImplementationType", "foo"]),
    case("metaroce-bulk-send", [], "--ChecksumEnabled=maybe", ["ChecksumEnabled", "maybe"]),
    case("metaroce-bulk-send", [], "--PrintAttributes=ns3::Nope",
         ["--PrintAttributes", "ns3::Nope"]),
    case("metaroce-loopback", [], "--ns3::MetaRoceNic::Mtu=1024",
         ["--ns3::MetaRoceNic::Mtu=1024", "no effect"]),
    case("metaroce-loopback", [], "--transports=tcp", ["--transports", "tcp"]),
    # Result files: a path that cannot be written is refused before anything runs; a write
    # that fails (a full disk: writes past the file-size limit fail) is an error naming the
    # file, and leaves neither the file nor its temporary.
    case("metaroce-4-plane", SMALL, "--output=/no/such/dir/run", ["--output", "/no/such/dir"]),
    case("metaroce-4-plane", SMALL, "--output={file}/run", ["--output", "{file}"]),
    case("metaroce-fabric", FABRIC, "--output={tmp}", ["--output", "{tmp}", "directory"]),
    case("metaroce-loopback", ["--messages=4"], "--output={tmp}",
         ["--output", "{tmp}", "directory"]),
    case("metaroce-4-plane", SMALL, "--output={tmp}/run",
         ["cannot write", "{tmp}/run-allreduce-ring-metaroce-loss0-"], fsize=300,
         leaves_nothing="{tmp}"),
    case("metaroce-fabric", FABRIC, "--output={tmp}/x.csv", ["cannot write", "{tmp}/x.csv"],
         fsize=100, leaves_nothing="{tmp}"),
    case("metaroce-loopback", ["--messages=4", "--loss=0,0.001,0.01,0.02"],
         "--output={tmp}/l.csv", ["cannot write", "{tmp}/l.csv"], fsize=200,
         leaves_nothing="{tmp}"),
    case("metaroce-compliance", ["--scenario=ack-coalescing"], "--report={tmp}/r.json",
         ["cannot write", "{tmp}/r.json"], fsize=50, leaves_nothing="{tmp}"),
    # What a program prints, redirected to a full disk (/dev/full), is an error too.
    case("metaroce-4-plane", SMALL, "--seed=2", ["cannot write standard output"],
         stdout="/dev/full"),
    case("metaroce-fabric", FABRIC, "--seed=2", ["cannot write standard output"],
         stdout="/dev/full"),
    case("metaroce-loopback", ["--messages=2"], "--seed=2", ["cannot write standard output"],
         stdout="/dev/full"),
    case("metaroce-bulk-send", ["--bytes=10000"], "--seed=2", ["cannot write standard output"],
         stdout="/dev/full"),
    case("metaroce-custom-congestion", ["--hosts=4", "--planes=2", "--hostsPerLeaf=2",
                                        "--spines=1", "--messageBytes=4096"],
         "--seed=2", ["cannot write standard output"], stdout="/dev/full"),
    case("metaroce-compliance", ["--scenario=ack-coalescing"], "--list",
         ["cannot write standard output"], stdout="/dev/full"),
    # The compliance runner's arguments.
    case("metaroce-compliance", [], "--report=/no/such/dir/r.json",
         ["cannot write", "/no/such/dir/r.json"]),
    case("metaroce-compliance", [], "--report={tmp}", ["cannot write", "{tmp}"]),
    case("metaroce-compliance", [], "--bogus", ["'--bogus'"]),
    case("metaroce-compliance", [], "--adapter=tcp", ["adapter", "'tcp'"]),
    case("metaroce-compliance", [], "--scenarios=/no/such", ["--scenarios", "/no/such"]),
    case("metaroce-compliance", [], "--scenario=no-such-scenario", ["no-such-scenario"]),
]
