#!/usr/bin/env python3
"""Experiment 5, incast: N hosts send to one at the same time, with the receiver's rate hints
honoured and ignored (MetaRoCE), and RoCEv2 with PFC and DCQCN for reference. Time to converge
(until the senders' rates stay fair: Jain's index >= 0.9), in base RTTs; fairness (mean Jain's
index over the senders while all still send); the deepest switch queue; the incast's
completion time.

The MetaRoCE receiver advertises its fair share (its line rate over its active senders) in every
ACK; a sender that honours the hint paces at it from the first ACK on, instead of waiting for
ECN marks and window cuts to find it.

    scripts/python.sh examples/experiments/incast.py [--quick]
"""

import common
import matplotlib.pyplot as plt
import pandas as pd
from metaroce import experiment as mx

VARIANTS = [("MetaRoCE, rate hints honoured", "metaroce", "HonourRateHint=true"),
            ("MetaRoCE, rate hints ignored", "metaroce", "HonourRateHint=false"),
            ("RoCEv2 + PFC (DCQCN)", "rocev2-pfc", "")]


def converge(jains, interval_us, threshold=0.9):
    """Start of the first interval from which Jain's index stays >= threshold (us)."""
    for i in range(len(jains)):
        if all(j >= threshold for j in jains[i:]):
            return i * interval_us
    return float("nan")


def main():
    a = common.arguments(__doc__, senders=15, planes=1, message_bytes=1 << 20, interval_us=25)
    fabric = common.fabric(a.quick)
    hosts = min(fabric["hosts"], a.senders + 1)
    fabric = dict(fabric, hosts=hosts, hosts_per_leaf=min(fabric["hosts_per_leaf"], hosts))
    # Base RTT: four links each way (host, fabric, fabric, host), serialisation aside.
    rtt_us = 2 * (2 * common.microseconds(fabric["host_delay"]) +
                  2 * common.microseconds(fabric["fabric_delay"]))
    rows, series = [], {}
    for label, transport, nic in VARIANTS:
        r = mx.run(dict(fabric, planes=a.planes, workload="incast", transport=transport,
                        message_bytes=a.message_bytes, nic_attributes=nic,
                        throughput_interval=f"{a.interval_us}us"))
        h = r.host_throughput
        senders = h[h["host"] != 0]
        per = senders.pivot(index="start_us", columns="host", values="tx_bytes").fillna(0)
        # While every sender still has data: until the first one is done (its rate drops to 0
        # for good).
        active = per[(per > 0).all(axis=1)]
        end = active.index.max() if not active.empty else per.index.min()
        window = per[per.index <= end]
        jains = [common.jain(row) for _, row in window.iterrows()]
        conv = converge(jains, a.interval_us)
        rows.append({"variant": label, "complete": r.summary["complete"],
                     "time_us": r.summary["duration_us"],
                     "converge_us": conv, "converge_rtts": conv / rtt_us,
                     "jain": sum(jains) / len(jains) if jains else float("nan"),
                     "queue_kb": r.summary["max_queue_bytes"] / 1000,
                     "drops": sum(v for k, v in r.drops.items() if not k.startswith("nic-")),
                     "pauses": r.summary["pfc_pauses"]})
        series[label] = pd.Series(jains, index=window.index)
    df = pd.DataFrame(rows)
    table = common.markdown(df, {"variant": "variant", "complete": "completed",
                                 "time_us": "incast done (us)",
                                 "converge_us": "converged after (us)",
                                 "converge_rtts": "... in base RTTs", "jain": "mean Jain index",
                                 "queue_kb": "deepest queue (kB)", "drops": "drops",
                                 "pauses": "PFC pauses"}, floats="{:.2f}")
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, s in series.items():
        ax.step(s.index, s.values, where="post", label=label)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("Jain's index over the senders' rates")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{a.senders}-to-1 incast, {a.message_bytes} B each, {a.planes} plane(s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    note = (f"{a.senders} senders, {a.planes} plane(s), {a.message_bytes} B each; rates per "
            f"{a.interval_us} us interval from the senders' transmitted bytes; base RTT "
            f"{rtt_us:.0f} us.")
    common.save(a.out, "incast" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0 if df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
