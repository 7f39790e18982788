"""A bad experiment configuration raises metaroce.ConfigError naming the field, before anything
runs, and the simulator stays usable (doc/python.md, "Errors"). The cases are the ones
test/bad-input/check-bad-input.py counts (test/bad-input/python_cases.py)."""

import os
import sys

import pytest

import metaroce
from metaroce import experiment as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bad-input"))
from python_cases import PYTHON_CASES, SHAPE, Numpy  # noqa: E402


def _made(value):
    if isinstance(value, Numpy):
        return value.make()
    if isinstance(value, dict):
        return {k: _made(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_made(v) for v in value]
    return value


def _call(function, kwargs):
    kwargs = _made(kwargs)
    if function == "sweep":
        return mx.sweep(kwargs.pop("configs"), **kwargs)
    if function == "run" and "base" in kwargs:
        return mx.run(kwargs.pop("base"), **kwargs)
    return getattr(mx, function)(**kwargs)


@pytest.mark.parametrize("function,kwargs,field,needles", PYTHON_CASES,
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(PYTHON_CASES)])
def test_bad_value_raises_config_error_naming_the_field(function, kwargs, field, needles):
    with pytest.raises(metaroce.ConfigError) as info:
        _call(function, kwargs)
    message = str(info.value)
    assert info.value.field == field, message
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)


def test_config_error_is_an_invalid_parameter_and_a_value_error():
    with pytest.raises(ValueError):
        mx.config(hosts="four")
    assert issubclass(metaroce.ConfigError, metaroce.InvalidParameter)


def test_bad_calls_leave_the_simulator_usable():
    # Refusals of every kind, then a good run in the same process: nothing half-built stays.
    for function, kwargs, _, _ in PYTHON_CASES[:: max(1, len(PYTHON_CASES) // 12)]:
        with pytest.raises(metaroce.ConfigError):
            _call(function, kwargs)
    r = mx.run(SHAPE)
    assert r.summary["complete"]
    assert metaroce.now().GetNanoSeconds() == 0  # Run() destroyed its simulation


def test_a_grid_sweeps_numpy_values_as_python_values():
    numpy = pytest.importorskip("numpy")
    configs = mx.grid(hosts=numpy.array([4, 8]), loss=numpy.linspace(0, 0.01, 3))
    assert len(configs) == 6 and type(configs[0]["hosts"]) is int
    mx.config(dict(SHAPE, **configs[-1], hosts_per_leaf=4))  # all of them valid values


def test_a_sweep_accepts_a_field_some_runs_use():
    # loss_plane means nothing to the lossless run, something to the lossy one: the grid is
    # fine, as in the C++ examples' --losses=0,0.01 --lossPlane=1.
    mx._check_sweep([dict(SHAPE, loss_plane=1), dict(SHAPE, loss_plane=1, loss=0.01)],
                    None, False, True)
    with pytest.raises(metaroce.ConfigError, match="every run"):
        mx._check_sweep([dict(SHAPE, loss_plane=1)], None, False, True)


def test_write_refuses_a_prefix_that_is_no_path(tmp_path):
    r = mx.run(SHAPE)
    with pytest.raises(metaroce.InvalidParameter, match="prefix"):
        r.write(None)
    with pytest.raises(metaroce.MetaRoceError, match="cannot write"):
        r.write(str(tmp_path / "no" / "such" / "run"))
    r.write(tmp_path / "run")  # a pathlib.Path is a path
    assert (tmp_path / "run.json").exists()
