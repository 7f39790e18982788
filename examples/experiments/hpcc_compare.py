#!/usr/bin/env python3
"""Validation, cross-simulator: RoCEv2 with DCQCN and PFC, run by the model and by HPCC's ns-3
simulator (Li et al., SIGCOMM 2019; alibaba-edu/High-Precision-Congestion-Control, built outside
the project) on the same scenarios, side by side (doc/validation.md, section 10).

Our side always runs; with --hpcc DIR (HPCC's `simulation` directory, built, holding
build/scratch/third) the script also writes HPCC's topology, flow and configuration files for
the same scenarios, runs HPCC's `third` on them and reads its FCT, PFC and queue outputs; it
prints every HPCC command it runs.

    scripts/python.sh examples/experiments/hpcc_compare.py                    # our side
    scripts/python.sh examples/experiments/hpcc_compare.py --hpcc /work/ext/hpcc/simulation
    scripts/python.sh examples/experiments/hpcc_compare.py --quick            # smoke test
    # the incast and the permutation over 10 draws of the random marks, both sides:
    scripts/python.sh examples/experiments/hpcc_compare.py --hpcc DIR --draws 10

The scenarios (every link 1 us, hosts at 100 Gb/s, 1,024-byte payloads on both sides):
- incast: 8 hosts each send --message-bytes to a 9th through one switch, all at time 0;
- permutation: 16 hosts, 8 per leaf, 2 leaves joined by one spine over 400 Gb/s links (2:1 over
  the spine, one path, so no hash decides anything); host i sends --message-bytes to host
  (i + 8) mod 16, all at time 0;
- websearch: 32 hosts, 16 per leaf, 4 spines of 400 Gb/s (non-blocking); --flows-per-host flows
  per host from HPCC's web-search distribution at Poisson times at 30% load, to random other
  hosts. The model draws the flows; the same flows (source, destination, size, start) are
  written into HPCC's flow file.

DCQCN on both sides as HPCC's run.py sets it for `--cc dcqcn` at 100 Gb/s (its "mlx" reaction
point: g = 1/256, alpha timer 1 us, rate-decrease check every 4 us, rate timer 300 us, one fast
recovery step, additive 20 Mb/s, hyper 200 Mb/s, minimum 1 Gb/s, no byte counter, no window, an
ACK per packet carrying the CNP), RED Kmin 400 KB, Kmax 1,600 KB, Pmax 0.2 on every port (HPCC
scales them by the link rate; here its maps are written with the same values for both rates),
32 MB switch buffers, ACKs queued with their flow's data at the switches (HPCC's ACK_HIGH_PRIO
serves them first at the hosts only), a queue pair per flow in the web search (HPCC opens one per
flow). Our variants: the aligned one (marking at dequeue like HPCC); the model's default marking
at enqueue; the paper's reaction point (a cut on every CNP at once) with the same parameters,
with a CNP for every marked packet and with the paper's one per 50 us; the model's default ACKs
and CNPs served first at the switches; and, in the web search, the flows workload's default of
one queue pair per host pair.
"""

import os
import shlex
import subprocess
import tempfile

import common
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from metaroce import experiment as mx

CDF = os.path.join(common.ROOT, "contrib", "metaroce", "examples", "flow-sizes-web-search.cdf")
PAYLOAD = 1024
# HPCC's DCQCN ("--cc dcqcn" in its run.py at 100 Gb/s), in the model's attribute names; the
# largest ByteCounter is "none", RoceWindow the largest (HPCC's DCQCN runs without a window).
DCQCN = ("G=0.00390625|AlphaTimer=1us|RateDecreaseInterval=4us|RateTimer=300us|"
         "FastRecoverySteps=1|AdditiveIncrease=20Mbps|HyperIncrease=200Mbps|MinRate=1Gbps|"
         "ByteCounter=1000000000000000")
