"""The Python examples run (on a small fabric) and write what they promise."""

import os
import subprocess
import sys

import pandas as pd

from conftest import ROOT

SMALL = ["--hosts", "4", "--planes", "2", "--hosts-per-leaf", "2", "--spines", "1",
         "--message-bytes", "65536", "--processes", "2"]


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", name),
                           *SMALL, *args], capture_output=True, text=True, env=env)


def test_8_plane_example(tmp_path):
    out = run_example("metaroce_8_plane.py", "--losses", "0,0.01", "--csv",
                      str(tmp_path / "t.csv"), "--plot", str(tmp_path / "t.png"))
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "t.csv")
    assert len(df) == 2 * 3 * 2  # workloads x transports x losses
    assert df["complete"].all()
    assert "allreduce-ring" in out.stdout and "kept_percent" in out.stdout
    assert os.path.getsize(tmp_path / "t.png") > 0


def test_loss_sweep_example(tmp_path):
    out = run_example("loss_sweep.py", "--losses", "0,0.01", "--transports", "metaroce,rocev2",
                      "--csv", str(tmp_path / "s.csv"), "--plot", str(tmp_path / "s.png"))
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "s.csv")
    assert sorted(df["transport"].unique()) == ["metaroce", "rocev2"]
    assert (df[df["loss"] == 0]["kept_percent"] == 100).all()
    assert os.path.getsize(tmp_path / "s.png") > 0
