"""Bad parameters raise Python exceptions carrying the C++ message; the process survives."""

import subprocess

import pytest

import metaroce
from metaroce import experiment as mx


def test_fabric_abort_becomes_fatal_error_with_ns3_message():
    with pytest.raises(metaroce.FatalError) as info:
        metaroce.Fabric(hosts=1)
    assert str(info.value) == "MetaRoceFabricHelper: need at least 2 hosts, got 1"
    assert info.value.condition == "!problem.empty()"  # MetaRoceFabricShape::Validate
    assert info.value.file.endswith("metaroce-fabric-shape.cc")
    # The interpreter and the bindings still work.
    assert metaroce.Fabric(hosts=2, hosts_per_leaf=2, spines=0).hosts == 2


def test_leaves_without_spines():
    with pytest.raises(metaroce.FatalError, match="cannot reach each other without spines"):
        metaroce.Fabric(hosts=4, hosts_per_leaf=2, spines=0)


def test_attribute_errors_name_type_attribute_and_value():
    with pytest.raises(metaroce.InvalidParameter, match="ns3::MetaRoceNic has no attribute 'Mtux'"):
        metaroce.Fabric(hosts=2, hosts_per_leaf=2, spines=0, nic={"Mtux": 4096})
    with pytest.raises(metaroce.InvalidParameter,
                       match=r"ns3::MetaRoceNic::Mtu: invalid value 'big'.*not properly formatted"):
        metaroce.Fabric(hosts=2, hosts_per_leaf=2, spines=0, nic={"Mtu": "big"})
    with pytest.raises(ValueError):  # InvalidParameter is a ValueError
        metaroce.create("ns3::NoSuchType")


def test_cross_attribute_check_at_start_of_run():
    f = metaroce.Fabric(hosts=2, hosts_per_leaf=2, spines=0,
                        switch={"EcnKmin": 200000, "EcnKmax": 1000})
    qa, _ = f.connect(0, 1)
    qa.PostWrite(0, 10000)
    with pytest.raises(metaroce.FatalError,
                       match=r"^MetaRoceRedEcnMarker: Kmin \(200000\) must not exceed Kmax"):
        metaroce.run()


def test_engine_exception_keeps_its_message():
    with pytest.raises(metaroce.InvalidParameter) as info:
        metaroce.transport("tcp")
    assert str(info.value) == "unknown transport 'tcp' (metaroce or rocev2)"


def test_bad_time_and_rate():
    with pytest.raises(metaroce.InvalidParameter, match="Can't Parse Time 3 parsecs"):
        metaroce.time("3 parsecs")
    with pytest.raises(metaroce.InvalidParameter, match="invalid data rate 'fast'"):
        metaroce.Fabric(hosts=2, hosts_per_leaf=2, spines=0, host_rate="fast")


@pytest.mark.parametrize("cpp_option,fields", [
    ("--hosts=1", {"hosts": 1}),
    ("--transports=tcp", {"transport": "tcp"}),
    ("--hostRate=fast", {"host_rate": "fast"}),
    ("--failure=spine", {"failure": "spine", "failure_index": 9}),
])
def test_experiment_error_is_the_cpp_message(example, cpp_option, fields):
    # The same bad parameter given to the C++ example: the Python exception says what it says.
    args = [example("metaroce-4-plane"), "--hosts=4", "--planes=2", "--hostsPerLeaf=2",
            "--spines=1", "--messageBytes=4096", "--transports=metaroce",
            "--workloads=allreduce-ring", "--losses=0", cpp_option]
    if "failure_index" in fields:
        args += ["--failureIndex=9"]
    cpp = subprocess.run(args, capture_output=True, text=True)
    assert cpp.returncode != 0
    with pytest.raises(metaroce.InvalidParameter) as info:
        mx.run({**dict(hosts=4, planes=2, hosts_per_leaf=2, spines=1, message_bytes=4096),
                **fields})
    message = str(info.value)
    assert message.startswith("--") and message in cpp.stderr, (message, cpp.stderr)


def test_unknown_config_field():
    with pytest.raises(metaroce.InvalidParameter, match="no field 'hostz'"):
        mx.config(hostz=3)
    with pytest.raises(metaroce.InvalidParameter, match="hosts"):
        mx.config(hosts="many")


# Bad input through the Python API (doc/reliability.md, "Bad input"): each is refused before
# anything runs, as InvalidParameter whose message names the field, as the C++ examples do.
@pytest.mark.parametrize("fields,needle", [
    ({"seed": 0}, "--seed"),
    ({"message_bytes": -1}, "messageBytes"),
    ({"message_bytes": 0}, "--messageBytes"),
    ({"message_bytes": 2**32}, "--messageBytes"),
    ({"transport": "rocev2", "message_bytes": 3 * 2**30}, "--messageBytes"),
    ({"planes": 65}, "--planes"),
    ({"hosts": 2.5}, "hosts"),
    ({"hosts": "four"}, "hosts"),
    ({"host_delay": "0s"}, "--hostDelay"),
    ({"fabric_delay": "-1us"}, "--fabricDelay"),
    ({"channels": 5000, "message_bytes": 1 << 20}, "--channels"),
    ({"spines": 0}, "--spines"),
    ({"loss": 1.0}, "--loss"),
    ({"nic_attributes": "RtoMin=5s"}, "--nicAttributes"),
    ({"nic_attributes": "Mtu=4 096"}, "--nicAttributes"),
    ({"failure": "plane", "failure_at": "2s"}, "--failureAt"),
    ({"no_such_field": 1}, "no_such_field"),
])
def test_bad_experiment_field_is_refused(fields, needle):
    base = dict(hosts=4, planes=2, hosts_per_leaf=2, spines=1, message_bytes=4096)
    with pytest.raises(metaroce.InvalidParameter) as info:
        mx.run({**base, **fields})
    assert needle in str(info.value), str(info.value)