NIC = (f"Mtu={PAYLOAD};RoceAckEveryPackets=1;RoceWindow=4194304;"
       "RoceRateControl=ns3::MetaRoceDcqcn[{}]")
# HPCC's RED at 100 Gb/s; PFC: HPCC's dynamic threshold (free buffer / 8 per ingress queue on a
# 100 Gb/s port) is about 3.8 MB while the queues stay below 2 MB, so a fixed threshold there.
# HPCC's switches queue an ACK (and the CNP it carries) with its flow's data (its ACK_HIGH_PRIO
# serves ACKs first at the hosts' NICs only): ControlPriority=false; the model's default serves
# ACKs and CNPs first at the switches too.
SWITCH = ("EcnKmin=400000;EcnKmax=1600000;EcnPmax=0.2;PfcEnabled=true;PfcXoff=3800000;"
          "PfcXon=3796928;EcnAtDequeue={};ControlPriority={}")
# (label, reaction point and CNP interval, ECN at dequeue, ACKs served first at the switches,
# a queue pair per flow). CnpInterval 1 ns: a CNP for every marked packet, as HPCC's receiver
# echoes a mark in every ACK; 50 us is the DCQCN paper's. The flows workload (the web search)
# opens a queue pair per flow, as HPCC does, except in the last variant, which keeps the
# workload's default of one per host pair and runs the web search only.
ALIGNED = "aligned: nic DCQCN, ECN at dequeue, ACKs with data, QP per flow"
ACKS_FIRST = "ACKs and CNPs first at switches (model default)"
PAIR_QP = "QP per host pair (model default)"
OURS = [(ALIGNED, "Variant=nic|CnpInterval=1ns", "true", "false", True),
        ("ECN at enqueue (model default)", "Variant=nic|CnpInterval=1ns", "false", "false", True),
        ("paper DCQCN (cut on every CNP, one per marked packet), ECN at dequeue",
         "Variant=paper|CnpInterval=1ns", "true", "false", True),
        ("paper DCQCN (cut on every CNP, one per 50 us), ECN at dequeue",
         "Variant=paper|CnpInterval=50us", "true", "false", True),
        (ACKS_FIRST, "Variant=nic|CnpInterval=1ns", "true", "true", True),
        (PAIR_QP, "Variant=nic|CnpInterval=1ns", "true", "false", False)]
SCENARIOS = {
    "incast": dict(hosts=9, hosts_per_leaf=9, spines=0, fabric_rate="100Gbps",
                   workload="incast"),
    "permutation": dict(hosts=16, hosts_per_leaf=8, spines=1, fabric_rate="400Gbps",
                        workload="permutation"),
    "websearch": dict(hosts=32, hosts_per_leaf=16, spines=4, fabric_rate="400Gbps",
                      workload="flows", cdf_file=CDF, load=0.3),
}
HPCC_CONFIG = """ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE {payload}
TOPOLOGY_FILE {name}-topology.txt
FLOW_FILE {name}-flow.txt
TRACE_FILE trace.txt
TRACE_OUTPUT_FILE {name}-mix.tr
FCT_OUTPUT_FILE {name}-fct.txt
PFC_OUTPUT_FILE {name}-pfc.txt
SIMULATOR_STOP_TIME {stop}
CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 20Mb/s
RATE_HAI 200Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI 1000Mb/s
ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 0
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0
RATE_BOUND 1
ACK_HIGH_PRIO 1
LINK_DOWN 0 0 0
ENABLE_TRACE 0
KMAX_MAP 2 100000000000 1600 400000000000 1600
KMIN_MAP 2 100000000000 400 400000000000 400
PMAX_MAP 2 100000000000 0.2 400000000000 0.2
BUFFER_SIZE 32
QLEN_MON_FILE {name}-qlen.txt
QLEN_MON_START {start_ns}
QLEN_MON_END {mon_end_ns}
"""
HPCC_START_S = 2.0  # HPCC's traffic generator starts flows at 2 s; so does this script


