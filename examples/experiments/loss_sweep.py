#!/usr/bin/env python3
"""Experiment 1, loss sweep: the share of its lossless bus bandwidth each transport keeps as
random loss grows, on every link of the 64-host, 8-plane fabric, and separately on one plane only.

Ring all-reduce and all-to-all run over MetaRoCE, RoCEv2 go-back-N (DCQCN, no PFC) and RoCEv2
with PFC (PFC prevents congestion drops, not random loss) at 0, 0.1, 0.5, 1, 2, 5 and 10% loss
per link end (a host-to-host path crosses four link ends). A run that has not finished at
--stop-time of simulated time is reported as incomplete, with the bound it implies.
The announcement's figure: MetaRoCE keeps about 86% at 1% loss, and useful bandwidth at 10%.

    scripts/python.sh examples/experiments/loss_sweep.py           # full scale, doc/results/
    scripts/python.sh examples/experiments/loss_sweep.py --quick   # 16 hosts, a minute
    scripts/python.sh examples/experiments/loss_sweep.py --message-bytes 67108864 \
        --stop-time 6ms --transports metaroce,rocev2            # 64 MiB: loss-sweep-64mib
"""

import common
import matplotlib.pyplot as plt
from metaroce import experiment as mx

LOSSES = [0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1]
# Loss on one plane only: a subset, enough to show the shape (the full grid doubles the cost).
ONE_PLANE_LOSSES = [0.001, 0.01, 0.1]


def main():
    a = common.arguments(__doc__, planes=8, message_bytes=2 << 20, stop_time="3ms",
                         workloads="allreduce-ring,alltoall", transports=",".join(common.TRANSPORTS))
    transports = a.transports.split(",")
    unknown = [t for t in transports if t not in common.TRANSPORTS]
    if unknown:
        raise SystemExit(f"--transports: unknown {', '.join(unknown)} "
                         f"(one or more of {', '.join(common.TRANSPORTS)})")
    fabric = common.fabric(a.quick)
    configs = []
    for workload in a.workloads.split(","):
        for transport in transports:
            for loss_plane in (-1, 0):
                for loss in LOSSES:
                    if loss_plane == 0 and loss not in ONE_PLANE_LOSSES:
                        continue  # the lossless run is shared; one plane: a subset
                    configs.append(dict(fabric, planes=a.planes, workload=workload,
                                        transport=transport, loss=loss, loss_plane=loss_plane,
                                        message_bytes=a.message_bytes, stop_time=a.stop_time))
    df = mx.sweep(configs, processes=a.processes)
    stop_us = common.microseconds(a.stop_time)
    base = df[df["loss"] == 0].set_index(["workload", "transport"])["collective_busbw_GBps"]
    kept, bound = [], []
    for r in df.itertuples():
        lossless = base[(r.workload, r.transport)]
        if r.complete:
            kept.append(100 * r.collective_busbw_GBps / lossless)
            bound.append("")
        else:
            # Not finished by the stop time: its bus bandwidth is below what finishing exactly
            # then would have given.
            at_stop = lossless * base_time(df, r) / stop_us
            kept.append(float("nan"))
            bound.append(f"< {100 * at_stop / lossless:.1f}")
    df["kept_percent"] = kept
    df["kept_bound"] = bound
    df["where"] = ["every plane" if p < 0 else "plane 0 only" for p in df["loss_plane"]]
    df["loss_percent"] = 100 * df["loss"]

    rows = []
    for (workload, where), g in df.groupby(["workload", "where"], sort=False):
        for loss in LOSSES if where == "every plane" else ONE_PLANE_LOSSES:
            row = {"workload": workload, "where": where, "loss_percent": 100 * loss}
            for t in transports:
                hit = g[(g["transport"] == t) & (g["loss"] == loss)]
                if hit.empty:
                    hit = df[(df["workload"] == workload) & (df["transport"] == t) &
                             (df["loss"] == loss)]
                r = hit.iloc[0]
                row[t] = f"{r.kept_percent:.1f}" if r.complete else r.kept_bound
            rows.append(row)
    import pandas as pd
    table_df = pd.DataFrame(rows)
    headers = {"metaroce": "MetaRoCE kept (%)", "rocev2": "RoCEv2 kept (%)",
               "rocev2-pfc": "RoCEv2+PFC kept (%)"}
    table = common.markdown(table_df, {"workload": "workload", "where": "loss on",
                                       "loss_percent": "loss per link end (%)",
                                       **{t: headers[t] for t in transports}})

    workloads = a.workloads.split(",")
    fig, axes = plt.subplots(1, len(workloads), figsize=(6 * len(workloads), 4.2), squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        for t in transports:
            for where, style in (("every plane", "-"), ("plane 0 only", ":")):
                g = df[(df["workload"] == workload) & (df["transport"] == t) &
                       ((df["where"] == where) | (df["loss"] == 0)) & df["complete"]]
                g = g.sort_values("loss")
                ax.plot(g["loss_percent"].clip(lower=0.05), g["kept_percent"], style,
                        marker="o", label=f"{common.LABELS[t]}, {where}")
        ax.axhline(86, color="grey", lw=0.8, ls="--")
        ax.annotate("announced: 86% at 1%", (1, 86), textcoords="offset points", xytext=(4, 4),
                    fontsize=8, color="grey")
        ax.set_xscale("log")
        ax.set_xlabel("random loss per link end (%); lossless plotted at 0.05")
        ax.set_ylabel("bus bandwidth kept (% of lossless)")
        ax.set_title(f"{workload}, {fabric['hosts']} hosts, {a.planes} planes")
        ax.set_ylim(0, 105)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    note = (f"{fabric['hosts']} hosts, {a.planes} planes, {a.message_bytes} B per rank, "
            f"stop time {a.stop_time}; '< x' = not finished by then.")
    size = "" if a.message_bytes == 2 << 20 else f"-{a.message_bytes / (1 << 20):g}mib"
    common.save(a.out, "loss-sweep" + size + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


def base_time(df, r):
    """Lossless time of r's workload and transport (us)."""
    g = df[(df["workload"] == r.workload) & (df["transport"] == r.transport) & (df["loss"] == 0)]
    return float(g.iloc[0]["collective_time_us"])


if __name__ == "__main__":
    raise SystemExit(main())
