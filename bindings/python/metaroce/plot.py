"""Plots of experiment results with matplotlib.

    df = mx.sweep(mx.grid(transport=["metaroce", "rocev2"], loss=[0, 0.001, 0.01]))
    fig = plot.sweep(df, x="loss", y="collective_busbw_GBps", by="transport")
    fig.savefig("busbw.png")
"""

# Without a display matplotlib picks its Agg backend by itself: figures are saved, not shown.
import matplotlib.pyplot as plt

_LABELS = {
    "loss": "random loss per link end",
    "collective_busbw_GBps": "bus bandwidth (GB/s)",
    "collective_algbw_GBps": "algorithm bandwidth (GB/s)",
    "goodput_gbps": "goodput (Gb/s)",
    "fct_p99_us": "p99 message completion time (us)",
    "duration_us": "completion time (us)",
    "retransmitted": "retransmitted packets",
}


def label(column):
    return _LABELS.get(column, column.replace("_", " "))


def sweep(df, x, y, by=None, title=None, ax=None, logy=False):
    """One line per value of column `by` (e.g. transport): `y` against `x`. Returns the
    figure."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    else:
        fig = ax.figure
    groups = df.groupby(by, sort=False) if by else [(None, df)]
    for name, group in groups:
        group = group.sort_values(x)
        ax.plot(group[x], group[y], marker="o", label=name)
    ax.set_xlabel(label(x))
    ax.set_ylabel(label(y))
    if logy:
        ax.set_yscale("log")
    if by:
        ax.legend(title=by)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def throughput(results, ax=None, title=None):
    """Delivered throughput over time of one run (needs throughput_interval > 0)."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
    else:
        fig = ax.figure
    t = results.throughput
    ax.step(t["start_us"], t["gbps"], where="post")
    ax.set_xlabel("time (us)")
    ax.set_ylabel("delivered (Gb/s)")
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
