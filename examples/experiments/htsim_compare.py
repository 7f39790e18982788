#!/usr/bin/env python3
"""Validation, cross-simulator: a sprayed permutation and a sprayed all-to-all on a small
non-blocking leaf-spine, run by the model and by htsim (Broadcom's csg-htsim with EQDS and RoCE,
and UEC's uet-htsim with the Ultra Ethernet transport, each built outside the project), side by
side (doc/validation.md, section 9).

Our side always runs: MetaRoCE spraying every packet over the spines, and RoCEv2 without
congestion control on one ECMP path per queue pair with PFC (lossless), the two transports htsim
models the same way (EQDS sprays per packet; its RoCE keeps one path per flow, behind lossless
input queues). With --htsim DIR (the `sim` directory of an htsim build, holding
datacenter/htsim_eqds and datacenter/htsim_roce) the script also writes htsim's topology and
connection-matrix files for the same scenarios, runs htsim and reads each flow's finish time
from its output; it prints every htsim command it runs. With --uec DIR (the `sim` directory of
a uet-htsim build, holding datacenter/htsim_uec) it runs UEC's transport on the same files,
lossless; with --uec-loss DIR, a uet-htsim build patched for random loss on its links
(doc/validation.md, section 9: uet-htsim has no loss model), at 1% per path as well.

Our side also runs MetaRoCE at 0.25% loss per link end (1% per host-to-host path).

    scripts/python.sh examples/experiments/htsim_compare.py                       # our side
    scripts/python.sh examples/experiments/htsim_compare.py --htsim /work/ext/htsim/sim \
        --uec /work/ext/uet-htsim/htsim/sim --uec-loss /work/ext/uet-htsim-loss/htsim/sim
    scripts/python.sh examples/experiments/htsim_compare.py --quick               # 4 MiB less

The fabric: 16 hosts, 8 per leaf, 8 spines, every link 100 Gb/s and 1 us, no switch latency,
4,096-byte MTU. The permutation: host i sends --message-bytes to host (i + 8) mod 16, every
flow across the spines. The all-to-all: every host sends --message-bytes / 16 to each of the 15
others, all at once.
"""

import os
import re
import shlex
import subprocess
import tempfile

import common
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from metaroce import experiment as mx

HOSTS, PER_LEAF, SPINES = 16, 8, 8
FABRIC = dict(hosts=HOSTS, hosts_per_leaf=PER_LEAF, spines=SPINES, planes=1,
              host_rate="100Gbps", fabric_rate="100Gbps", host_delay="1us", fabric_delay="1us")
OURS = [("MetaRoCE (sprayed)", "metaroce", ""),
        ("RoCEv2, no CC, PFC (one path per QP)", "rocev2-nocc", "PfcEnabled=true")]
# htsim's side: (label, binary, arguments after the files).
HTSIM = [("htsim EQDS (sprayed, trimming)", "htsim_eqds",
          ["-strat", "ecmp_host", "-paths", "256", "-cwnd", "50", "-q", "35"]),
         ("htsim RoCE (one path per flow, lossless)", "htsim_roce",
          ["-strat", "ecmp_host", "-paths", "1", "-q", "100"])]
# UEC's transport (uet-htsim): sender-based NSCC over 64 entropies (its default), trimming.
UEC = ("htsim UEC (NSCC, 64 entropies, trimming)", "htsim_uec", ["-paths", "64"])
# A uet-htsim build patched to drop every packet entering a link with this probability (the
# HTSIM_PIPE_LOSS variable of the patch doc/validation.md describes): 1 - 0.99^(1/4), 1% over
# the four links of a path; our side drops 0.25% at each link end (0.996% per path).
UEC_PIPE_LOSS = 0.0025094
OUR_LOSS = 0.0025
# Where htsim runs and its input files go.
HTSIM_DIR = os.path.join(tempfile.gettempdir(), "metaroce-htsim-compare")
FINISHED = re.compile(r"finished at ([0-9.eE+-]+)")


def topology_text():
    """htsim's topology file of the fabric (FatTreeTopology::load format)."""
    return (f"Nodes {HOSTS}\nTiers 2\nPodsize {HOSTS}\n\n"
            f"Tier 0\nDownlink_speed_Gbps 100\nRadix_Down {PER_LEAF}\nRadix_Up {SPINES}\n"
            "Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\nOversubscribed 1\n\n"
            f"Tier 1\nDownlink_speed_Gbps 100\nRadix_Down {HOSTS // PER_LEAF}\n"
            "Downlink_Latency_ns 1000\nSwitch_Latency_ns 0\n")


