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
import math
import multiprocessing
import numbers
import os
import re

import cppyy

from .errors import ConfigError, InvalidParameter, MetaRoceError, cpp_errors
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


# The range of each integer type of MetaRoceExperimentConfig's fields.
_INTEGER_RANGES = {"uint32_t": (0, 2**32 - 1), "int32_t": (-2**31, 2**31 - 1),
                   "uint64_t": (0, 2**64 - 1)}
_field_types_cache = {}


def _field_types():
    """{member: C++ type} of MetaRoceExperimentConfig ("uint32_t", "double", "std::string")."""
    if not _field_types_cache:
        tclass = cppyy.gbl.CppyyLegacy.TClass.GetClass("ns3::MetaRoceExperimentConfig")
        for member in tclass.GetListOfDataMembers():
            _field_types_cache[str(member.GetName())] = str(member.GetFullTypeName())
    return _field_types_cache


def _field_of(message):
    """The field a C++ message names ("--hostsPerLeaf: ..." -> "hosts_per_leaf"), or None."""
    m = re.match(r"--([A-Za-z]+)\b", message)
    if m and m.group(1) in _field_types():
        return _snake(m.group(1))
    return None


def _checked(member, value):
    """`value` for field `member`, of the field's type and range; ConfigError otherwise (cppyy
    would take 16.0 as 16, True as 1, "0.5" for a double, and wrap nothing, but say less)."""
    kind = _field_types()[member]
    problem = None
    if kind == "bool":
        if not isinstance(value, (bool, getattr(_numpy(), "bool_", bool))):
            problem = "not True or False"
        value = bool(value) if problem is None else value
    elif kind in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[kind]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            problem = f"not an integer in [{low}, {high}]"
        elif not low <= int(value) <= high:
            problem = f"not an integer in [{low}, {high}]"
        else:
            value = int(value)
    elif kind == "double":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            problem = "not a number"
        elif not math.isfinite(float(value)):
            problem = "not a finite number"
        else:
            value = float(value)
    else:  # std::string
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            problem = "not a string (times, rates and names are text: '10us', '100Gbps')"
        elif "\0" in value:
            problem = "a string with a NUL character"
    if problem:
        raise ConfigError(f"--{member}: {value!r} ({type(value).__name__}) is {problem}",
                          _snake(member))
    return value


def _numpy():
    try:
        import numpy
        return numpy
    except ImportError:  # pragma: no cover - pandas brings numpy
        return None


def _settings(cfg, fields):
    """Sets `fields` (snake or camel case names) on the C++ config `cfg`, each checked."""
    types = _field_types()
    for name, value in fields.items():
        member = _camel(name)
        if member not in types:
            raise ConfigError(f"MetaRoceExperimentConfig has no field '{name}' "
                              f"(fields: {', '.join(config_fields())})", name)
        setattr(cfg, member, _checked(member, value))


def _attribute_fields(fields, nic, switch):
    """`fields` with the `nic` and `switch` attribute dicts appended to nic_attributes and
    switch_attributes (checked against the attributes of the NIC and the switch)."""
    extra = {}
    for key, type_name, values in (("nic_attributes", "ns3::MetaRoceNic", nic),
                                   ("switch_attributes", "ns3::MetaRoceSwitch", switch)):
        if values is None:
            continue
        if not isinstance(values, dict):
            raise ConfigError(f"--{_camel(key)}: {key.split('_')[0]}= takes a dict of "
                              f"attributes, not {type(values).__name__}", key)
        given = fields.get(key) or ""
        try:
            text = attribute_string(type_name, values)
        except InvalidParameter as e:
            raise ConfigError(f"--{_camel(key)}: {e}", key) from None
        extra[key] = ";".join(p for p in (given, text) if p)
    return {**fields, **extra}


def config(base=None, nic=None, switch=None, **fields):
    """An ns3::MetaRoceExperimentConfig: `base` (a config or a dict of fields) with `fields`
    set, then validated by C++. `nic` and `switch` are dicts of attributes ({"RtoMin":
    "30us"}), checked and added to nic_attributes / switch_attributes.

    Every problem raises ConfigError naming the field, before anything runs: a value of the
    wrong type (a string for hosts, a bool or 16.0 for an integer, NaN), out of its type's
    range, an unknown field, a value or combination C++ refuses (MetaRoceExperimentConfig::
    Validate), or a field given (other than the default) that the run would not use
    (MetaRoceExperimentConfig::UnusedOptions: failure_plane without failure, ...)."""
    return _config(base, nic, switch, fields, unused=True)


def _config(base, nic, switch, fields, unused):
    """config(); `unused`: refuse the fields the run would not use (a sweep checks that over
    all its runs instead)."""
    fields = _attribute_fields(fields, nic, switch)
    cfg = ns.MetaRoceExperimentConfig()
    if isinstance(base, dict):
        fields = {**base, **fields}
    elif isinstance(base, ns.MetaRoceExperimentConfig):
        cfg = ns.MetaRoceExperimentConfig(base)
    elif base is not None:
        raise ConfigError(f"base: a dict of fields or a MetaRoceExperimentConfig, not "
                          f"{type(base).__name__}", "base")
    _settings(cfg, fields)
    try:
        with cpp_errors():
            if unused:
                cfg.ValidateAsGiven(ns.MetaRoceExperimentConfig())
            else:
                cfg.Validate()
    except InvalidParameter as e:
        raise ConfigError(str(e), _field_of(str(e))) from None
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
    ``throughput``, ``host_throughput`` (DataFrames), ``jobs`` (DataFrame, a row per job of a
    run with jobs > 1; None otherwise), ``schedule`` (DataFrame, a row per operation of a
    workload="schedule" run, doc/schedules.md; None otherwise), ``wall_seconds``.
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
        self.jobs = pd.DataFrame(self.document["jobs"]) if "jobs" in self.document else None
        self.schedule = (pd.DataFrame(self.document["schedule"])
                         if "schedule" in self.document else None)
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
        """Writes <prefix>.json and the CSV files, as the C++ examples' --output does: each
        under a temporary name, renamed when all are written, the JSON last
        (doc/results-schema.md); MetaRoceError naming the file when one cannot be written."""
        if isinstance(prefix, os.PathLike):
            prefix = os.fspath(prefix)
        if not isinstance(prefix, str) or not prefix:
            raise InvalidParameter(f"write: the prefix is a path, not {prefix!r}")
        with cpp_errors():
            self._cpp.Write(prefix)


