#!/usr/bin/env python3
"""Experiment 10, ACK repeats (spec 5.3, 4.2, A40): every ACK carries the latest ACKs of up to
AckRepeats other paths of its connection, so that a lost ACK no longer costs a retransmission of
a packet that had arrived. MetaRoCE on the 64-host, 8-plane fabric at the announced point (1%
loss per path, 0.25% per link end) and lossless, ring all-reduce and all-to-all of 2 MiB per
rank over several seeds, and the all-to-all of 64 MiB (one seed), for AckRepeats 0 (the ACKs
before), 1, 2 (the default) and 4.

    scripts/python.sh examples/experiments/ack_repeats.py [--quick] [--seeds 5]
"""

import common
from metaroce import experiment as mx

REPEATS = [0, 1, 2, 4]
WORKLOADS = ["alltoall", "allreduce-ring"]


def configs(a, fabric):
    def run(workload, size, seed, loss, repeats):
        return dict(fabric, planes=8, workload=workload, transport="metaroce", loss=loss,
                    message_bytes=size, seed=seed, stop_time="20ms",
                    nic_attributes=f"AckRepeats={repeats}")

    out = [run(w, a.message_bytes, seed, loss, r) for r in REPEATS for w in WORKLOADS
           for seed in range(1, a.seeds + 1) for loss in (0.0, a.loss_per_link_end)]
    if not a.quick:
        out += [run("alltoall", a.large_bytes, 1, loss, r) for r in (0, 2)
                for loss in (0.0, a.loss_per_link_end)]
    return out


def summary(df):
    """One row per (workload, size, AckRepeats): kept share per seed against the same seed's
    lossless run, and the mean time and packet counts of the lossy runs."""
    df = df.copy()
    df["repeats"] = [int(n.split("=")[1]) for n in df["nic_attributes"]]
    return common.kept_by_variant(
        df, "repeats", {"lossless_spurious": "spurious_retransmissions"},
        {"retransmitted": "retransmitted", "spurious": "spurious_retransmissions",
         "hits": "ack_repeat_hits"})


COLUMNS = {
    "workload": "workload", "size_mib": "size (MiB)", "repeats": "AckRepeats",
    "seeds": "seeds", "lossless_us": "lossless time (us)",
    "lossless_spurious": "lossless spurious", "lossy_us": "1% per path: time (us)",
    "kept": "kept, mean (%)", "per_seed": "kept per seed (%)",
    "retransmitted": "retransmissions", "spurious": "spurious",
    "hits": "repeats that counted"}


def main():
    return common.settings_experiment(__doc__, "ack-repeats", configs, summary, COLUMNS, mx.sweep)


if __name__ == "__main__":
    raise SystemExit(main())