def our_config(scenario, variant, ecn_dequeue, acks_first, per_flow, message_bytes,
               flows_per_host, seed):
    s = dict(SCENARIOS[scenario])
    c = dict(planes=1, host_rate="100Gbps", host_delay="1us", fabric_delay="1us",
             transport="rocev2-pfc", seed=seed, stop_time="2s",
             nic_attributes=NIC.format(f"{variant}|{DCQCN}"),
             switch_attributes=SWITCH.format(ecn_dequeue, acks_first), **s)
    if scenario == "websearch":
        c["flows_per_host"] = flows_per_host
        c["qp_per_flow"] = per_flow
    else:
        c["message_bytes"] = message_bytes
    return c


def sweep_flows(configs, processes):
    """Runs the model's configs (mx.sweep) with each run's flow file kept: the sweep's frame
    and each run's flows."""
    with tempfile.TemporaryDirectory() as files:
        for i, c in enumerate(configs):
            c["output"] = os.path.join(files, f"run{i}")
        df = mx.sweep(configs, processes=processes)
        return df, [pd.read_csv(c["output"] + "-flows.csv") for c in configs]


def add_hpcc_ratios(frame, by, keys, ratio_name):
    """Adds ratio_name(k) = k / HPCC's k for each key, within each group of the columns `by`
    that holds an HPCC row."""
    for _, group in frame.groupby(by, sort=False):
        theirs = group[group["simulator"] == "HPCC"]
        if theirs.empty:
            continue
        for k in keys:
            frame.loc[group.index, ratio_name(k)] = group[k] / theirs.iloc[0][k]


