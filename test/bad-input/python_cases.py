"""Bad input through the Python experiment API (bindings/python/metaroce/experiment.py,
doc/python.md "Errors"): each call must raise metaroce.ConfigError, before anything runs, whose
`field` is the one given and whose one-line message contains the substrings given; the same
process then runs a good experiment. check-bad-input.py plays them in one process of the
project's virtualenv (python-bad-input.py); test/python/test_bad_config.py runs them as pytest
cases.

Each case is (function of metaroce.experiment, keyword arguments, field, substrings). A field
value Numpy("float64", 4) stands for numpy.float64(4) (this file is read without numpy too).
"""


class Numpy:
    """A numpy scalar, made where numpy is there: Numpy("int64", 3) -> numpy.int64(3)."""

    def __init__(self, type_name, value):
        self.type_name = type_name
        self.value = value

    def make(self):
        import numpy
        return getattr(numpy, self.type_name)(self.value)

    def __repr__(self):
        return f"numpy.{self.type_name}({self.value!r})"


SHAPE = dict(hosts=4, planes=2, hosts_per_leaf=2, spines=1, message_bytes=4096)
NAN = float("nan")
INF = float("inf")


def run(field, value, needles, **more):
    """mx.run(SHAPE with field=value) refused naming `field`."""
    return ("run", dict(SHAPE, **{field: value}, **more), field, needles)


