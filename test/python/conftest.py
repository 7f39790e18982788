"""pytest set-up for the Python bindings' tests: the package from this clone, one simulator
reset after every test, and the C++ build's programs for the comparisons."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import metaroce  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_simulator():
    """Every test starts at time 0 with no events; what it built is destroyed after it."""
    yield
    metaroce.reset()


@pytest.fixture
def build_dir():
    return metaroce.build_dir()


@pytest.fixture
def example(build_dir):
    """Path of a C++ example program of the build."""

    def path(name):
        p = os.path.join(build_dir, "examples", name)
        assert os.access(p, os.X_OK), f"{p} is not built"
        return p

    return path
