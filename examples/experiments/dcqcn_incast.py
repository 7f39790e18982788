#!/usr/bin/env python3
"""Validation, DCQCN (Zhu et al., SIGCOMM 2015): fairness and the switch queue when 2, 8 and 16
senders start at once into one 40 Gb/s port (the paper's testbed rate), with PFC on as in the
paper's deployment, for the paper's DCQCN, the NICs' DCQCN (the model's default) and PFC alone.
Per flow: its rate over the measured window; Jain's index; when the senders' rates first stay
fair; the bottleneck's queue sampled every microsecond (mean, 99th percentile, largest); PAUSE
frames (doc/validation.md, section 7).

    scripts/python.sh examples/experiments/dcqcn_incast.py          # doc/validation/dcqcn-incast.*
    scripts/python.sh examples/experiments/dcqcn_incast.py --quick  # 2:1 only, 5 ms, seconds
    scripts/python.sh examples/experiments/dcqcn_incast.py --rate 100Gbps

RED as the DCQCN paper sets it: Kmin 5 KB, Kmax 200 KB, Pmax 1%, on the instantaneous queue.
"""

import math

import common
import matplotlib.pyplot as plt
import metaroce
import numpy as np
import pandas as pd

VARIANTS = [("DCQCN, paper's algorithm", "ns3::MetaRoceDcqcn[Variant=paper]"),
            ("DCQCN, NIC algorithm (default)", "ns3::MetaRoceDcqcn"),
            ("PFC alone (no DCQCN)", "ns3::MetaRoceDcqcn[Enabled=false]")]
PAPER_RED = {"EcnKmin": 5000, "EcnKmax": 200000, "EcnPmax": 0.01}


def one(senders, rate, control, end_us, warmup_us, interval_us):
    """`senders` hosts WRITE to host 0 from time 0 until `end_us`; returns the measured row and
    the per-interval Jain series."""
    f = metaroce.Fabric(hosts=senders + 1, planes=1, hosts_per_leaf=senders + 1, spines=0,
                        host_rate=rate, host_delay="1us",
                        nic={"RoceRateControl": control},
                        switch=dict(PAPER_RED, PfcEnabled=True))
    sw = f.helper.GetLeaf(0, 0)
    port = next(i for i in range(senders + 1)
                if sw.GetPortDevice(i) == f.helper.GetHostLink(0, 0).second)
    receivers = []
    chunk = 1 << 30
    messages = int(end_us * 1e-6 * common.gbps(rate) * 1e9 / 8 / chunk) + 1
    for s in range(1, senders + 1):
        qa, qb = f.connect(s, 0, "rocev2")
        receivers.append(qb)
        for _ in range(messages):
            qa.PostWrite(0, chunk)
    queue = []
    placed = []

    def sample_queue():
        queue.append(int(sw.GetQueueBytes(port, 1)))  # the data class

    def sample_flows():
        placed.append([int(qb.GetCounters().placedBytes) for qb in receivers])

    for t in range(warmup_us, end_us):
        metaroce.schedule(f"{t}us", sample_queue)
    for t in range(0, end_us + 1, interval_us):
        metaroce.schedule(f"{t}us", sample_flows)
    metaroce.run(until=f"{end_us + 1}us")  # the last sample, at end_us, included
    counters = sw.GetPortCounters(port)
    pauses = sum(int(sw.GetPortCounters(i).pauseSent) for i in range(senders + 1))
    drops = f.switch_drops()
    marked = int(counters.ecnMarked)
    forwarded = int(counters.txPackets)
    metaroce.reset()

    placed = np.array(placed, dtype=float)
    rates = np.diff(placed, axis=0) * 8 / (interval_us * 1e3)  # Gb/s per interval
    starts = np.arange(len(rates)) * interval_us
    jains = pd.Series([common.jain(r) for r in rates], index=starts)
    fair = jains[jains >= 0.9]
    converged = next((t for t in jains.index if (jains[jains.index >= t] >= 0.9).all()),
                     float("nan")) if len(fair) else float("nan")
    first = int(warmup_us / interval_us)
    flow = (placed[-1] - placed[first]) * 8 / ((end_us - first * interval_us) * 1e3)
    q = np.array(queue, dtype=float)
    row = {"senders": senders, "rate": rate, "flow_min_gbps": flow.min(),
           "flow_max_gbps": flow.max(), "total_gbps": flow.sum(), "fair_gbps":
           common.gbps(rate) * 4096 / 4142 / senders, "jain": common.jain(flow),
           "converged_us": converged,
           "fair_percent": 100 * float((jains >= 0.9).mean()) if len(jains) else float("nan"),
           "queue_mean_kb": q.mean() / 1e3,
           "queue_p99_kb": np.percentile(q, 99) / 1e3, "queue_max_kb": q.max() / 1e3,
           "marked_share": marked / max(forwarded, 1), "pauses": pauses, "drops": drops}
    return row, jains


