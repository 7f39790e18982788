"""What the five experiments of doc/results.md share: the 64-host fabric, where results go,
the transports compared, and small helpers (a markdown table, Jain's index, a figure)."""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RESULTS = os.path.join(ROOT, "doc", "results")
# The validation experiments' figures (doc/validation.md).
VALIDATION = os.path.join(ROOT, "doc", "validation")

# The announcement's scale: 64 hosts. 16 hosts per leaf with 4 spines per plane and 400 Gb/s
# uplinks make every plane non-blocking (16 x 100 Gb/s down, 4 x 400 Gb/s up).
FABRIC_64 = dict(hosts=64, hosts_per_leaf=16, spines=4, host_rate="100Gbps",
                 fabric_rate="400Gbps", host_delay="1us", fabric_delay="1us")

TRANSPORTS = ["metaroce", "rocev2", "rocev2-pfc"]
LABELS = {"metaroce": "MetaRoCE", "rocev2": "RoCEv2 go-back-N (DCQCN, no PFC)",
          "rocev2-pfc": "RoCEv2 + PFC (DCQCN)", "rocev2-nocc": "RoCEv2 go-back-N, no DCQCN"}


def arguments(doc, results=RESULTS, **defaults):
    """The common options: --quick (a small fabric, for trying the script), --processes,
    --out (the results directory, `results` by default)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="16 hosts and small messages instead of the full 64-host runs")
    p.add_argument("--processes", type=int, default=os.cpu_count())
    p.add_argument("--out", default=results, help="directory for CSV, markdown and PNG")
    for name, value in defaults.items():
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    return a


def fabric(quick):
    """The 64-host fabric, or with --quick a 16-host one of the same shape per leaf."""
    if quick:
        return dict(FABRIC_64, hosts=16, hosts_per_leaf=8, spines=2)
    return dict(FABRIC_64)


def markdown(df, columns, floats="{:.1f}"):
    """A markdown table of `columns` (name -> header) of `df`."""
    head = "| " + " | ".join(columns.values()) + " |\n"
    head += "|" + "---|" * len(columns) + "\n"
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in columns:
            v = r[c]
            cells.append(floats.format(v) if isinstance(v, float) else str(v))
        rows.append("| " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n"


def kept_against_lossless(df, keys):
    """The lossy runs of `df`, each with `kept_percent`: its bus bandwidth over that of the
    lossless run with the same `keys` (NaN when it did not finish)."""
    lossless = df[df["loss"] == 0].set_index(keys)["collective_busbw_GBps"]
    lossy = df[df["loss"] > 0].copy()
    lossy["kept_percent"] = [
        100 * r.collective_busbw_GBps / lossless[tuple(getattr(r, k) for k in keys)]
        if r.complete else float("nan") for r in lossy.itertuples()]
    return lossy


def kept_by_variant(df, variant, lossless_means, lossy_means):
    """One row per (workload, message size, `variant` column) of a grid run lossless and lossy
    over seeds: the kept share of each seed against its own lossless run (mean and per seed),
    the mean collective times, and the mean of each column named in `lossless_means` over the
    lossless runs and in `lossy_means` over the lossy ones ({row name: column})."""
    key = ["workload", "message_bytes", variant, "seed"]
    lossless = df[df["loss"] == 0].set_index(key)
    rows = []
    for (workload, size, value), g in kept_against_lossless(df, key).groupby(key[:3],
                                                                              sort=False):
        free = lossless.loc[[(workload, size, value, s) for s in g["seed"]]]
        kept = list(g["kept_percent"])
        row = {"workload": workload, "size_mib": size / (1 << 20), variant: value,
               "seeds": len(g), "lossless_us": free["collective_time_us"].mean()}
        row.update({name: free[column].mean() for name, column in lossless_means.items()})
        row.update({"lossy_us": g["collective_time_us"].mean(), "kept": sum(kept) / len(kept),
                    "per_seed": " / ".join(f"{k:.1f}" for k in kept)})
        row.update({name: g[column].mean() for name, column in lossy_means.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def save(out, name, df, table, fig, note=""):
    """Writes <name>.csv (every column), <name>.md (the table) and <name>.png."""
    df.to_csv(os.path.join(out, name + ".csv"), index=False)
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write(table + ("\n" + note + "\n" if note else ""))
    fig.savefig(os.path.join(out, name + ".png"), dpi=110)
    plt.close(fig)
    print(table)
    print(f"wrote {os.path.join(out, name)}.csv, .md, .png")


def microseconds(text):
    """"10ms", "500us", "2s" -> microseconds."""
    for unit, scale in (("ms", 1e3), ("us", 1.0), ("ns", 1e-3), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text) * 1e6


def jain(values):
    """Jain's fairness index: 1 when all equal, 1/n when one takes everything."""
    values = [float(v) for v in values]
    s = sum(values)
    q = sum(v * v for v in values)
    return s * s / (len(values) * q) if q > 0 else 0.0


