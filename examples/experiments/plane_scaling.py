#!/usr/bin/env python3
"""Experiment 3, plane scaling: aggregate throughput on 1, 2, 4 and 8 planes with the same
per-plane link rate, and its ratio to one plane (linear: 2, 4, 8).

The 64 hosts run an all-to-all - 64 x 63 = 4,032 concurrent MetaRoCE connections, the
announcement's "up to 4,000" - and a ring all-reduce, over MetaRoCE (one connection per host pair,
sprayed over every plane) and RoCEv2 (one queue pair per host pair and channel, channel c on
plane c mod planes). The buffer per rank grows with the planes so that every plane carries the
same bytes.

    scripts/python.sh examples/experiments/plane_scaling.py [--quick]
"""

import common
import matplotlib.pyplot as plt
import pandas as pd
from metaroce import experiment as mx

PLANES = [1, 2, 4, 8]


def main():
    a = common.arguments(__doc__, bytes_per_plane=1 << 20, workloads="alltoall,allreduce-ring",
                         transports="metaroce,rocev2")
    fabric = common.fabric(a.quick)
    configs = [dict(fabric, planes=p, workload=w, transport=t,
                    message_bytes=a.bytes_per_plane * p)
               for w in a.workloads.split(",") for t in a.transports.split(",") for p in PLANES]
    df = mx.sweep(configs, processes=a.processes)
    df["aggregate_gbps"] = df["goodput_gbps"]
    one = df[df["planes"] == 1].set_index(["workload", "transport"])
    df["ratio"] = [r.collective_busbw_GBps / one.loc[(r.workload, r.transport),
                                                     "collective_busbw_GBps"]
                   for r in df.itertuples()]
    # Queue pairs, both ends counted (an all-to-all of n hosts: n (n - 1) for MetaRoCE, whose
    # one connection per host pair carries every plane; RoCEv2 has one per pair and channel).
    df["queue_pairs"] = [2 * (r.hosts * (r.hosts - 1) // 2 if r.workload == "alltoall" else r.hosts)
                         * (1 if r.transport == "metaroce" else r.planes)
                         for r in df.itertuples()]
    rows = []
    for r in df.itertuples():
        rows.append({"workload": r.workload, "transport": common.LABELS[r.transport],
                     "planes": r.planes, "busbw": r.collective_busbw_GBps,
                     "goodput": r.goodput_gbps, "ratio": r.ratio,
                     "linear": float(r.planes), "qps": r.queue_pairs})
    table = common.markdown(pd.DataFrame(rows), {
        "workload": "workload", "transport": "transport", "planes": "planes",
        "busbw": "busbw (GB/s)", "goodput": "aggregate goodput (Gb/s)",
        "ratio": "ratio to 1 plane", "linear": "linear", "qps": "queue pairs"},
        floats="{:.2f}")
    workloads = a.workloads.split(",")
    fig, axes = plt.subplots(1, len(workloads), figsize=(6 * len(workloads), 4.2), squeeze=False)
    for ax, w in zip(axes[0], workloads):
        for t in a.transports.split(","):
            g = df[(df["workload"] == w) & (df["transport"] == t)].sort_values("planes")
            ax.plot(g["planes"], g["ratio"], marker="o", label=common.LABELS[t])
        ax.plot(PLANES, PLANES, "--", color="grey", label="linear")
        ax.set_xlabel("planes")
        ax.set_ylabel("bus bandwidth / one plane's")
        ax.set_xticks(PLANES)
        ax.set_title(f"{w}, {fabric['hosts']} hosts")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    note = (f"{fabric['hosts']} hosts, {a.bytes_per_plane} B per rank per plane, lossless; "
            "queue pairs: both ends of every connection (MetaRoCE: one per host pair, over all "
            "planes; RoCEv2: one per host pair and channel, one channel per plane).")
    common.save(a.out, "plane-scaling" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
