#!/usr/bin/env python3
"""Validation, IRN (Mittal et al., SIGCOMM 2018): go-back-N RoCE under random loss next to
selective recovery. A permutation of long WRITEs (host i to host i + n/2, across the spine) on
a non-blocking leaf-spine, with random loss at every link end from 0 to 1%: each transport's
completion time and goodput against its own lossless run, beside a first-order model of each
recovery scheme (doc/validation.md, section 6).

    scripts/python.sh examples/experiments/irn_loss.py            # doc/validation/irn-loss.*
    scripts/python.sh examples/experiments/irn_loss.py --quick    # 2 losses, 1 seed, seconds

Go-back-N (RoCEv2 RC, IBA 9.7): the responder NAKs the first out-of-sequence packet once and
drops everything until the missing PSN comes back; the requester resends from it. A loss costs
the packets in flight behind it (about the path's bandwidth-delay product, N), and a loss of
the NAK or of the resent packet is recovered only by the retransmission timeout. Selective
recovery (MetaRoCE) resends only the lost packet.
"""

import math

import common
import matplotlib.pyplot as plt
import pandas as pd
from metaroce import experiment as mx

LOSSES = [0, 1e-5, 1e-4, 1e-3, 2e-3, 5e-3, 1e-2]
QUICK_LOSSES = [0, 1e-3]
TRANSPORTS = {"rocev2-nocc": "RoCEv2 go-back-N (no DCQCN)",
              "rocev2": "RoCEv2 go-back-N (NIC DCQCN)",
              "metaroce": "MetaRoCE (selective)"}
# A RoCEv2 WRITE MIDDLE on the wire: IPv4 20 + UDP 8 + BTH 12 + 4,096 + ICRC 4 + PPP 2.
ROCE_WIRE_BYTES = 4142
RTO_US = 1048.576  # RoceV2Config::rtoNs, IB local ACK timeout 8
LINK_ENDS = 4  # host-leaf, leaf-spine, spine-leaf, leaf-host


def fabric(quick):
    """8 hosts on 2 leaves (4 with --quick) and one 400 Gb/s spine: the spine link carries
    every host of a leaf at line rate, so nothing congests and only random loss acts."""
    hosts = 4 if quick else 8
    return dict(hosts=hosts, hosts_per_leaf=hosts // 2, spines=1, planes=1,
                host_rate="100Gbps", fabric_rate="400Gbps", host_delay="1us",
                fabric_delay="1us")


def go_back_n_model(p, packets, inflight, packet_us, lossless_us, flows):
    """Expected completion of a permutation of `flows` go-back-N flows of `packets` packets
    each (us) at loss `p` per link end. Every transmission is lost with q = 1 - (1-p)^4 and a
    loss resends the `inflight` packets sent behind it: the textbook go-back-N count of
    1 + N q / (1 - q) transmissions per packet delivered. A loss event ends in a timeout when
    its NAK (q) or the resent packet (q) is lost, and a lost last packet (q) has no later one
    to expose it. Each timeout idles one RTO (its doubling on repeated timeouts left out); the
    permutation waits for the flow with the most timeouts (Poisson counts)."""
    q = 1 - (1 - p) ** LINK_ENDS
    sent = packets * (1 + inflight * q / (1 - q))
    rate = sent * q * 2 * q + q  # timeouts per flow
    return lossless_us + (sent - packets) * packet_us + expected_max_poisson(rate, flows) * \
        RTO_US, q


def expected_max_poisson(rate, n):
    """E[max of n independent Poisson(rate) counts] = sum over k >= 0 of P(max > k)."""
    total, cdf, term, k = 0.0, 0.0, math.exp(-rate), 0
    while True:
        cdf += term
        tail = 1 - cdf ** n
        if tail < 1e-9:
            return total
        total += tail
        k += 1
        term *= rate / k


def selective_model(p, lossless_us):
    """Selective recovery: each lost packet is sent once more, nothing else."""
    q = 1 - (1 - p) ** LINK_ENDS
    return lossless_us / (1 - q)