def hpcc_topology(scenario):
    """HPCC's topology file: node and switch counts, the switches' ids, one line per link."""
    s = SCENARIOS[scenario]
    hosts, per_leaf, spines = s["hosts"], s["hosts_per_leaf"], s["spines"]
    leaves = hosts // per_leaf
    fabric = s["fabric_rate"]  # the same notation: "400Gbps"
    links = [(h, hosts + h // per_leaf, "100Gbps") for h in range(hosts)]
    links += [(hosts + l, hosts + leaves + p, fabric) for l in range(leaves)
              for p in range(spines)]
    switches = list(range(hosts, hosts + leaves + spines))
    lines = [f"{hosts + len(switches)} {len(switches)} {len(links)}",
             " ".join(map(str, switches))]
    lines += [f"{a} {b} {rate} 0.001ms 0" for a, b, rate in links]
    return "\n".join(lines) + "\n"


def hpcc_flows(flows):
    """HPCC's flow file from the model's flows (src, dst, bytes, start_us), by start time."""
    f = flows.sort_values(["start_us", "src", "dst"], kind="stable")
    lines = [str(len(f))]
    lines += [f"{r.src} {r.dst} 3 100 {int(r.bytes)} {HPCC_START_S + r.start_us * 1e-6:.9f}"
              for r in f.itertuples()]
    return "\n".join(lines) + "\n"


def run_hpcc(sim, scenario, flows, work, rng_run=1):
    """Runs HPCC's `third` on the scenario (its random draws from ns-3's RngRun `rng_run`);
    returns its per-flow FCTs, PAUSEs, deepest queue and the command."""
    name = scenario
    end_us = flows["start_us"].max() + 200000
    with open(os.path.join(work, f"{name}-topology.txt"), "w") as f:
        f.write(hpcc_topology(scenario))
    with open(os.path.join(work, f"{name}-flow.txt"), "w") as f:
        f.write(hpcc_flows(flows))
    with open(os.path.join(work, "trace.txt"), "w") as f:
        f.write("1\n0\n")
    start_ns = int(HPCC_START_S * 1e9)
    # The queue monitor samples every 100 ns and writes its histogram at multiples of 100 ms.
    mon_end = (start_ns + int(end_us * 1e3)) // 100_000_000 * 100_000_000 + 100_000_000
    config = os.path.join(work, f"{name}-config.txt")
    with open(config, "w") as f:
        f.write(HPCC_CONFIG.format(payload=PAYLOAD, name=name, start_ns=start_ns,
                                   mon_end_ns=mon_end, stop=mon_end / 1e9 + 0.001))
    command = [os.path.join(sim, "build", "scratch", "third"), os.path.basename(config)]
    # waf builds `third` against the shared libraries in build/ (what `waf --run` sets up).
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sim, "build"))
    rng = ""
    if rng_run != 1:
        env["NS_GLOBAL_VALUE"] = f"RngRun={rng_run}"
        rng = f" NS_GLOBAL_VALUE=RngRun={rng_run}"
    print(f"$ (cd {work} && LD_LIBRARY_PATH={env['LD_LIBRARY_PATH']}{rng} "
          + " ".join(shlex.quote(c) for c in command) + ")", flush=True)
    out = subprocess.run(command, capture_output=True, text=True, cwd=work, env=env)
    if out.returncode != 0:
        raise SystemExit(f"HPCC's third failed ({out.returncode}): {out.stderr.strip()[-300:]}")
    fct = pd.read_csv(os.path.join(work, f"{name}-fct.txt"), sep=" ", header=None,
                      names=["sip", "dip", "sport", "dport", "bytes", "start_ns", "fct_ns",
                             "alone_ns"])
    with open(os.path.join(work, f"{name}-pfc.txt")) as f:
        pauses = sum(1 for line in f if line.split() and line.split()[-1] == "1")
    deepest = 0
    with open(os.path.join(work, f"{name}-qlen.txt")) as f:
        for line in f:
            part = line.split()
            if part and part[0] != "time:":
                counts = [int(x) for x in part[2:]]
                nonzero = [i for i, n in enumerate(counts) if n]
                deepest = max(deepest, (nonzero[-1] if nonzero else 0))
    fct["fct_us"] = fct["fct_ns"] / 1e3
    # Node ids from HPCC's addresses (11.x.y.1: y + 256 x), starts back on the model's clock,
    # to the nanosecond of the flow file's start (HPCC reads it as a double).
    fct["src"] = [(int(ip, 16) >> 8) & 0xFFFF for ip in fct["sip"]]
    fct["dst"] = [(int(ip, 16) >> 8) & 0xFFFF for ip in fct["dip"]]
    drawn = flows.assign(ns=(flows["start_us"] * 1e3).round().astype(np.int64))
    fct["ns"] = fct["start_ns"].astype(np.int64) - int(HPCC_START_S * 1e9)
    fct = pd.merge_asof(fct.sort_values("ns"), drawn[["ns", "src", "dst", "bytes", "start_us"]]
                        .sort_values("ns"), on="ns", by=["src", "dst", "bytes"],
                        tolerance=2, direction="nearest")
    return fct, pauses, deepest * 1e3, rng.strip() + (" " if rng else "") + " ".join(command)


# The web-search rows: every flow, then flows by size (bytes, upper bound exclusive).
SIZE_CLASSES = [("all", 0, float("inf")), ("< 100 KB", 0, 100_000),
                ("100 KB - 1 MB", 100_000, 1_000_000), (">= 1 MB", 1_000_000, float("inf"))]


# The flows below 1 MB that, in the aligned run, started with no earlier flow of their host
# pair unfinished: the same flows on every row, those no earlier flow on the model's queue pair
# per host pair delays, by the size classes below 1 MB.
PAIR_IDLE = [(f"{name}, pair idle", low, high) for name, low, high in SIZE_CLASSES[1:3]]


def flow_keys(flows):
    """A flow's identity across runs: source, destination, size and start (ns)."""
    return list(zip(flows["src"], flows["dst"], flows["bytes"],
                    (flows["start_us"] * 1e3).round().fillna(-1).astype(np.int64)))


