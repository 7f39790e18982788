#!/usr/bin/env python3
"""Experiment 11, tail markers (spec 4.5, A41): behind every packet after which a connection has
nothing left to send, a small PROBE follows on the same path in the data class; its ACK shows
the packet's PSN missing one round trip after it left, where the time rule needs a later
packet's ACK plus a reorder window and the tail-loss probe waits srtt + 4 rttvar. MetaRoCE on
the 64-host, 8-plane fabric at the announced point (1% loss per path, 0.25% per link end) and
lossless, ring all-reduce and all-to-all of 2 MiB per rank over several seeds and of 64 MiB
(one seed), with TailMarkers on (the default) and off.

    scripts/python.sh examples/experiments/tail_markers.py [--quick] [--seeds 5]
"""

import common
from metaroce import experiment as mx

VARIANTS = {"on": "TailMarkers=true", "off": "TailMarkers=false"}
WORKLOADS = ["alltoall", "allreduce-ring"]


def configs(a, fabric):
    return common.variant_runs(a, fabric, VARIANTS.values(), WORKLOADS)


def summary(df):
    """One row per (workload, size, markers on or off): kept share per seed against the same
    seed's lossless run, and the mean time and packet counts of the lossy runs."""
    df = df.copy()
    names = {v: k for k, v in VARIANTS.items()}
    df["markers"] = [names[n] for n in df["nic_attributes"]]
    return common.kept_by_variant(
        df, "markers", {"lossless_retx": "retransmitted"},
        {"retransmitted": "retransmitted", "spurious": "spurious_retransmissions",
         "tail_probes": "tail_probes", "tail_markers": "tail_markers"})


COLUMNS = {
    "workload": "workload", "size_mib": "size (MiB)", "markers": "tail markers",
    "seeds": "seeds", "lossless_us": "lossless time (us)",
    "lossless_retx": "lossless retransmissions", "lossy_us": "1% per path: time (us)",
    "kept": "kept, mean (%)", "per_seed": "kept per seed (%)",
    "retransmitted": "retransmissions", "spurious": "spurious",
    "tail_probes": "tail probes", "tail_markers": "markers sent"}


def main():
    return common.settings_experiment(__doc__, "tail-markers", configs, summary, COLUMNS, mx.sweep)


if __name__ == "__main__":
    raise SystemExit(main())
