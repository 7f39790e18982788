"""The experiment scripts of doc/results.md run (reduced with --quick and smaller options) and
write the files they promise."""

import ast
import os
import subprocess
import sys

import pandas as pd

from conftest import ROOT


def run_experiment(name, out, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", "experiments", name),
                           "--quick", "--processes", "2", "--out", str(out), *args],
                          capture_output=True, text=True, env=env)


def test_loss_seeds(tmp_path):
    out = run_experiment("loss_seeds.py", tmp_path, "--seeds", "2",
                         "--workloads", "allreduce-ring", "--message-bytes", "262144")
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "loss-seeds-quick.csv")
    assert sorted(df["seed"].unique()) == [1, 2]
    assert sorted(df["loss"].unique()) == [0.0, 0.0025]
    assert "MetaRoCE kept, mean" in (tmp_path / "loss-seeds-quick.md").read_text()


def test_lossless_grid(tmp_path):
    out = run_experiment("lossless_grid.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "lossless-grid-quick.csv")
    assert sorted(df["planes"].unique()) == [1, 8]
    assert set(df["nic_attributes"].fillna("")) == {"", "QuietReorderFloorRttQuarters=1",
                                                    "SpuriousWindowSrttHalves=0"}
    assert df["complete"].all() and (df["drops"] == 0).all()
    table = (tmp_path / "lossless-grid-quick.md").read_text()
    assert "MetaRoCE" in table and "RoCEv2 (DCQCN)" in table
    assert "MetaRoCE, one reorder floor (1/4 min RTT)" in table
    assert "MetaRoCE, window as measured after copies" in table


def test_lossless_grid_nonblocking(tmp_path):
    out = run_experiment("lossless_grid.py", tmp_path, "--fabric", "nonblocking")
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "lossless-grid-nonblocking-quick.csv")
    # 16 hosts on four leaves of 4, with 4 spines of 100 Gb/s: nothing oversubscribed.
    assert set(df["hosts_per_leaf"]) == {4} and set(df["fabric_rate"]) == {"100Gbps"}
    assert df["complete"].all() and (df["drops"] == 0).all()
    assert "non-blocking" in (tmp_path / "lossless-grid-nonblocking-quick.md").read_text()
    bad = run_experiment("lossless_grid.py", tmp_path, "--fabric", "flat")
    assert bad.returncode != 0 and "--fabric" in bad.stderr


