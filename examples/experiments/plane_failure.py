#!/usr/bin/env python3
"""Experiment 4, plane failure: an 8-plane fabric loses a whole plane (and, separately, one
spine, or one leaf-spine link) in the middle of a ring all-reduce over MetaRoCE. Delivered
throughput over time before, during and after; the time until throughput is back to at least
90% of 7/8 of the pre-failure rate; bytes lost (must be zero); no application action - the
collective is the same object throughout, nothing is told of the failure but the NICs and
switches at the ends of the failed links.

    scripts/python.sh examples/experiments/plane_failure.py [--quick]
"""

import common
import matplotlib.pyplot as plt
import pandas as pd
from metaroce import experiment as mx

FAILURES = [("none", {}), ("plane", dict(failure="plane", failure_plane=3)),
            ("spine", dict(failure="spine", failure_plane=3, failure_index=1)),
            ("fabric-link", dict(failure="fabric-link", failure_plane=3, failure_index=0,
                                 failure_spine=1))]


def recovery(t, at_us, interval_us, expected_gbps):
    """First sample start, relative to the failure, from which throughput stays at or above
    90% of `expected_gbps` until the tail of the run (the last 10% of samples are the tail)."""
    after = t[t["start_us"] >= at_us].reset_index(drop=True)
    body = after.iloc[: max(1, int(len(after) * 0.9))]
    ok = body["gbps"] >= 0.9 * expected_gbps
    for i in range(len(body)):
        if ok.iloc[i:].all():
            return float(body["start_us"].iloc[i] - at_us + interval_us)
    return float("nan")


def main():
    a = common.arguments(__doc__, message_bytes=32 << 20, failure_at_us=100, interval_us=5)
    fabric = common.fabric(a.quick)
    rows, series = [], {}
    for name, failure in FAILURES:
        # The baseline has no failure, so no failure time (a field the run would not use).
        when = dict(failure_at=f"{a.failure_at_us}us") if failure else {}
        r = mx.run(dict(fabric, planes=8, workload="allreduce-ring", transport="metaroce",
                        message_bytes=a.message_bytes, throughput_interval=f"{a.interval_us}us",
                        **when, **failure))
        t = r.throughput
        before = t[(t["start_us"] >= 20) & (t["start_us"] < a.failure_at_us)]["gbps"].mean()
        after = t[(t["start_us"] >= a.failure_at_us)]
        rec = float("nan") if name == "none" else recovery(
            t, a.failure_at_us, a.interval_us, before * 7 / 8 if name == "plane" else before)
        rows.append({"failure": name, "complete": r.summary["complete"],
                     "time_us": r.collective["time_us"],
                     "before_gbps": before,
                     "after_gbps": after.iloc[: max(1, int(len(after) * 0.9))]["gbps"].mean(),
                     "recovery_us": rec,
                     "bytes_lost": r.collective["bytes_expected"] - r.collective["bytes_sent"],
                     "retransmitted": r.summary["retransmitted"],
                     "timeouts": r.summary["timeouts"]})
        series[name] = t
    df = pd.DataFrame(rows)
    table = common.markdown(df, {"failure": "failure at %d us" % a.failure_at_us,
                                 "complete": "completed", "time_us": "all-reduce time (us)",
                                 "before_gbps": "before (Gb/s)", "after_gbps": "after (Gb/s)",
                                 "recovery_us": "recovery (us)", "bytes_lost": "bytes lost",
                                 "retransmitted": "retransmitted", "timeouts": "timeouts"})
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for name, t in series.items():
        ax.step(t["start_us"], t["gbps"], where="post", label=name)
    ax.axvline(a.failure_at_us, color="grey", ls="--", lw=0.8)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("delivered, all hosts (Gb/s)")
    ax.set_title(f"ring all-reduce, {fabric['hosts']} hosts, 8 planes, MetaRoCE: "
                 "failure in plane 3")
    ax.grid(True, alpha=0.3)
    ax.legend(title="failure")
    fig.tight_layout()
    pd.concat({k: v for k, v in series.items()}, names=["failure"]).to_csv(
        f"{a.out}/plane-failure{'-quick' if a.quick else ''}-throughput.csv")
    note = (f"{fabric['hosts']} hosts, 8 planes, {a.message_bytes} B per rank, samples every "
            f"{a.interval_us} us; recovery: time from the failure until delivery stays at or "
            "above 90% of the expected rate (7/8 of before for a plane, all of it otherwise).")
    common.save(a.out, "plane-failure" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0 if df["complete"].all() and (df["bytes_lost"] == 0).all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
