#!/usr/bin/env python3
"""Validation, HPCC (Li et al., SIGCOMM 2019): the flow-completion slowdown of RoCEv2 with DCQCN
and PFC on the web-search workload at 30% and 50% load, by flow size (50th, 95th and 99th
percentile per size bucket), as HPCC's evaluation plots it; MetaRoCE on the same flows for
reference (doc/validation.md, section 8).

    scripts/python.sh examples/experiments/websearch_fct.py          # doc/validation/websearch-fct.*
    scripts/python.sh examples/experiments/websearch_fct.py --quick  # 8 hosts, 20 flows each

The flow sizes are HPCC's web-search distribution (contrib/metaroce/examples/
flow-sizes-web-search.cdf); flows start at Poisson times to uniformly random other hosts, as
in HPCC's traffic generator. The fabric is scaled down from HPCC's 320-host fat-tree to one
leaf-spine plane of --hosts hosts, 16 per leaf, with 400 Gb/s uplinks so that it is
non-blocking like theirs (100 Gb/s hosts, 1 us links).
"""

import os
import tempfile

import common
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from metaroce import experiment as mx

CDF = os.path.join(common.ROOT, "contrib", "metaroce", "examples", "flow-sizes-web-search.cdf")
# HPCC's RED at 100 Gb/s (its run.py: Kmin 400 KB, Kmax 1,600 KB, Pmax 0.2), here on every
# port; HPCC scales it by 4 on its 400 Gb/s links.
HPCC_RED = "EcnKmin=400000;EcnKmax=1600000;EcnPmax=0.2"
# (label, transport, switch attributes, a queue pair per flow): by default the flows workload
# puts every flow of a host pair on one queue pair; HPCC's generator opens one per flow.
VARIANTS = [("RoCEv2, NIC DCQCN + PFC", "rocev2-pfc", "", False),
            ("RoCEv2, NIC DCQCN + PFC, HPCC's RED", "rocev2-pfc", HPCC_RED, False),
            ("RoCEv2, paper DCQCN + PFC", "rocev2-paper", "PfcEnabled=true", False),
            ("MetaRoCE", "metaroce", "", False),
            ("RoCEv2, NIC DCQCN + PFC, QP per flow", "rocev2-pfc", "", True),
            ("RoCEv2, paper DCQCN + PFC, QP per flow", "rocev2-paper", "PfcEnabled=true", True)]
# Size buckets (bytes, upper bounds): the distribution's own points.
BUCKETS = [10_000, 30_000, 80_000, 200_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000,
           30_000_000]


def bucket_label(upper):
    return f"<= {upper / 1e6:g} MB" if upper >= 1_000_000 else f"<= {upper / 1e3:g} KB"


def behind_same_pair(f, flows):
    """How many of the flows `f` started while an earlier flow of the same source and
    destination was still unfinished (and so waited on the same queue pair or connection, unless
    each flow has its own)."""
    count = 0
    for r in f.itertuples():
        same = flows[(flows["src"] == r.src) & (flows["dst"] == r.dst) &
                     (flows["start_us"] < r.start_us) & (flows["end_us"] > r.start_us)]
        count += len(same) > 0
    return count


