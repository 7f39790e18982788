"""The experiment API: a collective run from Python equals the same run in C++, results as
data frames, sweeps over processes."""

import json
import os
import subprocess

import pandas as pd
import pytest

from metaroce import experiment as mx
from metaroce.errors import MetaRoceError

SHAPE = dict(hosts=4, planes=2, hosts_per_leaf=2, spines=1, message_bytes=256 * 1024)
CPP_SHAPE = ["--hosts=4", "--planes=2", "--hostsPerLeaf=2", "--spines=1",
             "--messageBytes=262144"]


@pytest.mark.parametrize("workload,transport,loss", [
    ("allreduce-ring", "metaroce", 0.01),
    ("alltoall", "rocev2-pfc", 0.0),
])
def test_python_run_equals_cpp_run(example, tmp_path, workload, transport, loss):
    prefix = str(tmp_path / "cpp")
    subprocess.run([example("metaroce-4-plane"), *CPP_SHAPE, f"--workloads={workload}",
                    f"--transports={transport}", f"--losses={loss}", f"--output={prefix}"],
                   check=True, capture_output=True, text=True)
    (cpp_json,) = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    with open(tmp_path / cpp_json) as f:
        cpp = json.load(f)

    r = mx.run(**SHAPE, workload=workload, transport=transport, loss=loss)

    # The simulator is deterministic: the whole document is equal, not just close.
    assert r.document == cpp
    assert r.summary["complete"] is True
    assert r.collective["name"] == workload
    cpp_flows = pd.read_csv(str(tmp_path / cpp_json).replace(".json", "-flows.csv"))
    assert list(r.flows.columns) == list(cpp_flows.columns)
    assert len(r.flows) == len(cpp_flows) > 0
    # The CSV holds 12 significant digits; the data frame has the doubles themselves.
    pd.testing.assert_frame_equal(r.flows, cpp_flows, check_dtype=False, rtol=1e-11)
    cpp_hosts = pd.read_csv(str(tmp_path / cpp_json).replace(".json", "-hosts.csv"))
    pd.testing.assert_frame_equal(r.hosts, cpp_hosts, check_dtype=False, rtol=1e-11)


def test_device_choice_gives_the_same_document():
    """device= picks the links' device by TypeId name (ns-3's own or the module's fast one);
    the results are the same document, and an unknown name is refused naming the field."""
    fast = mx.run(**SHAPE, workload="alltoall", transport="metaroce", loss=0.01)
    stock = mx.run(**SHAPE, workload="alltoall", transport="metaroce", loss=0.01,
                   device="ns3::PointToPointNetDevice")
    assert stock.document == fast.document
    with pytest.raises(MetaRoceError, match="device"):
        mx.config(**SHAPE, device="ns3::CsmaNetDevice")


def test_transports_name_every_baseline():
    names = mx.transports()
    assert list(names)[:2] == ["metaroce", "rocev2"]
    assert {"rocev2-paper", "rocev2-nocc", "rocev2-pfc", "rocev2-meta400"} <= set(names)
    assert "PFC" in names["rocev2-meta400"] and "DCQCN" in names["rocev2"]
    for name in names:
        mx.config(**SHAPE, transport=name, workload="permutation")
    with pytest.raises(MetaRoceError, match="rocev2-meta400"):
        mx.config(**SHAPE, transport="rocev2-dcqcn")


def test_results_tables_and_record():
    r = mx.run(**SHAPE, workload="allreduce-ring", transport="metaroce", loss=0.01,
               throughput_interval="20us")
    assert len(r.hosts) == 4 and r.hosts["delivered_bytes"].sum() == r.summary["bytes_delivered"]
    assert set(r.links["tier"]) == {"host-leaf", "leaf-host", "leaf-spine", "spine-leaf"}
    assert len(r.planes) == 2 and r.drops.get("link-loss", 0) > 0
    assert len(r.throughput) > 0 and r.throughput["delivered_bytes"].sum() > 0
    row = r.record()
    assert row["transport"] == "metaroce" and row["loss"] == 0.01
    assert row["collective_busbw_GBps"] == r.collective["busbw_GBps"] > 0
    assert row["drops"] + row["nic_drops"] == sum(r.drops.values())
    assert row["drops"] >= r.drops["link-loss"]