def matrix_text(workload, message_bytes):
    """htsim's connection matrix of `workload`, every flow starting at 0."""
    if workload == "permutation":
        pairs = [(i, (i + HOSTS // 2) % HOSTS, message_bytes) for i in range(HOSTS)]
    else:
        block = message_bytes // HOSTS
        pairs = [(i, j, block) for i in range(HOSTS) for j in range(HOSTS) if i != j]
    lines = [f"Nodes {HOSTS}", f"Connections {len(pairs)}"]
    lines += [f"{s}->{d} start 0 size {b}" for s, d, b in pairs]
    return "\n".join(lines) + "\n"


def run_htsim(sim, binary, extra, workload, message_bytes, files, end_us, seed, pipe_loss=0.0):
    """Runs one htsim binary on `workload`; returns (completion us, flows finished, command).
    `pipe_loss`: the loss per link of a build patched for it (passed in its environment)."""
    topo = os.path.join(files, "leaf-spine-16.topo")
    with open(topo, "w") as f:
        f.write(topology_text())
    tm = os.path.join(files, f"{workload}.cm")
    with open(tm, "w") as f:
        f.write(matrix_text(workload, message_bytes))
    # Relative names, run in `files`, so that the commands print the same every time. (EQDS's
    # runs depend on -seed alone; htsim's RoCE source reseeds the random generator from the
    # wall clock as each flow is made, so its path draws change from run to run whatever
    # -seed says.)
    # htsim_uec sizes itself from the files and takes no -nodes or -conns.
    sizes = [] if binary == "htsim_uec" else ["-nodes", str(HOSTS),
                                             "-conns", str(tm_connections(workload))]
    command = [os.path.join(sim, "datacenter", binary), "-topo", os.path.basename(topo),
               "-tm", os.path.basename(tm)] + sizes + ["-mtu", "4096", "-end", str(end_us),
                                                       "-seed", str(seed), "-o", "logout.dat"]
    command += extra
    env = dict(os.environ)
    env.pop("HTSIM_PIPE_LOSS", None)
    prefix = []
    if pipe_loss > 0:
        env["HTSIM_PIPE_LOSS"], env["HTSIM_PIPE_LOSS_SEED"] = repr(pipe_loss), str(seed)
        prefix = [f"HTSIM_PIPE_LOSS={pipe_loss!r}", f"HTSIM_PIPE_LOSS_SEED={seed}"]
    print("$", " ".join(shlex.quote(c) for c in prefix + command), flush=True)
    out = subprocess.run(command, capture_output=True, text=True, cwd=files, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{binary} failed ({out.returncode}): {out.stderr.strip()[-300:]}")
    finish = [float(m.group(1)) for m in FINISHED.finditer(out.stdout)]
    return (max(finish) if finish else float("nan")), len(finish), " ".join(prefix + command)


def tm_connections(workload):
    return HOSTS if workload == "permutation" else HOSTS * (HOSTS - 1)


def ideal_us(workload, message_bytes):
    """What no transport beats: the bytes each host sends at 100 Gb/s (payload only), plus one
    packet's store-and-forward over the 4 links and their 4 us of propagation."""
    sent = message_bytes if workload == "permutation" else message_bytes * (HOSTS - 1) / HOSTS
    return sent * 8 / 100e3 + 4 * 1.0 + 3 * 4142 * 8 / 100e3


def ecmp_expectation(message_bytes, trials=20000):
    """The permutation's expected completion when every flow hashes onto one of the spines at
    random (both simulators' RoCE): the busiest link (a leaf's uplink or a spine's downlink)
    carries m flows, which share it, so the last one ends after about m transfers; Monte Carlo
    over `trials` draws (fixed seed)."""
    rng = np.random.default_rng(1)
    total = 0.0
    for _ in range(trials):
        spine = rng.integers(0, SPINES, HOSTS)
        up = np.bincount((np.arange(HOSTS) // PER_LEAF) * SPINES + spine)
        down = np.bincount((((np.arange(HOSTS) + HOSTS // 2) % HOSTS) // PER_LEAF) * SPINES +
                           spine)
        total += max(up.max(), down.max())
    return total / trials * ideal_us("permutation", message_bytes)


def main():
    a = common.arguments(__doc__, results=common.VALIDATION, message_bytes=4 << 20,
                         htsim="", uec="", uec_loss="", end_us=20000, seeds=20)
    if a.seeds < 1:
        raise SystemExit(f"--seeds: {a.seeds} is not a positive number of seeds")
    if a.message_bytes < HOSTS or a.message_bytes > 1 << 31:
        raise SystemExit(f"--message-bytes: {a.message_bytes} is not in [{HOSTS}, 2^31]")
    if a.quick:
        a.message_bytes, a.seeds = 1 << 20, 1
    if a.htsim and not os.path.isfile(os.path.join(a.htsim, "datacenter", "htsim_eqds")):
        raise SystemExit(f"--htsim: {a.htsim} has no datacenter/htsim_eqds (build htsim's "
                         "sim directory with make first)")
    for option, sim in (("--uec", a.uec), ("--uec-loss", a.uec_loss)):
        if sim and not os.path.isfile(os.path.join(sim, "datacenter", "htsim_uec")):
            raise SystemExit(f"{option}: {sim} has no datacenter/htsim_uec (build uet-htsim's "
                             "htsim_uec target first)")
    workloads = ["permutation", "alltoall"]
    seeds = range(1, a.seeds + 1)
    ours = [(label, t, s, 0.0) for label, t, s in OURS]
    ours.append(("MetaRoCE (sprayed), 1% loss per path", "metaroce", "", OUR_LOSS))
    configs = [dict(FABRIC, workload=w, transport=t, switch_attributes=s, seed=seed,
                    message_bytes=a.message_bytes, stop_time="1s", loss=loss)
               for w in workloads for _, t, s, loss in ours for seed in seeds]
    labels = [(w, label) for w in workloads for label, _, _, _ in ours for _ in seeds]
    df = mx.sweep(configs, processes=a.processes)
    runs = []
    for (w, label), r in zip(labels, df.itertuples()):
        runs.append({"workload": w, "simulator": "MetaRoCE model", "transport": label,
                     "seed": r.seed, "time_us": r.collective_time_us,
                     "finished": r.complete, "command": ""})
    others = []  # (simulator, label, sim directory, binary, arguments, loss per link)
    if a.htsim:
        others += [("htsim", label, a.htsim, binary, extra, 0.0)
                   for label, binary, extra in HTSIM]
    if a.uec:
        others.append(("uet-htsim", UEC[0], a.uec, UEC[1], UEC[2], 0.0))
    if a.uec_loss:
        # Without and with SLEEK, UEC's optional fast loss recovery (off by default).
        others += [("uet-htsim, loss patch", UEC[0] + f", 1% loss per path{label}", a.uec_loss,
                    UEC[1], UEC[2] + extra, UEC_PIPE_LOSS)
                   for label, extra in (("", []), (", SLEEK", ["-sleek"]))]
    if others:
        os.makedirs(HTSIM_DIR, exist_ok=True)
    for w in workloads:
        for simulator, label, sim, binary, extra, loss in others:
            for seed in seeds:
                t, n, command = run_htsim(sim, binary, extra, w, a.message_bytes, HTSIM_DIR,
                                          a.end_us, seed, loss)
                runs.append({"workload": w, "simulator": simulator, "transport": label,
                             "seed": seed, "time_us": t,
                             "finished": n == tm_connections(w), "command": command})
    runs = pd.DataFrame(runs)
    rows = []
    for (w, sim, label), g in runs.groupby(["workload", "simulator", "transport"], sort=False):
        rows.append({"workload": w, "simulator": sim, "transport": label, "seeds": len(g),
                     "time_us": g["time_us"].mean(), "min_us": g["time_us"].min(),
                     "max_us": g["time_us"].max(), "ideal_us": ideal_us(w, a.message_bytes),
                     "flows": "all" if g["finished"].all() else "incomplete",
                     "command": g["command"].iloc[0]})
    rows.append({"workload": "permutation", "simulator": "theory",
                 "transport": "one random spine per flow (balls in bins)", "seeds": 20000,
                 "time_us": ecmp_expectation(a.message_bytes), "min_us": float("nan"),
                 "max_us": float("nan"), "ideal_us": ideal_us("permutation", a.message_bytes),
                 "flows": "", "command": ""})
    out = pd.DataFrame(rows)
    out["over_ideal"] = out["time_us"] / out["ideal_us"]
    table = common.markdown(out, {"workload": "workload", "simulator": "simulator",
                                  "transport": "transport", "seeds": "seeds",
                                  "time_us": "completion, mean (us)", "min_us": "min",
                                  "max_us": "max",
                                  "ideal_us": "ideal (us)", "over_ideal": "over ideal",
                                  "flows": "flows finished"}, floats="{:.4g}")
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = [f"{r.workload}\n{r.transport}" for r in out.itertuples()]
    ax.barh(range(len(out)), out["over_ideal"],
            color=[{"htsim": "tab:orange", "uet-htsim": "tab:green",
                    "uet-htsim, loss patch": "tab:olive", "theory": "tab:grey"}.get(s, "tab:blue")
                   for s in out["simulator"]])
    ax.set_yticks(range(len(out)))
    ax.set_yticklabels(labels, fontsize=6)
    ax.axvline(1, color="grey", lw=0.8)
    ax.set_xlabel("completion over the ideal (blue: this model, orange: htsim, green: "
                  "uet-htsim, grey: theory)")
    ax.set_title(f"16 hosts, 2 leaves x 8 spines, 100 Gb/s, {a.message_bytes >> 10} KiB")
    fig.tight_layout()
    runs.to_csv(os.path.join(a.out, "htsim-compare" + ("-quick" if a.quick else "") +
                             "-runs.csv"), index=False)
    note = (f"{HOSTS} hosts, {PER_LEAF} per leaf, {SPINES} spines, 100 Gb/s and 1 us everywhere; "
            f"{a.message_bytes} B per host; seeds 1 to {a.seeds} (htsim's -seed, our --seed). "
            "htsim commands (seed 1): "
            + ("; ".join(f"`{c}`" for c in out["command"] if c) or "not run (no --htsim)"))
    common.save(a.out, "htsim-compare" + ("-quick" if a.quick else ""), out, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
