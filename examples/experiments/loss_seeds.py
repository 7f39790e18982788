#!/usr/bin/env python3
"""Experiment 1b, the announced figure measured directly: MetaRoCE at 1% loss per path (0.25%
per link end; a path crosses four) on the 64-host, 8-plane fabric, ring all-reduce and
all-to-all of 2 MiB per rank, over several seeds (each seed draws other losses and other
routes), each against the lossless run of the same seed. The announcement: about 86%.

    scripts/python.sh examples/experiments/loss_seeds.py [--quick] [--seeds 5]
"""

import common
import pandas as pd
from metaroce import experiment as mx


def main():
    a = common.arguments(__doc__, seeds=5, planes=8, message_bytes=2 << 20,
                         loss_per_link_end=0.0025, stop_time="3ms",
                         workloads="allreduce-ring,alltoall")
    fabric = common.fabric(a.quick)
    configs = [dict(fabric, planes=a.planes, workload=w, transport="metaroce", loss=loss,
                    message_bytes=a.message_bytes, stop_time=a.stop_time, seed=seed)
               for w in a.workloads.split(",") for seed in range(1, a.seeds + 1)
               for loss in (0.0, a.loss_per_link_end)]
    df = mx.sweep(configs, processes=a.processes)
    lossy = common.kept_against_lossless(df, ["workload", "seed"])
    rows = []
    for workload, g in lossy.groupby("workload", sort=False):
        kept = g["kept_percent"]
        rows.append({"workload": workload, "seeds": len(g), "mean": kept.mean(),
                     "min": kept.min(), "max": kept.max(),
                     "per_seed": " / ".join(f"{k:.1f}" for k in kept)})
    table = common.markdown(pd.DataFrame(rows), {
        "workload": "workload", "seeds": "seeds", "mean": "MetaRoCE kept, mean (%)",
        "min": "min (%)", "max": "max (%)", "per_seed": "per seed (%)"})
    name = "loss-seeds" + ("-quick" if a.quick else "")
    note = (f"{fabric['hosts']} hosts, {a.planes} planes, {a.message_bytes} B per rank, "
            f"{100 * a.loss_per_link_end:g}% loss per link end on every plane (about "
            f"{400 * a.loss_per_link_end:g}% per path); each seed against its own lossless run.")
    common.write_table(a.out, name, df, table, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
