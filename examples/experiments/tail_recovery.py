#!/usr/bin/env python3
"""Experiment 13, recovery at the tail (spec 7.3, 4.5, A37, A41, A42): once a connection has
nothing new to send, a tail marker follows the newest packet of every path still in flight, a
lost packet goes again in two copies, and the NIC sends the recovery of every queue pair -
markers, probes, retransmissions of packets proven lost - before any queue pair's new data.
MetaRoCE on the 64-host, 8-plane fabric at the announced point (1% loss per path, 0.25% per
link end) and lossless, ring all-reduce and all-to-all of 2 MiB per rank over several seeds and
of 64 MiB (one seed): the defaults, the copies and the recovery first each turned off alone, and
both off (experiment 11, tail_markers.py, turns the markers off).

    scripts/python.sh examples/experiments/tail_recovery.py [--quick] [--seeds 5]
"""

import common
from metaroce import experiment as mx

VARIANTS = {
    "defaults": "",
    "one copy at the tail": "TailRetransmitCopies=1",
    "recovery in turn": "RecoveryFirst=false",
    "both off": "TailRetransmitCopies=1;RecoveryFirst=false",
}
WORKLOADS = ["alltoall", "allreduce-ring"]


def configs(a, fabric):
    return common.variant_runs(a, fabric, VARIANTS.values(), WORKLOADS)


def summary(df):
    """One row per (workload, size, variant): kept share per seed against the same seed's
    lossless run, and the mean time and packet counts of the lossy runs."""
    df = df.copy()
    names = {v: k for k, v in VARIANTS.items()}
    df["variant"] = [names[n if isinstance(n, str) else ""] for n in df["nic_attributes"]]
    return common.kept_by_variant(
        df, "variant", {"lossless_retx": "retransmitted", "lossless_hops": "packet_hops"},
        {"retransmitted": "retransmitted", "spurious": "spurious_retransmissions",
         "tail_markers": "tail_markers", "timeouts": "timeouts"})


COLUMNS = {
    "workload": "workload", "size_mib": "size (MiB)", "variant": "variant", "seeds": "seeds",
    "lossless_us": "lossless time (us)", "lossless_retx": "lossless retransmissions",
    "lossless_hops": "lossless packet-hops", "lossy_us": "1% per path: time (us)",
    "kept": "kept, mean (%)", "per_seed": "kept per seed (%)",
    "retransmitted": "retransmissions", "spurious": "spurious", "tail_markers": "markers sent",
    "timeouts": "timeouts"}


def main():
    return common.settings_experiment(__doc__, "tail-recovery", configs, summary, COLUMNS,
                                      mx.sweep)


if __name__ == "__main__":
    raise SystemExit(main())