def main():
    a = common.arguments(__doc__, results=common.VALIDATION, hosts=32, flows_per_host=100,
                         loads="0.3,0.5", seeds=3, stop_time="2s")
    loads = [float(x) for x in a.loads.split(",")]
    if any(not 0 < x < 1 for x in loads):
        raise SystemExit(f"--loads: {a.loads}: each load must be in (0, 1)")
    if a.hosts < 2 or a.flows_per_host < 1 or a.seeds < 1:
        raise SystemExit("--hosts, --flows-per-host, --seeds: need at least 2 hosts, one flow "
                         "and one seed")
    if a.quick:
        a.hosts, a.flows_per_host, a.seeds = 8, 20, 1
    per_leaf = min(16, a.hosts)
    if a.hosts % per_leaf:
        raise SystemExit(f"--hosts: {a.hosts} is not a multiple of 16 (hosts per leaf)")
    # Non-blocking: per_leaf x 100 Gb/s down, spines x 400 Gb/s up.
    fabric = dict(hosts=a.hosts, hosts_per_leaf=per_leaf, spines=max(1, per_leaf // 4),
                  planes=1, host_rate="100Gbps", fabric_rate="400Gbps", host_delay="1us",
                  fabric_delay="1us")
    configs, labels = [], []
    for load in loads:
        for label, transport, switch, per_flow in VARIANTS:
            for seed in range(1, a.seeds + 1):
                configs.append(dict(fabric, workload="flows", cdf_file=CDF, load=load,
                                    flows_per_host=a.flows_per_host, transport=transport,
                                    switch_attributes=switch, qp_per_flow=per_flow, seed=seed,
                                    stop_time=a.stop_time))
                labels.append(label)
    rows, summary = [], []
    with tempfile.TemporaryDirectory() as files:
        for i, c in enumerate(configs):
            c["output"] = os.path.join(files, f"run{i}")
        df = mx.sweep(configs, processes=a.processes)
        flows = [pd.read_csv(c["output"] + "-flows.csv") for c in configs]
    pooled = {}
    for label, cfg, r, f in zip(labels, configs, df.itertuples(), flows):
        f["bucket"] = np.searchsorted(BUCKETS, f["bytes"], side="left")
        pooled.setdefault((cfg["load"], label), []).append(f)
        summary.append({"variant": label, "load": cfg["load"], "seed": cfg["seed"],
                        "complete": r.complete, "flows": len(f),
                        "slowdown_p50": f["slowdown"].quantile(0.5),
                        "slowdown_p95": f["slowdown"].quantile(0.95),
                        "slowdown_p99": f["slowdown"].quantile(0.99),
                        "pauses": r.pfc_pauses, "max_queue_kb": r.max_queue_bytes / 1e3})
        slow = f[(f["bytes"] <= 200_000) & (f["slowdown"] > 100)]
        summary[-1].update({"short_slow": len(slow),
                            "short_slow_behind": behind_same_pair(slow, f)})
    # Percentiles per size bucket over the flows of every seed together.
    for (load, label), frames in pooled.items():
        for b, g in pd.concat(frames).groupby("bucket"):
            rows.append({"variant": label, "load": load, "bucket": bucket_label(BUCKETS[b]),
                         "upper": BUCKETS[b], "flows": len(g),
                         "p50": g["slowdown"].quantile(0.5),
                         "p95": g["slowdown"].quantile(0.95),
                         "p99": g["slowdown"].quantile(0.99)})
    by_bucket = pd.DataFrame(rows)
    runs_df = pd.DataFrame(summary)
    table = common.markdown(runs_df, {"variant": "variant", "load": "load", "seed": "seed",
                                      "complete": "complete", "flows": "flows",
                                      "slowdown_p50": "slowdown p50",
                                      "slowdown_p95": "p95", "slowdown_p99": "p99",
                                      "pauses": "PAUSEs", "max_queue_kb": "deepest queue (KB)",
                                      "short_slow": "flows <= 200 KB slowed > 100x",
                                      "short_slow_behind": "... behind an unfinished flow of "
                                                           "their host pair"},
                            floats="{:.3g}")
    wide = by_bucket.sort_values(["load", "upper"], kind="stable")
    table += "\n" + common.markdown(wide, {"load": "load", "bucket": "flow size",
                                           "variant": "variant", "flows": "flows",
                                           "p50": "slowdown p50", "p95": "p95",
                                           "p99": "p99"}, floats="{:.3g}")
    fig, axes = plt.subplots(1, len(loads), figsize=(6 * len(loads), 4.2), squeeze=False)
    for ax, load in zip(axes[0], loads):
        for label, _, _, _ in VARIANTS:
            g = wide[(wide["load"] == load) & (wide["variant"] == label)]
            ax.plot(range(len(g)), g["p95"], marker="o", label=f"{label}, p95")
            ax.plot(range(len(g)), g["p50"], ls=":", color=ax.lines[-1].get_color(),
                    label=f"{label}, p50")
            ax.set_xticks(range(len(g)))
            ax.set_xticklabels([b.replace("<= ", "") for b in g["bucket"]], rotation=45,
                               fontsize=7)
        ax.set_yscale("log")
        ax.set_xlabel("flow size (bucket upper bound)")
        ax.set_ylabel("FCT slowdown")
        ax.set_title(f"web search, {int(100 * load)}% load, {a.hosts} hosts")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    note = (f"{a.hosts} hosts ({per_leaf} per leaf, {fabric['spines']} spines of 400 Gb/s), "
            f"one plane, 100 Gb/s hosts, 1 us links; {a.flows_per_host} flows per host from the "
            f"web-search distribution at Poisson times, {a.seeds} seed(s) (size buckets: the "
            "flows of every seed together); slowdown: FCT over "
            "the flow's time alone on an idle fabric. Flows to one destination share a queue pair "
            "(RoCEv2) or connection (MetaRoCE) except in the variants 'QP per flow' "
            "(qp_per_flow=True), where each flow has its own, as in HPCC's simulator.")
    name = "websearch-fct" + ("-quick" if a.quick else "")
    by_bucket.to_csv(os.path.join(a.out, name + "-buckets.csv"), index=False)
    common.save(a.out, name, runs_df, table, fig, note)
    return 0 if runs_df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
