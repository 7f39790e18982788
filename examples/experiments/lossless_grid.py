#!/usr/bin/env python3
"""Experiment 9, lossless all-to-alls on the examples' default fabric, which is 2:1
oversubscribed at the leaves (8 hosts of 100 Gb/s per leaf, 4 spines of 100 Gb/s): MetaRoCE
at its defaults, with the time rule's reorder floor at one quarter of the minimum RTT
whatever the NIC's loss evidence (`QuietReorderFloorRttQuarters=1`; spec 4.6, A45, A47),
with the time rule's window as measured after a needless copy
(`SpuriousWindowSrttHalves=0`; spec 4.6, A49), and RoCEv2 with DCQCN, over
16, 32 and 64 hosts, 1 and 8 planes, 2 and 16 MiB per rank and 1, 8 and 64 channels. What
counts: timeouts and copies of packets that had arrived, on a fabric that drops nothing.
With `--fabric nonblocking` the same grid runs on non-blocking planes of four leaves (hosts/4
per leaf, 4 spines whose links carry a leaf's hosts: 100, 200 and 400 Gb/s at 16, 32 and 64
hosts; at 64 hosts the fabric of the other experiments), where issue 16 asks for no copy at all.

    scripts/python.sh examples/experiments/lossless_grid.py [--quick] [--processes 2]
        [--fabric nonblocking]
"""

import common
import pandas as pd
from metaroce import experiment as mx

# The examples' default fabric (metaroce-8-plane): 8 hosts per leaf, 4 spines per plane,
# 100 Gb/s everywhere.
OVERSUBSCRIBED = dict(hosts_per_leaf=8, spines=4, host_rate="100Gbps", fabric_rate="100Gbps",
                      host_delay="1us", fabric_delay="1us")


def nonblocking(hosts):
    """Four leaves per plane and 4 spines whose links carry what a leaf's hosts send: no
    oversubscription (64 hosts: the other experiments' fabric, common.FABRIC_64)."""
    per_leaf = max(hosts // 4, 1)
    return dict(hosts_per_leaf=per_leaf, spines=4, host_rate="100Gbps",
                fabric_rate=f"{per_leaf * 100 // 4}Gbps", host_delay="1us", fabric_delay="1us")


VARIANTS = [("metaroce", "", "MetaRoCE"),
            ("metaroce", "QuietReorderFloorRttQuarters=1",
             "MetaRoCE, one reorder floor (1/4 min RTT)"),
            ("metaroce", "SpuriousWindowSrttHalves=0",
             "MetaRoCE, window as measured after copies"),
            ("rocev2", "", "RoCEv2 (DCQCN)")]


def configs(a):
    out = []
    for hosts in [int(h) for h in a.hosts.split(",")]:
        shape = OVERSUBSCRIBED if a.fabric == "oversubscribed" else nonblocking(hosts)
        for planes in (1, 8):
            for size in [int(s) for s in a.sizes.split(",")]:
                for transport, nic, _ in VARIANTS:
                    # RoCEv2 keeps one queue pair per pair and plane: channels do not apply.
                    for channels in ([1, 8, 64] if transport == "metaroce" else [0]):
                        out.append(dict(shape, hosts=hosts, planes=planes,
                                        workload="alltoall", transport=transport, loss=0.0,
                                        message_bytes=size, channels=channels,
                                        nic_attributes=nic, stop_time="20ms"))
    return out


def label(row):
    for transport, nic, name in VARIANTS:
        if row["transport"] == transport and row["nic_attributes"] == nic:
            return name
    return row["transport"]


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else (fmt + "-" + fmt).format(lo, hi)


def main():
    a = common.arguments(__doc__, hosts="16,32,64", sizes=f"{2 << 20},{16 << 20}",
                         fabric="oversubscribed")
    if a.fabric not in ("oversubscribed", "nonblocking"):
        raise SystemExit(f"--fabric: 'oversubscribed' or 'nonblocking', not '{a.fabric}'")
    if a.quick:
        a.hosts, a.sizes = "16", str(256 << 10)
    df = mx.sweep(configs(a), processes=a.processes)
    df["variant"] = [label(r) for _, r in df.iterrows()]
    rows = []
    for (hosts, planes, size, variant), g in df.groupby(
            ["hosts", "planes", "message_bytes", "variant"], sort=False):
        rows.append({"hosts": hosts, "planes": planes, "MiB": f"{size / (1 << 20):g}",
                     "variant": variant,
                     "complete": bool(g["complete"].all()),
                     "time": span(g["duration_us"], "{:.1f}"),
                     "timeouts": span(g["timeouts"], "{:,}"),
                     "deferred": span(g["rto_deferrals"], "{:,}"),
                     "spurious": span(g["spurious_retransmissions"], "{:,}"),
                     "drops": span(g["drops"], "{:,}")})
    table = common.markdown(pd.DataFrame(rows), {
        "hosts": "hosts", "planes": "planes", "MiB": "MiB per rank", "variant": "variant",
        "complete": "completed", "time": "time (us)", "timeouts": "timeouts",
        "deferred": "timeouts deferred",
        "spurious": "copies of packets that had arrived", "drops": "drops"})
    blocking = a.fabric == "oversubscribed"
    name = "lossless-grid" + ("" if blocking else "-nonblocking") + ("-quick" if a.quick else "")
    shape = ("8 hosts per leaf and 4 spines per plane at 100 Gb/s (2:1 at the leaves)" if blocking
             else "non-blocking planes: 4 leaves of hosts/4, 4 spines at hosts/16 x 100 Gb/s")
    note = (f"Lossless all-to-all, {shape}; MetaRoCE ranges over 1, 8 and 64 channels, RoCEv2 has "
            "one queue pair per pair and plane.")
    common.write_table(a.out, name, df, table, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