def gbps(text):
    """"100Gbps", "400Gbps", "10Mbps" -> Gb/s."""
    for unit, scale in (("Gbps", 1.0), ("Mbps", 1e-3), ("Kbps", 1e-6), ("bps", 1e-9)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError(f"not a rate: {text!r}")


def write_table(out, name, df, table, note):
    """Writes every run's figures to <out>/<name>.csv and the table with its note to
    <name>.md, and prints the table."""
    df.to_csv(os.path.join(out, name + ".csv"), index=False)
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write(table + "\n" + note + "\n")
    print(table)
    print(f"wrote {os.path.join(out, name)}.csv, .md")


def variant_runs(a, fabric, attribute_sets, workloads):
    """The runs of a settings experiment: MetaRoCE on 8 planes of `fabric`, each NIC attribute
    string of `attribute_sets` x each of `workloads` x a.message_bytes over a.seeds seeds (and,
    at full scale, a.large_bytes over seed 1), lossless and at a.loss_per_link_end."""
    def run(workload, size, seed, loss, attributes):
        return dict(fabric, planes=8, workload=workload, transport="metaroce", loss=loss,
                    message_bytes=size, seed=seed, stop_time="20ms", nic_attributes=attributes)

    sizes = [(a.message_bytes, a.seeds)] + ([] if a.quick else [(a.large_bytes, 1)])
    return [run(w, size, seed, loss, attributes) for attributes in attribute_sets
            for size, seeds in sizes for w in workloads for seed in range(1, seeds + 1)
            for loss in (0.0, a.loss_per_link_end)]


def settings_experiment(doc, name, configs, summary, columns, sweep):
    """The main() of an experiment that compares NIC settings at the announced point: 64 hosts
    (16 with --quick), 2 MiB per rank over --seeds seeds (256 KiB over one with --quick) and,
    at full scale, 64 MiB once, each lossless and at 1% loss per path. `configs(a, fabric)`
    lists the runs, `sweep` runs them, `summary(df)` makes the table with `columns`; writes
    <name>.csv and <name>.md (with -quick added to the name in --quick mode)."""
    a = arguments(doc, seeds=5, message_bytes=2 << 20, large_bytes=64 << 20,
                  loss_per_link_end=0.0025)
    if a.quick:
        a.seeds, a.message_bytes = 1, 256 << 10
    hosts = fabric(a.quick)
    df = sweep(configs(a, hosts), processes=a.processes)
    table = markdown(summary(df), columns)
    note = (f"{hosts['hosts']} hosts, 8 planes, MetaRoCE; {100 * a.loss_per_link_end:g}% loss "
            f"per link end (about {400 * a.loss_per_link_end:g}% per path); kept: each seed's "
            "bus bandwidth over its own lossless run's, averaged; counts are means per run.")
    write_table(a.out, name + ("-quick" if a.quick else ""), df, table, note)
    return 0