def main():
    a = common.arguments(__doc__, results=common.VALIDATION, senders="2,8,16", rate="40Gbps",
                         end_us=30000, warmup_us=10000, interval_us=100)
    try:
        common.gbps(a.rate)
    except ValueError as e:
        raise SystemExit(f"--rate: {e}")
    counts = [int(x) for x in a.senders.split(",")]
    if any(n < 1 or n > 64 for n in counts):
        raise SystemExit(f"--senders: {a.senders}: each count must be in [1, 64]")
    if not 0 <= a.warmup_us < a.end_us or a.interval_us <= 0:
        raise SystemExit("--warmup-us, --end-us, --interval-us: need 0 <= warmup < end and a "
                         "positive interval")
    if a.quick:
        counts, a.end_us, a.warmup_us = [2], 5000, 2000
    rows, series = [], {}
    for n in counts:
        # Rates per interval in which a flow at its fair share sends at least 16 full packets,
        # so that one packet more or less (PFC pauses whole packets) does not read as unfair.
        fair_packet_us = n * 4142 * 8 / (common.gbps(a.rate) * 1e3)
        interval_us = max(a.interval_us, 100 * math.ceil(16 * fair_packet_us / 100))
        for label, control in VARIANTS:
            row, jains = one(n, a.rate, control, a.end_us, a.warmup_us, interval_us)
            row["interval_us"] = interval_us
            row["variant"] = label
            rows.append(row)
            series[(n, label)] = jains
            print(f"{n}:1 {label}: Jain {row['jain']:.4f}, queue {row['queue_mean_kb']:.1f} KB",
                  flush=True)
    df = pd.DataFrame(rows)
    table = common.markdown(df, {
        "senders": "N:1", "variant": "variant", "flow_min_gbps": "slowest flow (Gb/s)",
        "flow_max_gbps": "fastest (Gb/s)", "fair_gbps": "fair share (Gb/s)",
        "jain": "Jain", "interval_us": "interval (us)",
        "converged_us": "Jain >= 0.9 from (us)", "fair_percent": "intervals Jain >= 0.9 (%)",
        "queue_mean_kb": "queue mean (KB)", "queue_p99_kb": "p99 (KB)",
        "queue_max_kb": "max (KB)", "marked_share": "marked share", "pauses": "PAUSEs",
        "drops": "drops"}, floats="{:.3g}")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for (n, label), s in series.items():
        if n == max(counts):
            axes[0].step(s.index / 1e3, s.values, where="post", label=label)
    axes[0].set_xlabel("time (ms)")
    axes[0].set_ylabel("Jain's index per interval")
    axes[0].set_title(f"{max(counts)}:1 incast into one {a.rate} port, PFC on")
    axes[0].set_ylim(0, 1.05)
    for label, _ in VARIANTS:
        g = df[df["variant"] == label]
        axes[1].plot(g["senders"], g["queue_mean_kb"], marker="o", label=f"{label}, mean")
        axes[1].plot(g["senders"], g["queue_p99_kb"], ls=":",
                     color=axes[1].lines[-1].get_color(), label=f"{label}, p99")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("senders N")
    axes[1].set_ylabel("bottleneck queue (KB)")
    axes[1].axhline(5, color="grey", lw=0.7, ls="--")
    axes[1].axhline(200, color="grey", lw=0.7, ls="--")
    axes[1].set_title("queue, Kmin 5 KB and Kmax 200 KB dashed")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    note = (f"N senders and one receiver on one switch, {a.rate}, 1 us links, RoCEv2 WRITEs from "
            f"time 0; RED 5 KB / 200 KB / 1%, PFC on (default Xoff/Xon); rates and queue "
            f"measured from {a.warmup_us} to {a.end_us} us; fair share: the link's payload rate "
            "over N.")
    common.save(a.out, "dcqcn-incast" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
