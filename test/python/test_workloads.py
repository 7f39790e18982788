"""The workloads of issue 57 from Python: the new collectives, alltoallv from a matrix file or
a Zipf router, stragglers; the same options as the C++ command line, the same documents."""

import json
import os
import subprocess

import pytest

from metaroce import experiment as mx
from metaroce.errors import ConfigError

SHAPE = dict(hosts=4, planes=2, hosts_per_leaf=4, spines=1, message_bytes=256 * 1024)
CPP_SHAPE = ["--hosts=4", "--planes=2", "--hostsPerLeaf=4", "--spines=1", "--transports=metaroce",
             "--losses=0"]


@pytest.mark.parametrize("workload", ["allgather-ring", "reducescatter-ring", "allreduce-tree"])
def test_new_collectives_complete_with_nccl_tests_bus_bandwidth(workload):
    r = mx.run(**SHAPE, workload=workload)
    c = r.collective
    assert c["name"] == workload and c["complete"] is True
    assert c["bytes_sent"] == c["bytes_expected"] > 0
    factor = 2 * 3 / 4 if workload == "allreduce-tree" else 3 / 4
    assert c["busbw_GBps"] == pytest.approx(c["algbw_GBps"] * factor)


def test_alltoallv_skew_from_python_equals_the_command_line(example, tmp_path):
    prefix = str(tmp_path / "cpp")
    subprocess.run([example("metaroce-4-plane"), *CPP_SHAPE, "--messageBytes=262144",
                    "--workloads=alltoallv", "--skew=zipf:1.2", "--topK=2", "--tokenBytes=4096",
                    f"--output={prefix}"], check=True, capture_output=True, text=True)
    (name,) = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    with open(tmp_path / name) as f:
        cpp = json.load(f)
    r = mx.run(**SHAPE, workload="alltoallv", skew="zipf:1.2", top_k=2, token_bytes=4096)
    assert r.document == cpp
    assert r.config["skew"] == "zipf:1.2"
    c = r.collective
    assert len(c["rank_finish_us"]) == 4
    assert c["slowest_rank_us"] == max(c["rank_finish_us"])
    assert c["time_us"] >= c["bound_us"] > 0