def test_write_gives_the_cpp_files_and_the_tables_hold_them(tmp_path):
    r = mx.run(**SHAPE, workload="alltoall", throughput_interval="10us")
    r.write(str(tmp_path / "py"))
    files = set(os.listdir(tmp_path))
    assert {"py.json", "py-flows.csv", "py-hosts.csv", "py-links.csv",
            "py-throughput.csv"} <= files
    with open(tmp_path / "py.json") as f:
        assert json.load(f) == r.document
    # Every CSV file is one of the Results' tables (py-host-throughput.csv: host_throughput).
    for name in sorted(files - {"py.json"}):
        table = getattr(r, name[len("py-"):-len(".csv")].replace("-", "_"))
        written = pd.read_csv(tmp_path / name)
        assert len(written) > 0, name
        pd.testing.assert_frame_equal(table, written, check_dtype=False, rtol=1e-11)


def test_grid():
    configs = mx.grid(hosts=4, transport=["metaroce", "rocev2"], loss=[0, 0.01])
    assert len(configs) == 4
    assert configs[1] == {"hosts": 4, "transport": "metaroce", "loss": 0.01}


def test_sweep_in_processes_matches_single_runs():
    configs = mx.grid(**SHAPE, workload="allreduce-ring", transport=["metaroce", "rocev2"],
                      loss=[0.0, 0.01])
    df = mx.sweep(configs, processes=2, progress=False)
    assert len(df) == 4
    assert list(df["transport"]) == ["metaroce", "metaroce", "rocev2", "rocev2"]
    assert list(df["loss"]) == [0.0, 0.01, 0.0, 0.01]
    assert df["complete"].all()
    one = mx.run(**configs[3]).record()
    for key in ("duration_us", "goodput_gbps", "retransmitted", "collective_busbw_GBps"):
        assert df.iloc[3][key] == one[key]


def test_sweep_reports_a_failed_run(tmp_path):
    # A run that fails while it runs: its result file cannot be written (a directory has the
    # JSON's name). Configuration errors never get that far (test_sweep_refuses_before_running).
    (tmp_path / "run.json").mkdir()
    configs = [dict(SHAPE, workload="alltoall"),
               dict(SHAPE, workload="alltoall", output=str(tmp_path / "run"))]
    df = mx.sweep(configs, processes=2, progress=False, raise_errors=False)
    assert pd.isna(df.iloc[0].get("error"))
    assert "cannot write" in df.iloc[1]["error"] and "run.json" in df.iloc[1]["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]  # nothing half-written


def test_sweep_refuses_before_running():
    # A failure naming a spine the fabric does not have: refused before any process starts.
    configs = [dict(SHAPE, workload="alltoall"),
               dict(SHAPE, workload="alltoall", failure="spine", failure_index=7)]
    with pytest.raises(mx.ConfigError, match="--failureIndex: spine 7 of"):
        mx.sweep(configs, processes=2, progress=False)


def test_sweep_reports_a_run_whose_process_dies(monkeypatch):
    def die(**fields):
        os._exit(3)

    monkeypatch.setattr(mx, "run", die)
    with pytest.raises(MetaRoceError, match="exit code 3"):
        mx.sweep([dict(SHAPE, workload="alltoall")], processes=1, progress=False)


def test_nic_attributes_are_the_engine_tables_and_reach_the_run():
    from metaroce import objects
    nic = {a["name"]: a for a in objects.attributes("ns3::MetaRoceNic")}
    # Engine tunables that only the table makes attributes, with the engine's defaults.
    assert nic["RtoMin"]["default"] == "+60000ns"
    assert nic["MaxRetransmissions"]["default"] == "32"
    assert "spec 10.3" in nic["RoceRto"]["help"]
    dcqcn = {a["name"]: a for a in objects.attributes("ns3::MetaRoceDcqcn")}
    assert dcqcn["CnpInterval"]["default"] == "+50000ns"
    assert dcqcn["Variant"]["default"] == "nic"
    assert dcqcn["MinRate"]["default"] == "0bps" and "variant" in dcqcn["MinRate"]["help"]
    assert "spec 7.4" in nic["MaxRetransmissions"]["help"]

    r = mx.run(**SHAPE, workload="allreduce-ring", nic={"Mtu": 2048, "RtoMin": "30us"},
               nic_attributes="FlowsPerPort=4")
    assert r.document["config"]["nic_attributes"] == "FlowsPerPort=4;Mtu=2048;RtoMin=30us"
    assert r.summary["complete"] is True
    # 2 KiB segments: twice the data packets of the default 4 KiB MTU.
    default = mx.run(**SHAPE, workload="allreduce-ring", nic_attributes="FlowsPerPort=4")
    assert r.summary["data_packets"] == 2 * default.summary["data_packets"]


def test_bad_nic_attribute_is_refused_with_its_name():
    with pytest.raises(MetaRoceError, match="MaxTailProbes"):
        mx.config(**SHAPE, nic={"MaxTailProbes": 65})
    with pytest.raises(MetaRoceError, match="no attribute 'NoSuch'"):
        mx.config(**SHAPE, nic={"NoSuch": 1})