def main():
    a = common.arguments(__doc__, results=common.VALIDATION, message_bytes=16 << 20, seeds=5,
                         stop_time="1s", transports=",".join(TRANSPORTS))
    transports = a.transports.split(",")
    unknown = [t for t in transports if t not in TRANSPORTS]
    if unknown:
        raise SystemExit(f"--transports: unknown {', '.join(unknown)} "
                         f"(one or more of {', '.join(TRANSPORTS)})")
    if a.seeds < 1:
        raise SystemExit(f"--seeds: {a.seeds} is not a positive number of seeds")
    losses = QUICK_LOSSES if a.quick else LOSSES
    seeds = 1 if a.quick else a.seeds
    fab = fabric(a.quick)
    configs = [dict(fab, workload="permutation", transport=t, loss=p, seed=s,
                    message_bytes=a.message_bytes, stop_time=a.stop_time)
               for t in transports for p in losses for s in range(1, seeds + 1)]
    df = mx.sweep(configs, processes=a.processes)
    df["time_us"] = df["collective_time_us"]
    lossless = df[df["loss"] == 0].groupby("transport")["time_us"].mean()
    packets = math.ceil(a.message_bytes / 4096)
    packet_us = ROCE_WIRE_BYTES * 8 / 100e3
    # Packets in flight behind a loss: the base round trip (4 links each way, 1 us each, and
    # a packet's serialisation at each of the 4 hops there and an ACK's back) at line rate.
    rtt_us = 8 * 1.0 + 4 * packet_us
    inflight = math.ceil(rtt_us / packet_us)
    rows = []
    for (t, p), g in df.groupby(["transport", "loss"], sort=False):
        done = g[g["complete"]]
        time_us = done["time_us"].mean() if len(done) == len(g) else float("nan")
        base = lossless[t]
        if t == "metaroce":
            model_us, q = selective_model(p, base), 1 - (1 - p) ** LINK_ENDS
        else:
            model_us, q = go_back_n_model(p, packets, inflight, packet_us, base, fab["hosts"])
        rows.append({"transport": TRANSPORTS[t], "loss_percent": 100 * p,
                     "path_loss_percent": 100 * q, "seeds": len(g),
                     "time_us": time_us, "kept": 100 * base / time_us,
                     "model_kept": 100 * base / model_us,
                     "flow_gbps": a.message_bytes * 8 / time_us / 1e3,
                     "retransmitted": g["retransmitted"].mean(),
                     "timeouts": g["timeouts"].mean()})
    table_df = pd.DataFrame(rows)
    table = common.markdown(table_df, {
        "transport": "transport", "loss_percent": "loss per link end (%)",
        "path_loss_percent": "per path (%)", "time_us": "completion (us)",
        "flow_gbps": "goodput per flow (Gb/s)", "kept": "kept (% of lossless)",
        "model_kept": "model (%)", "retransmitted": "retransmitted packets",
        "timeouts": "timeouts"}, floats="{:.3g}")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for t in transports:
        g = table_df[table_df["transport"] == TRANSPORTS[t]]
        x = g["loss_percent"].clip(lower=1e-4)
        axes[0].plot(x, g["kept"], marker="o", label=TRANSPORTS[t])
        axes[0].plot(x, g["model_kept"], ls=":", color=axes[0].lines[-1].get_color())
        axes[1].plot(x, g["flow_gbps"], marker="o", label=TRANSPORTS[t])
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("random loss per link end (%); lossless plotted at 1e-4")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("goodput kept (% of lossless); dotted: model")
    axes[0].set_ylim(0, 105)
    axes[1].set_ylabel("goodput per flow (Gb/s)")
    axes[0].set_title(f"permutation, {fab['hosts']} hosts, {a.message_bytes >> 20} MiB each")
    axes[1].set_title("100 Gb/s hosts, 400 Gb/s spine, 1 us links")
    fig.tight_layout()
    note = (f"{fab['hosts']} hosts, permutation of {a.message_bytes} B WRITEs over the spine, "
            f"{seeds} seed(s) each (means); loss at each of the {LINK_ENDS} link ends of a path; "
            f"model: go-back-N resends the {inflight} packets in flight per loss, and an RTO of "
            f"{RTO_US:g} us per NAK, resent or last packet lost (the slowest of the flows); "
            "selective recovery resends only the lost packets.")
    common.save(a.out, "irn-loss" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0 if df["complete"].all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
