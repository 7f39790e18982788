"""The bindings load ns-3 and the module the way the C++ build sees them."""

import os

import metaroce
from metaroce import ns


def test_build_flags_reach_cppyy():
    # The module is compiled with NS3_LOG_ENABLE and NS3_ASSERT_ENABLE; headers parsed without
    # them would describe different classes.
    metaroce.cppyy.cppdef("""
        namespace metaroce_python_test {
        #if defined(NS3_LOG_ENABLE) && defined(NS3_ASSERT_ENABLE)
        constexpr bool flags = true;
        #else
        constexpr bool flags = false;
        #endif
        }""")
    assert metaroce.cppyy.gbl.metaroce_python_test.flags


def test_public_classes_are_reachable():
    for name in ("MetaRoceNic", "MetaRoceQueuePair", "MetaRoceSwitch", "MetaRoceSocket",
                 "MetaRoceSocketFactory", "MetaRoceHelper", "MetaRoceFabricHelper",
                 "MetaRoceExperiment", "MetaRoceExperimentConfig", "Simulator", "Config"):
        # getattr raises for a name cppyy cannot find; what it finds must be that C++ class.
        assert getattr(ns, name).__cpp_name__ == f"ns3::{name}"
    # The engine's enum round-trips through the C++ library's own names.
    engine = metaroce.engine
    for value, name in ((engine.Transport.MetaRoce, "metaroce"),
                        (engine.Transport.RoceV2, "rocev2")):
        assert engine.TransportName(value) == name
        assert engine.ParseTransport(name) == value


def test_type_ids_and_attributes():
    tid = ns.TypeId.LookupByName("ns3::MetaRoceNic")
    names = {str(tid.GetAttribute(i).name) for i in range(tid.GetAttributeN())}
    assert {"Mtu", "FlowsPerPort", "Streams"} <= names


def test_create_sets_attributes_through_the_checker():
    sw = metaroce.create("ns3::MetaRoceSwitch", DtAlpha=0.25, PfcEnabled=True)
    assert metaroce.get_attribute(sw, "DtAlpha") == "0.25"
    assert metaroce.get_attribute(sw, "PfcEnabled") == "true"
    metaroce.set_attributes(sw, DtAlpha="0.5")
    assert metaroce.get_attribute(sw, "DtAlpha") == "0.5"


def test_engine_runs_without_ns3_objects():
    # libsoftmetaroce's loopback harness is plain C++ and reachable too.
    assert metaroce.engine.TransportName(metaroce.engine.Transport.MetaRoce) == "metaroce"


def test_default_build_dir_is_the_clones_build(monkeypatch):
    from conftest import ROOT

    monkeypatch.delenv("METAROCE_BUILD_DIR", raising=False)
    monkeypatch.delenv("METAROCE_NS3", raising=False)
    assert metaroce.build_dir() == os.path.join(ROOT, "build")
    monkeypatch.setenv("METAROCE_NS3", "3.44")
    assert metaroce.build_dir() == os.path.join(ROOT, "build-3.44")