def test_alltoallv_matrix_file_and_its_errors(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("0 4096 0 0\n0 0 8192 0\n0 0 0 4096\n65536 0 0 0\n")
    fields = {k: v for k, v in SHAPE.items() if k != "message_bytes"}
    r = mx.run(**fields, workload="alltoallv", traffic_matrix=path)
    assert r.collective["bytes_sent"] == 4096 + 8192 + 4096 + 65536
    assert r.collective["busiest_rank_bytes"] == 65536
    path.write_text("0 1 1 1\n1 0 1 1\n")
    with pytest.raises(ConfigError, match="2 rows, not 4") as e:
        mx.run(**fields, workload="alltoallv", traffic_matrix=path)
    assert e.value.field == "traffic_matrix"


def test_stragglers_are_seeded_and_reported():
    a = mx.run(**SHAPE, workload="allgather-ring", stragglers=1, straggler_delay="20us")
    b = mx.run(**SHAPE, workload="allgather-ring", stragglers=1, straggler_delay="20us")
    assert a.document == b.document
    c = a.collective
    assert len(c["straggler_ranks"]) == 1 and c["straggler_delay_us"] == 20
    assert c["time_after_last_start_us"] == pytest.approx(c["time_us"] - 20)
    on_time = mx.run(**SHAPE, workload="allgather-ring").collective["time_us"]
    assert c["time_us"] > on_time + 15


def test_jobs_sharing_a_fabric_give_a_data_frame_per_job():
    r = mx.run(hosts=8, planes=2, hosts_per_leaf=4, spines=1, message_bytes=256 * 1024,
               workload="allgather-ring", jobs=2, placement="spread")
    assert list(r.jobs["job"]) == [0, 1]
    assert list(r.jobs["hosts"][1]) == [1, 3, 5, 7]
    assert (r.jobs["slowdown"] > 1).all()
    assert (r.jobs["alone_time_us"] > 0).all()
    assert mx.run(**SHAPE, workload="allgather-ring").jobs is None
    with pytest.raises(ConfigError, match="do not split") as e:
        mx.run(**SHAPE, workload="allgather-ring", jobs=3)
    assert e.value.field == "jobs"


def test_rail_topology_from_python_equals_the_command_line(example, tmp_path):
    prefix = str(tmp_path / "cpp")
    subprocess.run([example("metaroce-4-rail"), "--hosts=8", "--railGpus=4", "--hostsPerLeaf=1",
                    "--spines=1", "--messageBytes=262144", "--workloads=alltoall",
                    "--transports=metaroce", "--losses=0", f"--output={prefix}"],
                   check=True, capture_output=True, text=True)
    (name,) = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    with open(tmp_path / name) as f:
        cpp = json.load(f)
    r = mx.run(topology="rail", hosts=8, rail_gpus=4, planes=1, hosts_per_leaf=1, spines=1,
               message_bytes=262144, workload="alltoall")
    assert r.document == cpp
    assert r.config["rail_gpus"] == 4 and r.collective["complete"] is True
    with pytest.raises(ConfigError, match="whole servers") as e:
        mx.run(topology="rail", hosts=6, rail_gpus=4, planes=1, workload="alltoall")
    assert e.value.field == "rail_gpus"


def test_schedule_gives_a_row_per_operation(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({
        "format": "metaroce-schedule/1", "iterations": 2,
        "groups": [{"name": "tp", "ranks": [0, 1, 2, 3],
                    "ops": [{"compute": "10us"},
                            {"collective": "allreduce-ring", "bytes": 65536}]}]}))
    r = mx.run(**SHAPE, workload="schedule", schedule=path)
    assert r.summary["complete"] is True
    assert list(r.schedule["kind"]) == ["compute", "allreduce-ring"] * 2
    assert (r.schedule["start_us"].iloc[1:].values == r.schedule["end_us"].iloc[:-1].values).all()
    path.write_text('{"format": "metaroce-schedule/1", "groups": [{"name": "tp", '
                    '"ranks": [0, 9], "ops": [{"compute": "1us"}]}]}')
    with pytest.raises(ConfigError, match=r"groups\[0\]\.ranks\[1\]") as e:
        mx.run(**SHAPE, workload="schedule", schedule=path)
    assert e.value.field == "schedule"


def test_qp_per_flow_from_python_equals_the_command_line(example, tmp_path):
    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("1000 0.5\n100000 0.9\n1000000 1\n")
    prefix = str(tmp_path / "cpp")
    subprocess.run([example("metaroce-4-plane"), *CPP_SHAPE[:-2], "--transports=rocev2-pfc",
                    "--losses=0", "--workloads=flows", f"--cdfFile={cdf}", "--flowsPerHost=10",
                    "--load=0.5", "--qpPerFlow=1", f"--output={prefix}"],
                   check=True, capture_output=True, text=True)
    (name,) = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    with open(tmp_path / name) as f:
        cpp = json.load(f)
    flows = dict({k: v for k, v in SHAPE.items() if k != "message_bytes"}, workload="flows", transport="rocev2-pfc", cdf_file=str(cdf),
                 flows_per_host=10, load=0.5)
    r = mx.run(**flows, qp_per_flow=True)
    # The program's own default buffer (unused by flows) is not the configuration's.
    cpp["config"]["message_bytes"] = r.config["message_bytes"]
    assert r.document == cpp
    assert r.config["qp_per_flow"] is True and r.summary["complete"] is True
    assert "qp_per_flow" not in mx.run(**flows).config  # the default: one per host pair
    with pytest.raises(ConfigError, match="qpPerFlow"):
        mx.run(**flows, qp_per_flow="yes")
