"""Open-loop bound of an all-to-all sprayed over a hashed leaf-spine: how much later than the
line rate allows it ends when every packet takes a random uplink, with no congestion control and
no feedback, against routing by destination (doc/results.md section 8).

A slotted model, one packet per slot per link, of one plane of `hosts` hosts, `hosts_per_leaf`
per leaf and `spines` spines, every link the hosts' rate. Every host sends one packet per slot,
round-robin over its peers starting with the next rank (as the model's all-to-all does), P
packets per peer. A packet to another leaf queues for an uplink of its leaf, then for its spine's
link to the destination leaf, then for the leaf's link to the host, each queue first in, first
out and served one packet per slot; a packet to its own leaf queues for the host link only.
"hashed" picks the uplink uniformly at random per packet (per-packet spraying that learns
nothing: the entropy is a fresh draw and the switches hash it); "by destination" picks the
destination modulo the spines (destination-mod-k routing, every spine link carrying one host's
packets). The figure is the slot of the last delivery over the slots a host needs to send,
(hosts - 1) x P: how much the collisions of hashing alone cost, in packets, headers and round
trips left out. A transport that learns where its packets queue can beat "hashed"; one that
does not, cannot; with few packets per peer there is little to learn from.
"""

import collections
import random

import matplotlib.pyplot as plt
import pandas as pd

import common

ROUTINGS = ("hashed", "by destination")


def finish_over_ideal(hosts, hosts_per_leaf, spines, packets, routing, seed):
    """The all-to-all's last delivery over (hosts - 1) x packets slots (module docstring)."""
    rng = random.Random(seed)
    leaves = hosts // hosts_per_leaf
    uplinks = [[collections.deque() for _ in range(spines)] for _ in range(leaves)]
    downlinks = [[collections.deque() for _ in range(leaves)] for _ in range(spines)]
    host_links = [0] * hosts  # packets queued for each host's link: their order does not matter
    peers = hosts - 1
    sending, total = peers * packets, hosts * peers * packets
    delivered, slot = 0, 0
    while delivered < total:
        # Each hop serves before the one upstream of it, so a packet moves one hop per slot.
        for h in range(hosts):
            if host_links[h]:
                host_links[h] -= 1
                delivered += 1
        for links in downlinks:
            for q in links:
                if q:
                    host_links[q.popleft()] += 1
        for links in uplinks:
            for s, q in enumerate(links):
                if q:
                    d = q.popleft()
                    downlinks[s][d // hosts_per_leaf].append(d)
        if slot < sending:
            k = 1 + slot % peers
            for r in range(hosts):
                d = (r + k) % hosts
                if d // hosts_per_leaf == r // hosts_per_leaf:
                    host_links[d] += 1
                    continue
                s = rng.randrange(spines) if routing == "hashed" else d % spines
                uplinks[r // hosts_per_leaf][s].append(d)
        slot += 1
    return slot / sending


def main():
    a = common.arguments(__doc__, fabrics="128x32x32x32,256x16x16x8,1024x32x32x1,"
                         "1024x32x32x8,1024x32x32x32", seeds=3)
    try:
        fabrics = [tuple(int(x) for x in f.split("x")) for f in a.fabrics.split(",") if f]
    except ValueError:
        raise SystemExit(f"--fabrics: {a.fabrics}: comma-separated "
                         "HOSTSxHOSTS_PER_LEAFxSPINESxPACKETS_PER_PEER")
    for f in fabrics:
        if (len(f) != 4 or not 2 <= f[0] <= 4096 or not 1 <= f[1] <= f[0] or f[0] % f[1]
                or not 1 <= f[2] <= 256 or not 1 <= f[3] <= 1024):
            raise SystemExit(f"--fabrics: {'x'.join(map(str, f))}: want hosts in [2, 4096] a "
                             "multiple of hosts per leaf, spines in [1, 256], packets per peer "
                             "in [1, 1024]")
    if not 1 <= a.seeds <= 100:
        raise SystemExit(f"--seeds: {a.seeds} is not in [1, 100]")
    if a.quick:
        fabrics, a.seeds = [(32, 8, 8, 4)], 2
    rows = []
    for hosts, per_leaf, spines, packets in fabrics:
        for routing in ROUTINGS:
            # Routing by destination draws nothing: one seed gives every seed's figure.
            for seed in range(1, (a.seeds if routing == "hashed" else 1) + 1):
                rows.append({"hosts": hosts, "hosts_per_leaf": per_leaf, "spines": spines,
                             "packets_per_peer": packets, "routing": routing, "seed": seed,
                             "x_ideal": finish_over_ideal(hosts, per_leaf, spines, packets,
                                                          routing, seed)})
    df = pd.DataFrame(rows)
    keys = ["hosts", "hosts_per_leaf", "spines", "packets_per_peer", "routing"]
    summary = df.groupby(keys, sort=False)["x_ideal"].agg(["mean", "min", "max"]).reset_index()
    table = common.markdown(summary, {"hosts": "hosts", "hosts_per_leaf": "per leaf",
                                      "spines": "spines", "packets_per_peer": "packets per peer",
                                      "routing": "routing", "mean": "x ideal, mean",
                                      "min": "min", "max": "max"}, floats="{:.4f}")
    fig, ax = plt.subplots(figsize=(7, 4))
    for routing, g in summary.groupby("routing", sort=False):
        labels = [f"{r.hosts} hosts, {r.packets_per_peer} per peer" for r in g.itertuples()]
        ax.errorbar(labels, g["mean"], yerr=[g["mean"] - g["min"], g["max"] - g["mean"]],
                    marker="o", capsize=3, label=routing)
    ax.set_ylabel("last delivery over ideal")
    ax.legend()
    fig.tight_layout()
    note = (f"{a.seeds} seeds of the hashed routing; slots of one packet, no headers, no round trips, no congestion "
            "control (examples/experiments/spray_bound.py's docstring).")
    common.save(a.out, "spray-bound" + ("-quick" if a.quick else ""), df, table, fig, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