def figures(flows, expected, idle_keys=None):
    """FCT figures of `flows` (bytes, fct_us), one dict per size class (one for a collective)."""
    classes = SIZE_CLASSES if expected > 64 else SIZE_CLASSES[:1]
    subsets = [(name, flows[(flows["bytes"] >= low) & (flows["bytes"] < high)])
               for name, low, high in classes]
    if idle_keys is not None and expected > 64:
        idle = np.array([k in idle_keys for k in flow_keys(flows)], dtype=bool)
        subsets += [(name, flows[idle & ((flows["bytes"] >= low) & (flows["bytes"] < high))
                                 .to_numpy()]) for name, low, high in PAIR_IDLE]
    out = []
    for name, f in subsets:
        fct = f["fct_us"].to_numpy()
        out.append({"size": name, "count": len(fct), "p50_us": np.quantile(fct, 0.5),
                    "p99_us": np.quantile(fct, 0.99), "last_us": fct.max()})
    return out


def idle_pair_keys(flows):
    """Keys of the flows that started with no earlier flow of their pair unfinished."""
    keys = set()
    for (src, dst), f in flows.groupby(["src", "dst"]):
        f = f.sort_values("start_us")
        busy = np.concatenate([[-np.inf], np.maximum.accumulate(f["end_us"].to_numpy())[:-1]])
        keys.update(k for k, free in zip(flow_keys(f), f["start_us"].to_numpy() >= busy)
                    if free)
    return keys


def behind_same_pair(flows):
    """Flows started while an earlier flow of their source and destination was unfinished (on
    the model's one queue pair per host pair they wait behind it)."""
    count = 0
    for src, dst in set(zip(flows["src"], flows["dst"])):
        f = flows[(flows["src"] == src) & (flows["dst"] == dst)].sort_values("start_us")
        busy_until = np.maximum.accumulate(f["end_us"].to_numpy())
        count += int((f["start_us"].to_numpy()[1:] < busy_until[:-1]).sum())
    return count


