#!/usr/bin/env python3
"""Experiment 14, what a lossless collective costs on the wire (spec 5.3, A43): the bytes the
hosts transmit over the payload they deliver, and how far that alone puts a collective from the
ideal. All-to-all and ring all-reduce of 64 MiB per rank on the 64-host, 8-plane fabric,
lossless, over MetaRoCE with ACKs that leave an empty SACK out (the default),
with the full 64-byte ACK (`CompactAcks=false`) and over RoCEv2; MetaRoCE also at the
announced point (1% loss per path, 0.25% per link end), and the 2 MiB all-to-all over --seeds
seeds, lossless and at 1% per path, with and without compact ACKs.

"Ideal" is the payload at line rate: the bus bandwidth over 100 GB/s (8 planes x 100 Gb/s per
host). "Wire over payload" is the summary's host_wire_bytes over bytes_delivered: every header
from the link's framing up, ACKs, markers and retransmissions; "busy" is the time the host links
would need for those bytes at line rate over the collective's time.

    scripts/python.sh examples/experiments/wire_bytes.py [--quick] [--seeds 8]
"""

import common
import pandas as pd
from metaroce import experiment as mx

VARIANTS = {"MetaRoCE": ("metaroce", ""),
            "MetaRoCE, full ACKs": ("metaroce", "CompactAcks=false"),
            "RoCEv2": ("rocev2", "")}
PLANES = 8


def configs(a, fabric):
    large = (4 << 20) if a.quick else (64 << 20)
    small = (256 << 10) if a.quick else (2 << 20)
    runs = []
    for name, (transport, attributes) in VARIANTS.items():
        for workload in ("alltoall", "allreduce-ring"):
            losses = (0.0, a.loss) if transport == "metaroce" else (0.0,)
            runs += [dict(fabric, planes=PLANES, workload=workload, transport=transport,
                          loss=loss, message_bytes=large, seed=1, stop_time="20ms",
                          nic_attributes=attributes, variant=name) for loss in losses]
        if transport == "metaroce":
            runs += [dict(fabric, planes=PLANES, workload="alltoall", transport=transport,
                          loss=loss, message_bytes=small, seed=seed, stop_time="20ms",
                          nic_attributes=attributes, variant=name)
                     for seed in range(1, a.seeds + 1) for loss in (0.0, a.loss)]
    return runs


def large_table(df, fabric):
    """One row per run of the large buffer: time over the ideal, bytes on the wire."""
    line_rate_gbps = common.gbps(fabric["host_rate"]) * PLANES  # Gb/s per host
    rows = []
    big = df[df["message_bytes"] == df["message_bytes"].max()]
    rocev2 = {r.workload: r.collective_busbw_GBps for r in big.itertuples()
              if r.transport == "rocev2"}
    for r in big.itertuples():
        wire_us = r.host_wire_bytes * 8 / (fabric["hosts"] * line_rate_gbps * 1e3)
        rows.append({
            "workload": r.workload, "variant": r.variant, "loss": f"{100 * r.loss:g}",
            "time_us": r.collective_time_us, "busbw": r.collective_busbw_GBps,
            "over_ideal": line_rate_gbps / 8 / r.collective_busbw_GBps,
            "vs_rocev2": r.collective_busbw_GBps / rocev2[r.workload],
            "wire": r.host_wire_bytes / r.bytes_delivered,
            "per_packet": (r.host_wire_bytes - r.bytes_delivered) / r.data_packets,
            "busy": 100 * wire_us / r.duration_us, "retx": r.retransmitted})
    return pd.DataFrame(rows)


def seeds_table(df):
    """The small buffer over seeds: kept per seed (common.kept_by_variant) and the bytes on the
    wire over the payload, averaged over every run of the variant, lossless and lossy."""
    small = df[df["message_bytes"] == df["message_bytes"].min()]
    table = common.kept_by_variant(small, "variant", {}, {})
    wire = (small["host_wire_bytes"] / small["bytes_delivered"]).groupby(small["variant"]).mean()
    table["wire"] = [f"{wire[v]:.3f}" for v in table["variant"]]
    return table


def main():
    a = common.arguments(__doc__, seeds=8, loss=0.0025)
    fabric = common.fabric(a.quick)
    runs = configs(a, fabric)
    variants = [r.pop("variant") for r in runs]
    df = mx.sweep(runs, processes=a.processes)
    df["variant"] = variants
    large = large_table(df, fabric)
    seeds = seeds_table(df)
    table = common.markdown(large, {
        "workload": "workload", "variant": "transport", "loss": "loss per link end (%)",
        "time_us": "time (us)", "busbw": "busbw (GB/s)", "over_ideal": "time / ideal",
        "vs_rocev2": "busbw / RoCEv2's", "wire": "wire / payload",
        "per_packet": "bytes on the wire per data packet beyond its payload",
        "busy": "host links busy (%)", "retx": "retransmissions"}, floats="{:.3f}")
    table += "\n" + common.markdown(seeds, {
        "variant": "all-to-all, small buffer", "seeds": "seeds", "lossless_us": "lossless (us)",
        "lossy_us": "1% per path (us)", "kept": "kept, mean (%)", "per_seed": "per seed (%)",
        "wire": "wire / payload, mean"})
    note = (f"{fabric['hosts']} hosts, 8 planes x 100 Gb/s; loss {100 * a.loss:g}% per link "
            f"end is about {400 * a.loss:g}% per path. Wire bytes count the 2-byte PPP framing "
            "of the model's links and everything above it.")
    common.write_table(a.out, "wire-bytes" + ("-quick" if a.quick else ""), df, table, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
