#!/usr/bin/env python3
"""The headline experiment: how much of its lossless bandwidth each transport keeps as random
loss grows. A ring all-reduce on a multi-plane leaf-spine fabric runs over MetaRoCE, RoCEv2
(go-back-N, DCQCN) and RoCEv2 with PFC at each loss rate; the bus bandwidth (nccl-tests'
busbw) is plotted against the loss rate, one line per transport.

MetaRoCE retransmits exactly the packets a SACK shows missing, on any path; RoCEv2's go-back-N
resends everything after a gap; PFC prevents congestion drops, not random loss. Which of these
wins at which loss rate is what the run measures: nothing here is assumed.

    scripts/python.sh examples/python/loss_sweep.py --plot loss-sweep.png --csv loss-sweep.csv
"""

import argparse
import os

from metaroce import experiment as mx
from metaroce import plot


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hosts", type=int, default=16)
    p.add_argument("--planes", type=int, default=4)
    p.add_argument("--hosts-per-leaf", type=int, default=8)
    p.add_argument("--spines", type=int, default=2)
    p.add_argument("--message-bytes", type=int, default=1 << 20)
    p.add_argument("--workload", default="allreduce-ring")
    p.add_argument("--transports", default="metaroce,rocev2,rocev2-pfc")
    p.add_argument("--losses", default="0,0.0001,0.001,0.005,0.01,0.02")
    p.add_argument("--processes", type=int, default=os.cpu_count())
    p.add_argument("--csv")
    p.add_argument("--plot", default="loss-sweep.png")
    a = p.parse_args()

    losses = [float(x) for x in a.losses.split(",")]
    df = mx.sweep(mx.grid(hosts=a.hosts, planes=a.planes, hosts_per_leaf=a.hosts_per_leaf,
                          spines=a.spines, message_bytes=a.message_bytes, workload=a.workload,
                          transport=a.transports.split(","), loss=losses),
                  processes=a.processes)
    base = df[df["loss"] == 0].set_index("transport")["collective_busbw_GBps"]
    # The ratio first: x / x is exactly 1, where 100 * x / x may round below 100.
    df["kept_percent"] = [100 * (r.collective_busbw_GBps / base[r.transport])
                          if r.transport in base.index else float("nan")
                          for r in df.itertuples()]
    table = df.pivot_table(index="loss", columns="transport", values="kept_percent", sort=False)
    table.index = [f"{100 * x:g}%" for x in table.index]
    print(f"{a.workload}, {a.hosts} hosts, {a.planes} planes: busbw kept (% of lossless)\n")
    print(table.to_string(float_format=lambda v: f"{v:.1f}"))
    if a.csv:
        df.to_csv(a.csv, index=False)
    fig = plot.sweep(df, x="loss", y="collective_busbw_GBps", by="transport",
                     title=f"{a.workload}, {a.hosts} hosts, {a.planes} planes")
    # Linear near 0 (the lossless point), logarithmic over the loss rates.
    positive = [x for x in losses if x > 0]
    if positive:
        fig.axes[0].set_xscale("symlog", linthresh=min(positive))
    fig.savefig(a.plot)
    print(f"\nplot: {a.plot}")
    return 0 if df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