def test_ack_repeats(tmp_path):
    out = run_experiment("ack_repeats.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "ack-repeats-quick.csv")
    assert df["complete"].all()
    off = df["nic_attributes"] == "AckRepeats=0"
    # At 1% per path some ACK is lost in every run; with repeats, some repeat stands in for it.
    # Without, the hits are the waiting paths an ACK covers (spec 4.3), fewer.
    lossy = df["loss"] > 0
    assert (df[~off & lossy]["ack_repeat_hits"] > 0).all()
    assert df[~off & lossy]["ack_repeat_hits"].sum() > df[off & lossy]["ack_repeat_hits"].sum()


def test_tail_markers(tmp_path):
    out = run_experiment("tail_markers.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "tail-markers-quick.csv")
    assert df["complete"].all()
    off = df["nic_attributes"] == "TailMarkers=false"
    assert (df[off]["tail_markers"] == 0).all()
    # Every collective ends its connections with a tail, each with a marker behind it.
    assert (df[~off]["tail_markers"] > 0).all()
    assert (df[df["loss"] == 0]["retransmitted"] == 0).all()
    table = (tmp_path / "tail-markers-quick.md").read_text()
    assert "tail markers" in table


def test_tail_recovery(tmp_path):
    out = run_experiment("tail_recovery.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "tail-recovery-quick.csv")
    assert df["complete"].all()
    assert len(df["nic_attributes"].fillna("").unique()) == 4
    # Lossless, no variant copies a packet; markers follow the tails in every variant.
    assert (df[df["loss"] == 0]["retransmitted"] == 0).all()
    assert (df["tail_markers"] > 0).all()
    assert "one copy at the tail" in (tmp_path / "tail-recovery-quick.md").read_text()


def incast_variants():
    """The variants incast.py promises, read from the script's source so the test follows it."""
    with open(os.path.join(ROOT, "examples", "experiments", "incast.py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "VARIANTS":
            return ast.literal_eval(node.value)
    raise AssertionError("incast.py defines no VARIANTS")


def test_incast(tmp_path):
    out = run_experiment("incast.py", tmp_path, "--senders", "3", "--message-bytes", "262144")
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "incast-quick.csv")
    assert list(df["senders"].unique()) == [3]
    assert list(df["variant"]) == [label for label, _, _ in incast_variants()]
    assert df["complete"].all()
    assert (df["jain"] > 0).all() and (df["jain"] <= 1).all()
    assert os.path.getsize(tmp_path / "incast-quick.png") > 0


def test_loss_sweep_sizes_and_transports(tmp_path):
    out = run_experiment("loss_sweep.py", tmp_path, "--transports", "metaroce",
                         "--workloads", "alltoall", "--message-bytes", "262144")
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "loss-sweep-0.25mib-quick.csv")
    assert set(df["transport"]) == {"metaroce"} and df["complete"].all()
    table = (tmp_path / "loss-sweep-0.25mib-quick.md").read_text()
    assert "MetaRoCE kept" in table and "RoCEv2 kept" not in table
    bad = run_experiment("loss_sweep.py", tmp_path, "--transports", "metaroce,iwarp")
    assert bad.returncode != 0 and "unknown iwarp" in bad.stderr


def test_irn_loss(tmp_path):
    out = run_experiment("irn_loss.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "irn-loss-quick.csv")
    assert df["complete"].all() and sorted(df["loss"].unique()) == [0.0, 0.001]
    lossy = df[df["loss"] > 0].set_index("transport")
    # Go-back-N resends a window's worth per loss, selective recovery about one packet.
    assert lossy.loc["rocev2-nocc", "retransmitted"] > 5 * lossy.loc["metaroce", "retransmitted"]
    assert "model (%)" in (tmp_path / "irn-loss-quick.md").read_text()
    bad = run_experiment("irn_loss.py", tmp_path, "--transports", "tcp")
    assert bad.returncode != 0 and "--transports" in bad.stderr


def test_dcqcn_incast(tmp_path):
    out = run_experiment("dcqcn_incast.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "dcqcn-incast-quick.csv").set_index("variant")
    assert (df["senders"] == 2).all() and (df["drops"] == 0).all()
    # PFC holds the incast without loss; the queue is sampled (not empty) in every variant.
    assert (df["pauses"] > 0).all() and (df["queue_mean_kb"] > 0).all()
    assert df.loc["PFC alone (no DCQCN)", "jain"] > 0.99
    bad = run_experiment("dcqcn_incast.py", tmp_path, "--rate", "fast")
    assert bad.returncode != 0 and "--rate" in bad.stderr


def test_websearch_fct(tmp_path):
    out = run_experiment("websearch_fct.py", tmp_path, "--loads", "0.3")
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "websearch-fct-quick.csv")
    assert df["complete"].all() and len(df) == 6 and (df["flows"] == 8 * 20).all()
    # A queue pair per flow: no flow waits behind an earlier one of its host pair.
    per_flow = df[df["variant"].str.endswith("QP per flow")]
    assert len(per_flow) == 2 and (per_flow["short_slow_behind"] == 0).all()
    buckets = pd.read_csv(tmp_path / "websearch-fct-quick-buckets.csv")
    assert (buckets["p50"] >= 1).all() and buckets["flows"].sum() == 6 * 8 * 20
    bad = run_experiment("websearch_fct.py", tmp_path, "--loads", "1.5")
    assert bad.returncode != 0 and "--loads" in bad.stderr


def test_htsim_compare_our_side(tmp_path):
    out = run_experiment("htsim_compare.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "htsim-compare-quick.csv")
    ours = df[df["simulator"] == "MetaRoCE model"]
    # Two workloads: MetaRoCE lossless and at 1% per path, RoCEv2 on one path.
    assert len(ours) == 6 and (ours["flows"] == "all").all() and (df["over_ideal"] >= 1).all()
    for workload in ("permutation", "alltoall"):
        w = ours[ours["workload"] == workload].set_index("transport")["time_us"]
        assert w["MetaRoCE (sprayed), 1% loss per path"] > w["MetaRoCE (sprayed)"]
    # Random hashing of 16 flows onto 8 spines: the busiest link carries 2 to 4 flows.
    theory = df[df["simulator"] == "theory"]["over_ideal"].iloc[0]
    assert 2 < theory < 4
    for option in ("--htsim", "--uec", "--uec-loss"):
        bad = run_experiment("htsim_compare.py", tmp_path, option, str(tmp_path))
        assert bad.returncode != 0 and option in bad.stderr


def test_hpcc_compare_our_side(tmp_path):
    out = run_experiment("hpcc_compare.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "hpcc-compare-quick.csv")
    assert (df["simulator"] == "model").all() and df["complete"].all()
    assert set(df["scenario"]) == {"incast", "permutation", "websearch"}
    every = df[df["size"] == "all"]
    assert len(every) == 16 and (every["p50_us"] <= every["p99_us"]).all()
    # The flows are drawn before the run: every variant completes the same ones.
    web = every[every["scenario"] == "websearch"]
    assert (web["count"] == 32 * 4).all()
    # Only the web search runs a variant on a queue pair per host pair, the only one in which
    # a flow can wait behind an earlier flow of its pair.
    pair = every[every["variant"] == "QP per host pair (model default)"]
    assert list(pair["scenario"]) == ["websearch"]
    assert (every[every["variant"] != "QP per host pair (model default)"]["behind"] == "-").all()
    assert (every["variant"] == "ACKs and CNPs first at switches (model default)").sum() == 3
    # The permutation's 8 flows per leaf share one 400 Gb/s uplink: none finishes before
    # its 256 KiB at 50 Gb/s.
    perm = every[every["scenario"] == "permutation"]
    assert (perm["p50_us"] > 256 * 1024 * 8 / 50e3).all()
    bad = run_experiment("hpcc_compare.py", tmp_path, "--hpcc", str(tmp_path))
    assert bad.returncode != 0 and "--hpcc" in bad.stderr
    bad = run_experiment("hpcc_compare.py", tmp_path, "--scenarios", "alltoall")
    assert bad.returncode != 0 and "--scenarios" in bad.stderr
    bad = run_experiment("hpcc_compare.py", tmp_path, "--draws", "51")
    assert bad.returncode != 0 and "--draws" in bad.stderr


def test_hpcc_compare_draws(tmp_path):
    out = run_experiment("hpcc_compare.py", tmp_path, "--scenarios", "incast", "--draws", "2")
    assert out.returncode == 0, out.stderr
    summary = pd.read_csv(tmp_path / "hpcc-compare-quick-draws.csv")
    # Two variants of ours (aligned, ACKs first), each over draws 1 and 2 of the marks.
    assert len(summary) == 2 and (summary["draws"] == 2).all()
    assert (summary["deepest_min"] <= summary["deepest_max"]).all()
    assert (summary["deepest_min"] > 0).all()


def test_spray_bound(tmp_path):
    out = run_experiment("spray_bound.py", tmp_path)
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "spray-bound-quick.csv")
    hashed = df[df["routing"] == "hashed"]["x_ideal"]
    by_destination = df[df["routing"] == "by destination"]["x_ideal"]
    assert len(hashed) == 2 and len(by_destination) == 1
    # Routing by destination meets no collision: only the last packets' three hops are late.
    assert 1.0 < by_destination.iloc[0] < 1.03
    # Random uplinks collide: every seed ends later than routing by destination.
    assert (hashed > by_destination.iloc[0] + 0.02).all()
    bad = run_experiment("spray_bound.py", tmp_path, "--fabrics", "30x8x8x4")
    assert bad.returncode != 0 and "multiple of hosts per leaf" in bad.stderr
    bad = run_experiment("spray_bound.py", tmp_path, "--fabrics", "32x8")
    assert bad.returncode != 0 and "--fabrics" in bad.stderr
