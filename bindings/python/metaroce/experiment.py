"""Experiments from Python: describe a fabric and a workload, run, get data frames.

A run is ns3::MetaRoceExperiment, the same C++ runner the examples use, so a Python run and a C++
run of the same configuration give identical results (the simulator is deterministic):

    import metaroce.experiment as mx
    r = mx.run(hosts=16, planes=8, workload="alltoall", transport="rocev2-pfc", loss=0.01)
    r.summary["goodput_gbps"], r.collective["busbw_GBps"]
    r.flows            # pandas DataFrame, the columns of <prefix>-flows.csv
    df = mx.sweep(mx.grid(hosts=16, planes=8, transport=["metaroce", "rocev2"],
                          loss=[0, 0.001, 0.01]), processes=2)

Configuration fields are those of MetaRoceExperimentConfig, in snake case as the results' JSON
names them (hosts_per_leaf, message_bytes) or as in C++ (hostsPerLeaf, messageBytes). Results
follow doc/results-schema.md ("metaroce-results/1"). transports() names MetaRoCE and every
RoCEv2 baseline a run may compare with (rocev2, rocev2-paper, rocev2-nocc, rocev2-pfc,
rocev2-meta400).
"""

import itertools
import json
import multiprocessing
import os
import re

import cppyy

from .errors import InvalidParameter, MetaRoceError, cpp_errors
from .objects import attribute_string

ns = cppyy.gbl.ns3


def _camel(name):
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _data_members(cpp_class):
    """Names of a C++ struct's data members, in declaration order (cppyy puts them into the
    class dictionary when it creates the class, before any method)."""
    return [name for name, value in vars(cpp_class).items()
            if type(value).__name__ == "CPPDataMember" and not name.startswith("_")]


def config_fields():
    """The configuration's fields, snake case, in declaration order."""
    return [_snake(n) for n in _data_members(ns.MetaRoceExperimentConfig)]


def transports():
    """The transports a run may name, {name: one-line description}, metaroce first: MetaRoCE
    and the RoCEv2 baselines (contrib/metaroce/helper/experiment/metaroce-transports.h)."""
    return {str(t.name): str(t.description) for t in ns.MetaRoceTransports()}


def config(base=None, nic=None, switch=None, **fields):
    """An ns3::MetaRoceExperimentConfig: `base` (a config or a dict of fields) with `fields`
    set, then validated by C++ (InvalidParameter names the first bad field). `nic` and
    `switch` are dicts of attributes ({"RtoMin": "30us"}), checked and added to
    nic_attributes / switch_attributes."""
    extra = {}
    for key, type_name, values in (("nic_attributes", "ns3::MetaRoceNic", nic),
                                   ("switch_attributes", "ns3::MetaRoceSwitch", switch)):
        if values:
            given = fields.get(key) or ""
            extra[key] = ";".join(p for p in (given, attribute_string(type_name, values)) if p)
    fields = {**fields, **extra}
    cfg = ns.MetaRoceExperimentConfig()
    if base is not None:
        if isinstance(base, dict):
            fields = {**base, **fields}
        else:
            cfg = ns.MetaRoceExperimentConfig(base)
    known = set(_data_members(ns.MetaRoceExperimentConfig))
    for name, value in fields.items():
        member = _camel(name)
        if member not in known:
            raise InvalidParameter(f"MetaRoceExperimentConfig has no field '{name}' "
                                   f"(fields: {', '.join(config_fields())})")
        current = getattr(cfg, member)
        try:
            if isinstance(current, bool):
                if not isinstance(value, bool):
                    raise TypeError("a bool")
            elif isinstance(current, int):
                if isinstance(value, bool) or int(value) != value:
                    raise TypeError("an integer")
                value = int(value)
            elif isinstance(current, float):
                value = float(value)
            else:
                value = str(value)
            setattr(cfg, member, value)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidParameter(f"--{member}: invalid value {value!r} ({e})") from None
    with cpp_errors():
        cfg.Validate()
    return cfg


def _rows(vector, cpp_class):
    members = _data_members(cpp_class)
    return [{_snake(m): _plain(getattr(item, m)) for m in members} for item in vector]


def _plain(value):
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


