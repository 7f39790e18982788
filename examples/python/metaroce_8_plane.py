#!/usr/bin/env python3
"""MetaRoCE against RoCEv2 on an 8-plane leaf-spine fabric, from Python: the Python version of
the metaroce-8-plane example (same defaults, same runs, same numbers).

For each workload, transport and loss rate the collective runs in its own process (--processes
at a time, with a progress bar); the table shows nccl-tests' bus bandwidth, the share of the
lossless bus bandwidth each transport keeps, the p99 message completion time and the recovery
work. --csv writes the table, --plot a bar chart of the bus bandwidth.

    scripts/python.sh examples/python/metaroce_8_plane.py
    scripts/python.sh examples/python/metaroce_8_plane.py --hosts 64 --losses 0,0.001,0.01
"""

import argparse
import os

from metaroce import experiment as mx


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hosts", type=int, default=16)
    p.add_argument("--planes", type=int, default=8)
    p.add_argument("--hosts-per-leaf", type=int, default=8)
    p.add_argument("--spines", type=int, default=4)
    p.add_argument("--message-bytes", type=int, default=4 << 20)
    p.add_argument("--workloads", default="allreduce-ring,alltoall")
    p.add_argument("--transports", default="metaroce,rocev2,rocev2-pfc")
    p.add_argument("--losses", default="0,0.01")
    p.add_argument("--processes", type=int, default=os.cpu_count())
    p.add_argument("--csv", help="write the table to this CSV file")
    p.add_argument("--plot", help="write a bar chart of the bus bandwidth to this image")
    return p.parse_args()


def main():
    a = parse_args()
    configs = mx.grid(hosts=a.hosts, planes=a.planes, hosts_per_leaf=a.hosts_per_leaf,
                      spines=a.spines, message_bytes=a.message_bytes,
                      workload=a.workloads.split(","), transport=a.transports.split(","),
                      loss=[float(x) for x in a.losses.split(",")])
    df = mx.sweep(configs, processes=a.processes)

    # The lossless bus bandwidth of each (workload, transport), as the C++ table's "kept".
    lossless = df[df["loss"] == 0].set_index(["workload", "transport"])["collective_busbw_GBps"]
    df["kept_percent"] = [
        100 * (row.collective_busbw_GBps / lossless[(row.workload, row.transport)])
        if (row.workload, row.transport) in lossless.index else float("nan")
        for row in df.itertuples()]
    columns = ["workload", "transport", "loss", "duration_us", "collective_algbw_GBps",
               "collective_busbw_GBps", "kept_percent", "fct_p99_us", "retransmitted",
               "timeouts", "drops", "pfc_pauses", "complete"]
    print(f"{a.hosts} hosts, {a.planes} planes x ({-(-a.hosts // a.hosts_per_leaf)} leaves, "
          f"{a.spines} spines), {a.message_bytes} B per rank, loss at every link end\n")
    table = df[columns].rename(columns=lambda c: c.replace("collective_", ""))
    table["loss"] = [f"{100 * x:.1f}%" for x in table["loss"]]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    if a.csv:
        df.to_csv(a.csv, index=False)
    if a.plot:
        import matplotlib.pyplot as plt

        table = df.pivot_table(index=["workload", "loss"], columns="transport",
                               values="collective_busbw_GBps", sort=False)
        ax = table.plot.bar(figsize=(7, 4), rot=0)
        ax.set_ylabel("bus bandwidth (GB/s)")
        ax.set_title(f"{a.hosts} hosts, {a.planes} planes")
        plt.tight_layout()
        plt.savefig(a.plot)
        print(f"\nplot: {a.plot}")
    return 0 if df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