PYTHON_CASES = [
    # Types: what cppyy would convert silently (16.0 -> 16, True -> 1) or refuse with a
    # message that names no field.
    run("hosts", "four", ["--hosts", "'four'", "str"]),
    run("hosts", "4", ["--hosts", "'4'"]),
    run("hosts", 4.0, ["--hosts", "4.0", "float"]),
    run("hosts", True, ["--hosts", "True", "bool"]),
    run("hosts", None, ["--hosts", "None"]),
    run("hosts", Numpy("float64", 4), ["--hosts", "float64"]),
    run("planes", [2], ["--planes", "[2]"]),
    run("loss", "0.1", ["--loss", "'0.1'"]),
    run("loss", True, ["--loss", "True"]),
    run("loss", NAN, ["--loss", "nan", "finite"]),
    run("loss", INF, ["--loss", "inf", "finite"]),
    run("progress", 1, ["--progress", "1", "True or False"]),
    run("host_rate", 100, ["--hostRate", "100", "string"]),
    run("stop_time", 0.001, ["--stopTime", "0.001", "string"]),
    run("topology", b"leaf-spine", ["--topology", "bytes"]),
    run("output", "run\0x", ["--output", "NUL"]),
    # Ranges of the field's type.
    run("hosts", -1, ["--hosts", "-1", "[0, 4294967295]"]),
    run("hosts", 2**32, ["--hosts", "4294967296"]),
    run("loss_plane", 2**31, ["--lossPlane", "2147483648"], loss=0.01),
    run("message_bytes", 2**64, ["--messageBytes", "18446744073709551616"]),
    run("message_bytes", -5, ["--messageBytes", "-5"]),
    # Values C++ refuses (MetaRoceExperimentConfig::Validate), with the C++ message.
    run("seed", 0, ["--seed", "0"]),
    run("seed", Numpy("int64", 0), ["--seed", "0"]),
    run("hosts", 1, ["--hosts", "1"]),
    run("planes", 65, ["--planes", "65"]),
    run("loss", 1.0, ["--loss", "1.0"]),
    run("loss", -0.1, ["--loss", "-0.1"]),
    run("host_delay", "0s", ["--hostDelay", "0s"]),
    run("stop_time", "1e30s", ["--stopTime", "1e30s", "292 years"]),
    run("throughput_interval", "1e-12s", ["--throughputInterval", "1e-12s"]),
    run("transport", "tcp", ["--transport", "'tcp'"]),
    run("workload", "ring", ["ring"]),
    run("message_bytes", 7, ["--messageBytes", "7"]),
    run("channels", 5000, ["--channels", "5000"]),
    run("repetitions", 4000000000, ["--repetitions=4000000000", "memory"]),
    run("output", "/no/such/dir/run", ["--output", "/no/such/dir"]),
    run("nic_attributes", "Mtu=big", ["--nicAttributes", "'big'"]),
    run("nic_attributes", "RtoMin=5ms;RtoMax=1ms", ["--nicAttributes", "rtoMaxNs"]),
    run("switch_attributes", "EcnKmin=500000", ["--switchAttributes", "Kmin (500000)"]),
    run("failure_index", 9, ["--failureIndex", "spine 9 of 1"], failure="spine"),
    # Fields the run would not use.
    run("failure_plane", 1, ["--failurePlane=1", "--failure"]),
    run("cdf_file", "sizes.cdf", ["--cdfFile=sizes.cdf", "flows"]),
    run("loss_plane", 1, ["--lossPlane=1", "loss"]),
    run("cores", 8, ["--cores=8", "leaf-spine"]),
    # The workloads of issue 57.
    run("workload", "alltoallv", ["--workload", "--trafficMatrix", "--skew"]),
    run("traffic_matrix", "/no/such.txt", ["--trafficMatrix", "/no/such.txt"],
        workload="alltoallv"),
    run("skew", "zipf:x", ["--skew", "'zipf:x'"], workload="alltoallv"),
    run("top_k", 0, ["--topK", "0"], workload="alltoallv", skew="zipf:1"),
    run("top_k", 3, ["--topK=3", "--skew"]),
    run("tree_chunk_bytes", 0, ["--treeChunkBytes", "0"], workload="allreduce-tree"),
    run("stragglers", 5, ["--stragglers", "5 of 4"]),
    run("straggler_delay", "5us", ["--stragglerDelay=5us", "--stragglers"]),
    run("straggler_delay", "soon", ["--stragglerDelay", "'soon'"], stragglers=1),
    run("jobs", 3, ["--jobs", "3 jobs"]),
    run("placement", "tight", ["--placement", "'tight'"], jobs=2),
    run("placement", "spread", ["--placement=spread", "--jobs"]),
    # Names, and the nic=/switch= dictionaries.
    ("run", dict(SHAPE, hostz=4), "hostz", ["'hostz'"]),
    ("run", dict(SHAPE, nic={"Mtux": 1024}), "nic_attributes", ["Mtux"]),
    ("run", dict(SHAPE, nic="Mtu=1024"), "nic_attributes", ["dict", "str"]),
    ("run", dict(SHAPE, switch={"EcnKmax": 10}), "switch_attributes", ["Kmax (10)"]),
    ("run", dict(base=[1, 2]), "base", ["base", "list"]),
    ("config", dict(SHAPE, planes=0), "planes", ["--planes"]),
    # grid() and sweep().
    ("grid", dict(hosts=[]), "hosts", ["hosts=[]", "empty"]),
    ("grid", dict(hostz=[4, 8]), "hostz", ["'hostz'"]),
    ("sweep", dict(configs=[SHAPE], processes=0, progress=False), "processes",
     ["processes=0"]),
    ("sweep", dict(configs=[SHAPE], processes=True, progress=False), "processes",
     ["processes=True"]),
    ("sweep", dict(configs=[SHAPE], progress="no"), "progress", ["progress='no'"]),
    ("sweep", dict(configs=[], progress=False), "configs", ["no configuration"]),
    ("sweep", dict(configs=[SHAPE, "hosts=4"], progress=False), "configs", ["run 2 of 2", "str"]),
    ("sweep", dict(configs=[SHAPE, dict(SHAPE, hosts=1)], progress=False), "hosts",
     ["run 2 of 2", "--hosts"]),
    ("sweep", dict(configs=[dict(SHAPE, loss_plane=1), dict(SHAPE, loss_plane=1, loss=0)],
                   progress=False), "loss_plane", ["--lossPlane=1", "every run"]),
]
