#!/usr/bin/env python3
"""Experiment 5, incast: N hosts (7, 15, 31 and 63 by default) send to one at the same time,
with the receiver's rate hints honoured and ignored (MetaRoCE), with a first window of one
packet per path, with receiver admission (spec 8.5: the receiver grants credit; the senders
start with one packet, or with their windows), with ACKs behind other queue pairs' data (ControlFirst off, spec A38, the
default until 2026-12-03), and RoCEv2 with PFC and DCQCN for reference. Time to converge
(until the senders' rates stay fair: Jain's index >= 0.9), in base RTTs; fairness (mean Jain's
index over the senders while all still send); the deepest switch queue; the incast's
completion time.

The MetaRoCE receiver advertises its fair share (its line rate over its active senders) in every
ACK; a sender that honours the hint paces at it from the first ACK on, instead of waiting for
ECN marks and window cuts to find it.

    scripts/python.sh examples/experiments/incast.py [--quick]
"""

import math

import common
import matplotlib.pyplot as plt
import pandas as pd
from metaroce import experiment as mx

VARIANTS = [("MetaRoCE, rate hints honoured", "metaroce", "HonourRateHint=true"),
            ("MetaRoCE, rate hints ignored", "metaroce", "HonourRateHint=false"),
            ("MetaRoCE, hints, first window 1 packet per path", "metaroce",
             "HonourRateHint=true;InitialFlowWindow=1"),
            ("MetaRoCE, hints, receiver admission", "metaroce",
             "HonourRateHint=true;AdmissionRtt=16us;UnscheduledBytes=4160"),
            ("MetaRoCE, hints, receiver admission, no unscheduled limit", "metaroce",
             "HonourRateHint=true;AdmissionRtt=16us"),
            ("MetaRoCE, hints, ACKs behind data", "metaroce",
             "HonourRateHint=true;ControlFirst=false"),
            ("RoCEv2 + PFC (DCQCN)", "rocev2-pfc", "")]


def converge(jains, interval_us, threshold=0.9):
    """Start of the first interval from which Jain's index stays >= threshold (us)."""
    for i in range(len(jains)):
        if all(j >= threshold for j in jains[i:]):
            return i * interval_us
    return float("nan")


def one(fabric, a, senders, label, transport, nic, rtt_us):
    """One incast of `senders` to host 0: its table row and its Jain series."""
    hosts = senders + 1
    fab = dict(fabric, hosts=hosts, hosts_per_leaf=min(fabric["hosts_per_leaf"], hosts))
    # Rates are measured over intervals in which a sender at its fair share sends at least
    # eight packets, so that one packet more or less does not read as unfairness.
    fair_packet_us = senders * 4160 * 8 / (common.gbps(fabric["host_rate"]) * 1e3)
    interval_us = max(a.interval_us, 5 * math.ceil(8 * fair_packet_us / 5))
    r = mx.run(dict(fab, planes=a.planes, workload="incast", transport=transport,
                    message_bytes=a.message_bytes, nic_attributes=nic,
                    throughput_interval=f"{interval_us}us"))
    h = r.host_throughput
    if h.empty:  # over before the first interval ended
        h = pd.DataFrame(columns=["start_us", "host", "tx_bytes"])
    per = h[h["host"] != 0].pivot(index="start_us", columns="host", values="tx_bytes").fillna(0)
    # While every sender still has data: up to the interval in which the first one sends its
    # last byte (that interval is partial). A sender paused for a whole interval counts as 0.
    last = per.apply(lambda column: column[column > 0].index.max())
    window = per[per.index < last.min()]
    jains = [common.jain(row) for _, row in window.iterrows()]
    conv = converge(jains, interval_us)
    # The incast's own loaded round trip: the first window of every sender queued at once
    # ahead of the receiver's port, drained at its line rate.
    row = {"senders": senders, "variant": label, "interval_us": interval_us,
           "complete": r.summary["complete"], "time_us": r.summary["duration_us"],
           "converge_us": conv, "converge_rtts": conv / rtt_us,
           "jain": sum(jains) / len(jains) if jains else float("nan"),
           "fair_share_percent": 100 * sum(j >= 0.9 for j in jains) / len(jains) if jains
           else float("nan"),
           "queue_kb": r.summary["max_queue_bytes"] / 1000,
           "loaded_rtt_us": rtt_us + r.summary["max_queue_bytes"] * 8 /
           (common.gbps(fabric["host_rate"]) * 1e3),
           "drops": sum(v for k, v in r.drops.items() if not k.startswith("nic-")),
           "pauses": r.summary["pfc_pauses"]}
    return row, pd.Series(jains, index=window.index)


def main():
    a = common.arguments(__doc__, senders="7,15,31,63", planes=1, message_bytes=1 << 20,
                         interval_us=25)
    fabric = common.fabric(a.quick)
    counts = [n for n in (int(x) for x in a.senders.split(",")) if n < fabric["hosts"]]
    # Base RTT: four links each way (host, fabric, fabric, host), serialisation aside.
    rtt_us = 2 * (2 * common.microseconds(fabric["host_delay"]) +
                  2 * common.microseconds(fabric["fabric_delay"]))
    rows, series = [], {}
    for n in counts:
        for label, transport, nic in VARIANTS:
            row, jains = one(fabric, a, n, label, transport, nic, rtt_us)
            rows.append(row)
            series[(n, label)] = jains
    df = pd.DataFrame(rows)
    df["converge_loaded_rtts"] = df["converge_us"] / df["loaded_rtt_us"]
    table = common.markdown(df, {"senders": "N", "variant": "variant", "complete": "completed",
                                 "time_us": "incast done (us)",
                                 "converge_us": "converged after (us)",
                                 "converge_rtts": "... in base RTTs",
                                 "converge_loaded_rtts": "... in loaded RTTs",
                                 "jain": "mean Jain index",
                                 "fair_share_percent": "intervals with Jain >= 0.9 (%)",
                                 "queue_kb": "deepest queue (kB)", "drops": "drops",
                                 "pauses": "PFC pauses"}, floats="{:.2f}")
    largest = max(counts)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for (n, label), s in series.items():
        if n == largest:
            axes[0].step(s.index, s.values, where="post", label=label)
    axes[0].set_xlabel("time (us)")
    axes[0].set_ylabel("Jain's index over the senders' rates")
    axes[0].set_ylim(0, 1.05)
    axes[0].set_title(f"{largest}-to-1 incast, {a.message_bytes} B each, {a.planes} plane(s)")
    axes[0].grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    for label, _, _ in VARIANTS:
        g = df[df["variant"] == label]
        axes[1].plot(g["senders"], g["jain"], marker="o", label=label)
    axes[1].set_xlabel("senders N")
    axes[1].set_ylabel("mean Jain index while all send")
    axes[1].set_ylim(0, 1.05)
    axes[1].set_title("fairness against incast degree")
    axes[1].grid(True, alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    note = (f"N senders to one host, {a.planes} plane(s), {a.message_bytes} B each; rates from "
            "the senders' transmitted bytes per interval (at least "
            f"{a.interval_us} us, and eight packets of a fair share); base RTT "
            f"{rtt_us:.0f} us; a loaded RTT adds the deepest queue drained at the host's line "
            "rate.")
    common.save(a.out, "incast" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0 if df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