def run(base=None, nic=None, switch=None, _unused=True, **fields):
    """Runs one experiment in this process and returns its Results (see config(): a bad
    configuration raises ConfigError before anything runs, and the next run works)."""
    cfg = _config(base, nic, switch, fields, _unused)
    with cpp_errors():
        experiment = ns.MetaRoceExperiment(cfg)
        cpp_results = experiment.Run()
    return Results(cpp_results)


def _axis(name, value):
    """The values a grid() argument sweeps: a list, tuple, range or array; else the one value."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # numpy arrays and scalars, as Python values
    if not isinstance(value, (list, tuple, range)):
        return [value]
    if len(value) == 0:
        raise ConfigError(f"grid: {name}=[] gives no run (an empty list)", name)
    return list(value)


def grid(**fields):
    """Configurations (dicts) of every combination: list values are swept, others fixed.

    grid(hosts=16, transport=["metaroce", "rocev2"], loss=[0, 0.01]) gives 4 dicts. An
    unknown field or an empty list raises ConfigError at once (values are checked when the
    configurations are run, or by sweep() before it starts any)."""
    known = set(_field_types())
    for name in fields:
        if _camel(name) not in known and name not in ("nic", "switch"):
            raise ConfigError(f"MetaRoceExperimentConfig has no field '{name}' "
                              f"(fields: {', '.join(config_fields())})", name)
    names = list(fields)
    axes = [_axis(name, value) for name, value in fields.items()]
    return [dict(zip(names, combo)) for combo in itertools.product(*axes)]


def _run_child(fields, connection):
    """Sweep child: one run (in a fresh forked process), sending (record, None) or (None,
    error) back; a child that dies sends nothing and the sweep reports its exit code. The
    sweep checked the fields no run uses; a field only some runs use is fine here."""
    try:
        connection.send((run(_unused=False, **fields).record(), None))
    except Exception as e:  # reported per run, the sweep goes on
        connection.send((None, f"{type(e).__name__}: {e}"))
    finally:
        connection.close()


def _check_sweep(configs, processes, progress, raise_errors):
    """Every configuration of a sweep, and its arguments, before any process starts: each
    run's fields (ConfigError, prefixed "run i of n"), then a field no run uses."""
    if processes is not None and (isinstance(processes, bool) or
                                  not isinstance(processes, numbers.Integral) or processes < 1):
        raise ConfigError(f"sweep: processes={processes!r} is not a positive integer (or None: "
                          f"one per CPU)", "processes")
    for name, value in (("progress", progress), ("raise_errors", raise_errors)):
        if not isinstance(value, bool):
            raise ConfigError(f"sweep: {name}={value!r} is not True or False", name)
    if not configs:
        raise ConfigError("sweep: no configuration to run", "configs")
    unused = None
    for i, fields in enumerate(configs):
        where = f"run {i + 1} of {len(configs)}: "
        if not isinstance(fields, dict):
            raise ConfigError(where + f"a dict of fields, not {type(fields).__name__}", "configs")
        fields = dict(fields)
        try:
            cfg = _config(None, fields.pop("nic", None), fields.pop("switch", None), fields,
                          unused=False)
        except ConfigError as e:
            raise ConfigError(where + str(e), e.field) from None
        mine = [str(u) for u in cfg.UnusedOptions(ns.MetaRoceExperimentConfig())]
        unused = mine if unused is None else [u for u in unused if u in mine]
    if unused:
        raise ConfigError(f"{unused[0]} (in every run of the sweep)", _field_of(unused[0]))


def sweep(configs, processes=None, progress=True, raise_errors=True):
    """Runs every configuration (dicts of fields) as its own process, `processes` at a time
    (default: the CPU count), with a tqdm progress bar; returns a DataFrame, one row per run
    (Results.record()), in the order of `configs`.

    Every configuration is checked before any process starts (ConfigError, "run i of n: ...");
    a field that differs from its default and that no run uses is refused, one that some runs
    use is not (loss_plane over a grid of losses with 0). Each run gets a fresh process forked
    from this one (the bindings are loaded once, before): one simulation per process, as
    ns-3's simulator is a process-wide singleton. A run that fails, or whose process dies (a
    crash, a kill), raises its error once every run finished (or, with raise_errors=False,
    leaves an 'error' column).
    """
    import multiprocessing.connection

    import pandas as pd

    try:
        configs = list(configs)
    except TypeError:
        raise ConfigError(f"sweep: configs is a list of dicts of fields, not "
                          f"{type(configs).__name__}", "configs") from None
    _check_sweep(configs, processes, progress, raise_errors)
    processes = processes or os.cpu_count() or 1
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
