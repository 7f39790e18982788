#!/usr/bin/env python3
"""Experiment 6, large buffers: ring all-reduce and all-to-all of 256 MiB per rank on the
64-host, 8-plane fabric (16 GiB per collective) over the three transports, lossless and at the
announced point, 1% loss per path (0.25% per link end): bus bandwidth (nccl-tests), the share of
the lossless bandwidth kept, message completion time, and the retransmissions and timeouts
behind them.

RoCEv2's go-back-N takes several times its lossless time at 1% per path (tens to a hundred
milliseconds of fabric time at this size, a few minutes of simulation each), hence the stop
time of 400 ms.

    scripts/python.sh examples/experiments/large_buffers.py [--quick] [--size BYTES]
"""

import common
import matplotlib.pyplot as plt
from metaroce import experiment as mx

WORKLOADS = ["allreduce-ring", "alltoall"]


def main():
    a = common.arguments(__doc__, size=256 << 20, loss=0.0025, stop_time="400ms")
    fabric = common.fabric(a.quick)
    size = (4 << 20) if a.quick else a.size
    configs = [dict(fabric, planes=8, workload=w, transport=t, message_bytes=size, loss=0.0,
                    stop_time=a.stop_time)
               for w in WORKLOADS for t in common.TRANSPORTS]
    configs += [dict(fabric, planes=8, workload=w, transport=t, message_bytes=size, loss=a.loss,
                     stop_time=a.stop_time) for w in WORKLOADS for t in common.TRANSPORTS]
    df = mx.sweep(configs, processes=a.processes)
    df["size_mib"] = df["message_bytes"] / (1 << 20)
    df["loss_percent"] = [f"{100 * loss:g}" for loss in df["loss"]]
    df["label"] = [common.LABELS[t] for t in df["transport"]]
    df["busbw"] = [r.collective_busbw_GBps if r.complete else float("nan")
                   for r in df.itertuples()]
    lossless = {(r.workload, r.transport): r.busbw for r in df.itertuples() if r.loss == 0}
    df["kept_percent"] = [100 * r.busbw / lossless[(r.workload, r.transport)]
                          for r in df.itertuples()]
    table = common.markdown(
        df, {"workload": "workload", "loss_percent": "loss per link end (%)", "label": "transport",
             "size_mib": "size (MiB)", "busbw": "busbw (GB/s)", "kept_percent": "kept (%)",
             "fct_mean_us": "message FCT mean (us)", "fct_p99_us": "p99 (us)",
             "retransmitted": "retransmissions", "timeouts": "timeouts",
             "spurious_losses": "spurious losses", "wall_seconds": "wall (s)",
             "complete": "completed"})
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [f"{r.workload}\n{common.LABELS[r.transport].split(' ')[0]}, {r.loss_percent}%"
              for r in df.itertuples()]
    ax.bar(range(len(df)), df["busbw"])
    ax.set_xticks(range(len(df)), labels, fontsize=6, rotation=45, ha="right")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(f"{fabric['hosts']} hosts, 8 planes, {size >> 20} MiB per rank")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    note = (f"{fabric['hosts']} hosts, 8 planes x 100 Gb/s (line rate x planes = 100 GB/s per "
            f"host), {size} B per rank; loss {100 * a.loss:g}% per link end is about "
            f"{400 * a.loss:g}% per path across the spines; stop time {a.stop_time}.")
    common.save(a.out, "large-buffers" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