class Results:
    """What one run measured: the JSON document's parts as dicts, the row files as DataFrames.

    Attributes: ``document`` (the whole JSON), ``config``, ``summary``, ``collective`` (None for
    the flows workload), ``drops``, ``planes`` (DataFrame), ``flows``, ``hosts``, ``links``,
    ``throughput``, ``host_throughput`` (DataFrames), ``wall_seconds``.
    """

    def __init__(self, cpp_results):
        import pandas as pd

        self.document = json.loads(str(cpp_results.ToJson()))
        self.config = self.document["config"]
        self.summary = self.document["summary"]
        self.collective = self.document.get("collective")
        self.drops = self.document["drops"]
        self.planes = pd.DataFrame(self.document["planes"])
        self.flows = pd.DataFrame(_rows(cpp_results.flows, ns.MetaRoceFlowRecord))
        self.hosts = pd.DataFrame(_rows(cpp_results.hosts, ns.MetaRoceHostRecord))
        self.links = pd.DataFrame(_rows(cpp_results.links, ns.MetaRoceLinkRecord))
        self.throughput = pd.DataFrame(
            _rows(cpp_results.throughput, ns.MetaRoceThroughputSample))
        self.host_throughput = pd.DataFrame(
            _rows(cpp_results.hostThroughput, ns.MetaRoceHostSample))
        self.wall_seconds = float(cpp_results.wallSeconds)
        self._cpp = cpp_results

    def record(self):
        """One flat dict: the configuration, the summary, the collective's figures (prefixed
        collective_), drops and wall time - a row of a sweep's DataFrame."""
        row = dict(self.config)
        row.update(self.summary)
        for key, value in (self.collective or {}).items():
            if not isinstance(value, list):
                row[f"collective_{key}"] = value
        # As the C++ comparison table: packets the fabric dropped (links, switches); packets
        # a NIC refused (duplicates, out of sequence) are counted apart.
        row["drops"] = sum(n for k, n in self.drops.items() if not k.startswith("nic-"))
        row["nic_drops"] = sum(n for k, n in self.drops.items() if k.startswith("nic-"))
        row["wall_seconds"] = self.wall_seconds
        return row

    def write(self, prefix):
        """Writes <prefix>.json and the CSV files, as the C++ examples' --output does."""
        with cpp_errors():
            self._cpp.Write(prefix)


def run(base=None, **fields):
    """Runs one experiment in this process and returns its Results (see config())."""
    cfg = config(base, **fields)
    with cpp_errors():
        experiment = ns.MetaRoceExperiment(cfg)
        cpp_results = experiment.Run()
    return Results(cpp_results)


def grid(**fields):
    """Configurations (dicts) of every combination: list values are swept, others fixed.

    grid(hosts=16, transport=["metaroce", "rocev2"], loss=[0, 0.01]) gives 4 dicts.
    """
    names = list(fields)
    axes = [v if isinstance(v, (list, tuple, range)) else [v] for v in fields.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*axes)]


def _run_child(fields, connection):
    """Sweep child: one run (in a fresh forked process), sending (record, None) or (None,
    error) back; a child that dies sends nothing and the sweep reports its exit code."""
    try:
        connection.send((run(**fields).record(), None))
    except Exception as e:  # reported per run, the sweep goes on
        connection.send((None, f"{type(e).__name__}: {e}"))
    finally:
        connection.close()


def sweep(configs, processes=None, progress=True, raise_errors=True):
    """Runs every configuration (dicts of fields) as its own process, `processes` at a time
    (default: the CPU count), with a tqdm progress bar; returns a DataFrame, one row per run
    (Results.record()), in the order of `configs`.

    Each run gets a fresh process forked from this one (the bindings are loaded once, before):
    one simulation per process, as ns-3's simulator is a process-wide singleton. A run that
    fails, or whose process dies (a crash, a kill), raises its error once every run finished
    (or, with raise_errors=False, leaves an 'error' column).
    """
    import multiprocessing.connection

    import pandas as pd

    configs = list(configs)
    for fields in configs:  # configuration errors show before any process starts
        config(**fields)
    processes = max(1, processes or os.cpu_count() or 1)
    context = multiprocessing.get_context("fork")
    rows = [None] * len(configs)
    errors = []
    waiting = list(enumerate(configs))
    running = {}  # receiving end of the pipe -> (index, fields, process)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(configs), desc="metaroce sweep", unit="run")
    while waiting or running:
        while waiting and len(running) < processes:
            index, fields = waiting.pop(0)
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_run_child, args=(fields, send), daemon=True)
            child.start()
            send.close()  # only the child writes: its exit closes the pipe
            running[receive] = (index, fields, child)
        for receive in multiprocessing.connection.wait(list(running)):
            index, fields, child = running.pop(receive)
            try:
                record, error = receive.recv()
            except EOFError:
                child.join()
                record, error = None, f"the run's process died (exit code {child.exitcode})"
            receive.close()
            child.join()
            if error:
                errors.append(f"{fields}: {error}")
                record = {**fields, "error": error}
            rows[index] = record
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    if errors and raise_errors:
        raise MetaRoceError(f"{len(errors)} of {len(configs)} runs failed: " + "; ".join(errors))
    return pd.DataFrame(rows)