def main():
    a = common.arguments(__doc__, results=common.VALIDATION, message_bytes=1 << 20,
                         flows_per_host=100, seed=1, hpcc="", scenarios="incast,permutation,"
                         "websearch", draws=0)
    scenarios = [s for s in a.scenarios.split(",") if s]
    if not scenarios or any(s not in SCENARIOS for s in scenarios):
        raise SystemExit(f"--scenarios: {a.scenarios}: a comma-separated list of "
                         f"{', '.join(SCENARIOS)}")
    if not 1024 <= a.message_bytes <= 1 << 30:
        raise SystemExit(f"--message-bytes: {a.message_bytes} is not in [1024, 2^30]")
    if not 1 <= a.flows_per_host <= 100000:
        raise SystemExit(f"--flows-per-host: {a.flows_per_host} is not in [1, 100000]")
    if not 0 <= a.draws <= 50:
        raise SystemExit(f"--draws: {a.draws} is not in [0, 50]")
    if a.quick:
        a.message_bytes, a.flows_per_host = 256 << 10, 4
    third = os.path.join(a.hpcc, "build", "scratch", "third") if a.hpcc else ""
    if a.hpcc and not os.path.isfile(third):
        raise SystemExit(f"--hpcc: {a.hpcc} has no build/scratch/third (build HPCC's "
                         "simulation directory first, doc/validation.md section 10)")
    configs, keys = [], []
    for s in scenarios:
        for label, variant, dequeue, acks_first, per_flow in OURS:
            if not per_flow and SCENARIOS[s]["workload"] != "flows":
                continue
            configs.append(our_config(s, variant, dequeue, acks_first, per_flow,
                                      a.message_bytes, a.flows_per_host, a.seed))
            keys.append((s, label))
    rows = []
    df, flows = sweep_flows(configs, a.processes)
    drawn, idle = {}, {}
    for (s, label), r, f in zip(keys, df.itertuples(), flows):
        # The flows are drawn before the run, so every variant has the same ones.
        if s not in drawn:
            drawn[s], idle[s] = f, idle_pair_keys(f)
        # Only on a queue pair per host pair does a flow wait behind an earlier one of its pair.
        behind = behind_same_pair(f) if label == PAIR_QP else "-"
        for row in figures(f, len(f), idle[s]):
            rows.append({"scenario": s, "simulator": "model", "variant": label, **row,
                         "pauses": r.pfc_pauses, "deepest_kb": r.max_queue_bytes / 1e3,
                         "behind": behind, "complete": r.complete})
    if a.hpcc:
        work = os.path.join(tempfile.gettempdir(), "metaroce-hpcc-compare")
        os.makedirs(work, exist_ok=True)
        for s in scenarios:
            fct, pauses, deepest, command = run_hpcc(a.hpcc, s, drawn[s], work)
            for row in figures(fct, len(drawn[s]), idle[s]):
                rows.append({"scenario": s, "simulator": "HPCC", "variant": "dcqcn (run.py)",
                             **row, "pauses": pauses, "deepest_kb": deepest / 1e3,
                             "behind": "-",
                             "complete": len(fct) == len(drawn[s]), "command": command})
    out = pd.DataFrame(rows)
    if a.hpcc:
        add_hpcc_ratios(out, ["scenario", "size"], ("p50_us", "p99_us", "last_us"),
                        lambda k: k.replace("_us", "_ratio"))
    columns = {"scenario": "scenario", "simulator": "simulator", "variant": "variant",
               "size": "flows", "count": "count", "p50_us": "FCT p50 (us)",
               "p99_us": "FCT p99 (us)",
               "last_us": "last (us)", "pauses": "PAUSEs", "deepest_kb": "deepest queue (KB)",
               "behind": "behind own pair"}
    if a.hpcc:
        columns.update({"p50_ratio": "p50 / HPCC", "p99_ratio": "p99 / HPCC",
                        "last_ratio": "last / HPCC"})
    table = common.markdown(out, columns, floats="{:.4g}")
    fig, ax = plt.subplots(figsize=(9, 7))
    short = {OURS[0][0]: "aligned", OURS[1][0]: "ECN at enqueue",
             OURS[2][0]: "paper, CNP per packet", OURS[3][0]: "paper, CNP per 50 us",
             ACKS_FIRST: "ACKs first", PAIR_QP: "QP per host pair"}
    labels = [f"{r.scenario} {r.size}: " + short.get(r.variant, "HPCC")
              for r in out.itertuples()]
    y = np.arange(len(out))
    ax.barh(y - 0.2, out["p50_us"], 0.4, label="p50")
    ax.barh(y + 0.2, out["p99_us"], 0.4, label="p99")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_xscale("log")
    ax.set_xlabel("flow completion time (us)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    commands = out.get("command", pd.Series(dtype=str)).dropna().unique()
    note = (f"{a.message_bytes} B per flow (incast, permutation), {a.flows_per_host} web-search "
            f"flows per host at 30% load, seed {a.seed}; {PAYLOAD}-byte payloads. HPCC: "
            + ("; ".join(f"`{c}`" for c in commands) or "not run (no --hpcc)"))
    name = "hpcc-compare" + ("-quick" if a.quick else "")
    common.save(a.out, name, out, table, fig, note)
    complete = out["complete"].all()
    if a.draws:
        complete &= draws(a, [s for s in scenarios if SCENARIOS[s]["workload"] != "flows"],
                          drawn, name)
    return 0 if complete else 1


def draws(a, scenarios, drawn, name):
    """The incast and the permutation again with draws 1..a.draws of the random marks (the
    model's seed, HPCC's RngRun): deepest queue and FCTs per draw, the aligned variant and
    the model's ACKs first, and their means (<name>-draws.csv, .md, .png)."""
    variants = [o for o in OURS if o[0] in (ALIGNED, ACKS_FIRST)]
    configs, keys = [], []
    for s in scenarios:
        for label, variant, dequeue, acks_first, per_flow in variants:
            for d in range(1, a.draws + 1):
                configs.append(our_config(s, variant, dequeue, acks_first, per_flow,
                                          a.message_bytes, a.flows_per_host, d))
                keys.append((s, "model", label, d))
    rows = []
    df, flows = sweep_flows(configs, a.processes)
    for (s, sim, label, d), r, f in zip(keys, df.itertuples(), flows):
        fct = f["fct_us"].to_numpy()
        rows.append({"scenario": s, "simulator": sim, "variant": label, "draw": d,
                     "deepest_kb": r.max_queue_bytes / 1e3, "p50_us": np.quantile(fct, 0.5),
                     "p99_us": np.quantile(fct, 0.99), "complete": r.complete})
    if a.hpcc:
        work = os.path.join(tempfile.gettempdir(), "metaroce-hpcc-compare")
        for s in scenarios:
            for d in range(1, a.draws + 1):
                fct, _, deepest, _ = run_hpcc(a.hpcc, s, drawn[s], work, rng_run=d)
                rows.append({"scenario": s, "simulator": "HPCC", "variant": "dcqcn (run.py)",
                             "draw": d, "deepest_kb": deepest / 1e3,
                             "p50_us": np.quantile(fct["fct_us"], 0.5),
                             "p99_us": np.quantile(fct["fct_us"], 0.99),
                             "complete": len(fct) == len(drawn[s])})
    per_draw = pd.DataFrame(rows)
    groups = per_draw.groupby(["scenario", "simulator", "variant"], sort=False)
    summary = groups.agg(draws=("draw", "count"), deepest_mean=("deepest_kb", "mean"),
                         deepest_min=("deepest_kb", "min"), deepest_max=("deepest_kb", "max"),
                         p50_mean=("p50_us", "mean"), p99_mean=("p99_us", "mean")).reset_index()
    if a.hpcc:
        add_hpcc_ratios(summary, ["scenario"], ("deepest_mean", "p50_mean", "p99_mean"),
                        lambda k: k + "_ratio")
    columns = {"scenario": "scenario", "simulator": "simulator", "variant": "variant",
               "draws": "draws", "deepest_mean": "deepest queue mean (KB)",
               "deepest_min": "min", "deepest_max": "max", "p50_mean": "FCT p50 mean (us)",
               "p99_mean": "FCT p99 mean (us)"}
    if a.hpcc:
        columns.update({"deepest_mean_ratio": "deepest / HPCC", "p50_mean_ratio": "p50 / HPCC",
                        "p99_mean_ratio": "p99 / HPCC"})
    table = common.markdown(summary, columns, floats="{:.4g}")
    table += "\n" + common.markdown(per_draw, {"scenario": "scenario", "simulator": "simulator",
                                               "variant": "variant", "draw": "draw",
                                               "deepest_kb": "deepest queue (KB)",
                                               "p50_us": "FCT p50 (us)",
                                               "p99_us": "FCT p99 (us)"}, floats="{:.4g}")
    fig, ax = plt.subplots(figsize=(7, 4))
    for (s, sim, label), g in groups:
        ax.plot(g["draw"], g["deepest_kb"], marker="o",
                label=f"{s}: " + ("HPCC" if sim == "HPCC" else
                                  "aligned" if label == ALIGNED else "ACKs first"))
    ax.set_xlabel("draw (model seed, HPCC RngRun)")
    ax.set_ylabel("deepest queue (KB)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    note = (f"Draws 1-{a.draws} of the random marks; {a.message_bytes} B per flow. HPCC: its "
            "`third` with `NS_GLOBAL_VALUE=RngRun=N`" if a.hpcc else "HPCC: not run (no --hpcc)")
    common.save(a.out, name + "-draws", summary, table, fig, note)
    return bool(per_draw["complete"].all())


if __name__ == "__main__":
    raise SystemExit(main())
