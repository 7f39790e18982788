"""ns-3's own Python bindings (`from ns import ns`, the ns-3.44 wheel) reach the module after
`import metaroce`, and the other order is refused with the reason. Only for a build against the
wheel (METAROCE_NS3=3.44): Debian's ns-3.37 has no Python bindings."""

import os
import subprocess
import sys

import pytest

import metaroce
from conftest import ROOT

pytestmark = pytest.mark.skipif(metaroce.loader.ns3_prefix != "libns3.44-",
                                reason="the build is not against the ns-3.44 wheel")


def run_python(code_or_file, *args):
    """Runs the venv's Python in a fresh process (ns-3's bindings change cppyy for good)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"),
               METAROCE_BUILD_DIR=metaroce.build_dir())
    command = [sys.executable, code_or_file, *args] if code_or_file.endswith(".py") else \
        [sys.executable, "-c", code_or_file, *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)


def test_ns_sees_the_module_after_import_metaroce():
    out = run_python("""
import metaroce
from ns import ns
assert ns is metaroce.ns
for name in ("MetaRoceNic", "MetaRoceSwitch", "MetaRoceFabricHelper", "MetaRoceExperiment"):
    assert getattr(ns, name).__cpp_name__ == "ns3::" + name
nic = ns.CreateObject[ns.MetaRoceNic]()
assert nic.GetInstanceTypeId().GetName() == "ns3::MetaRoceNic"
tid = ns.TypeId.LookupByName("ns3::MetaRoceSwitch")
names = {str(tid.GetAttribute(i).name) for i in range(tid.GetAttributeN())}
assert "DtAlpha" in names, names
# ns-3's own modules beyond the module's dependencies are there too (the wheel has them all).
assert ns.CsmaHelper.__cpp_name__ == "ns3::CsmaHelper"
print("ok")
""")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_ns_first_is_refused_with_the_reason():
    out = run_python("from ns import ns\nimport metaroce\n")
    assert out.returncode != 0
    assert "import metaroce before `from ns import ns`" in out.stderr, out.stderr


def test_ns3_bindings_example():
    out = run_python(os.path.join(ROOT, "examples", "python", "ns3_bindings.py"),
                     "--bytes", "65536")
    assert out.returncode == 0, out.stderr
    assert "ns3::MetaRoceNic on host 0 of 4 hosts, 2 planes" in out.stdout
    assert "WRITE of 65536 bytes completed at" in out.stdout
