#!/usr/bin/env python3
"""Experiment 2, the 64-node comparison: ring all-reduce and all-to-all over message sizes,
MetaRoCE against RoCEv2 with PFC and DCQCN and RoCEv2 without either (plain go-back-N), on the
lossless 64-host, 8-plane fabric, at the announced point (0.25% loss per link end, 1% per path)
and at 1% per link end (1 to 16 MiB per rank; 64 and 256 MiB lossless only): bus bandwidth
(nccl-tests) and message completion time (mean, p99).

    scripts/python.sh examples/experiments/message_sizes.py [--quick]
"""

import common
import matplotlib.pyplot as plt
from metaroce import experiment as mx

TRANSPORTS = ["metaroce", "rocev2-pfc", "rocev2-nocc"]


def main():
    a = common.arguments(__doc__, sizes="1048576,4194304,16777216", losses="0,0.0025,0.01",
                         lossless_sizes="67108864,268435456", stop_time="3ms",
                         workloads="allreduce-ring,alltoall")
    fabric = common.fabric(a.quick)
    sizes = [int(s) for s in a.sizes.split(",")]
    # The largest buffers only lossless: under loss RoCEv2 simulates until the stop time, and
    # 64 MiB per rank at 64 hosts already takes minutes per run (doc/performance.md).
    large = [] if a.quick else [int(s) for s in a.lossless_sizes.split(",") if s]
    stop_us = common.microseconds(a.stop_time)
    configs = [dict(fabric, planes=8, workload=w, transport=t, message_bytes=s, loss=float(l),
                    stop_time=f"{stop_us * max(1, s // sizes[-1]):g}us")
               for w in a.workloads.split(",") for l in a.losses.split(",")
               for t in TRANSPORTS for s in sizes + (large if float(l) == 0 else [])]
    df = mx.sweep(configs, processes=a.processes)
    df["size_mib"] = df["message_bytes"] / (1 << 20)
    df["loss_percent"] = [f"{100 * loss:g}" for loss in df["loss"]]
    df["label"] = [common.LABELS[t] for t in df["transport"]]
    df["busbw"] = [r.collective_busbw_GBps if r.complete else float("nan")
                   for r in df.itertuples()]
    table = common.markdown(
        df, {"workload": "workload", "loss_percent": "loss per link end (%)", "label": "transport",
             "size_mib": "size (MiB)", "busbw": "busbw (GB/s)",
             "fct_mean_us": "message FCT mean (us)", "fct_p99_us": "p99 (us)",
             "complete": "completed"})
    workloads = a.workloads.split(",")
    losses = a.losses.split(",")
    fig, axes = plt.subplots(len(losses), len(workloads),
                             figsize=(6 * len(workloads), 3.8 * len(losses)), squeeze=False)
    for i, l in enumerate(losses):
        for j, w in enumerate(workloads):
            ax = axes[i][j]
            for t in TRANSPORTS:
                g = df[(df["workload"] == w) & (df["transport"] == t) &
                       (df["loss"] == float(l))].sort_values("message_bytes")
                ax.plot(g["size_mib"], g["busbw"], marker="o", label=common.LABELS[t])
            ax.set_xscale("log", base=2)
            ax.set_xlabel("buffer per rank (MiB)")
            ax.set_ylabel("bus bandwidth (GB/s)")
            ax.set_title(f"{w}, loss {100 * float(l):g}% per link end")
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    note = (f"{fabric['hosts']} hosts, 8 planes x 100 Gb/s (line rate x planes = 100 GB/s "
            f"per host); a run not finished by {a.stop_time} of simulated time (scaled with "
            "the buffer above the largest lossy size) has no busbw; buffers of "
            f"{a.lossless_sizes} B only lossless.")
    common.save(a.out, "message-sizes" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
