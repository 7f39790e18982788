"""A fabric built, connected and driven from Python."""

import pytest

import metaroce
from metaroce import ns


def small_fabric(**kw):
    shape = dict(hosts=4, planes=2, hosts_per_leaf=2, spines=1)
    shape.update(kw)
    return metaroce.Fabric(**shape)


def test_fabric_shape_and_addresses():
    f = small_fabric()
    assert (f.hosts, f.planes) == (4, 2)
    assert f.helper.GetNLeaves() == 2 and f.helper.GetNSpines() == 1
    assert f.nic(3).GetNPorts() == 2
    # Host h on plane p is 10.p.l.(i+1) (MetaRoceFabricHelper's addressing).
    assert f.address(3, 1) == "10.1.1.2"


def test_writes_complete_in_order_with_callbacks():
    f = small_fabric()
    qa, qb = f.connect(0, 3, "metaroce")
    seen = []
    metaroce.on_completion(qa, lambda qp, c: seen.append(
        (int(c.wrId), int(c.bytes), int(c.stream), metaroce.now().GetNanoSeconds())))
    ids = [qa.PostWrite(0, 64 * 1024 * (i + 1)) for i in range(3)]
    metaroce.run()
    assert [s[0] for s in seen] == ids
    assert [s[1] for s in seen] == [65536, 131072, 196608]
    assert all(s[2] == 0 for s in seen)
    times = [s[3] for s in seen]
    assert times == sorted(times) and times[0] > 0
    assert qa.IsIdle() and qa.GetCompletedCount() == 3
    assert qa.GetTransportName() == "metaroce"


def test_rocev2_queue_pair_on_one_plane():
    f = small_fabric()
    qa, _ = f.connect(1, 2, "rocev2", plane=1)
    done = []
    metaroce.on_completion(qa, lambda qp, c: done.append(int(c.bytes)))
    qa.PostWrite(0, 100000)
    metaroce.run()
    assert done == [100000]
    assert qa.GetTransportName() == "rocev2"


def test_multipath_uses_every_plane():
    f = small_fabric()
    qa, _ = f.connect(0, 3)
    qa.PostWrite(0, 1 << 20)
    metaroce.run()
    # Host 0 hangs off leaf 0 of every plane: each plane's leaf forwarded part of the message.
    forwarded = [f.helper.GetLeaf(p, 0).GetForwarded() for p in range(2)]
    assert all(n > 100 for n in forwarded), forwarded


def test_schedule_and_stop_time():
    calls = []
    metaroce.schedule("5us", lambda: calls.append(metaroce.now().GetMicroSeconds()))
    metaroce.schedule(1e-5, lambda: calls.append(metaroce.now().GetMicroSeconds()))
    metaroce.run(until="20us")
    assert calls == [5, 10]


def test_plane_failure_is_survived():
    f = small_fabric()
    qa, _ = f.connect(0, 3)
    done = []
    metaroce.on_completion(qa, lambda qp, c: done.append(int(c.status)))
    f.fail_plane(1, "10us")
    qa.PostWrite(0, 2 << 20)
    metaroce.run(until="100ms")
    assert done == [int(metaroce.engine.CompletionStatus.Success)]


def test_socket_applications_and_trace_sources():
    # ns-3's own BulkSend and PacketSink over MetaRoceSocket, with a trace source connected to
    # a Python function.
    f = small_fabric()
    h = ns.MetaRoceHelper()
    for host in (0, 3):
        h.InstallSocketFactory(f.node(host))
    sink = ns.PacketSinkHelper("ns3::MetaRoceSocketFactory", metaroce.address("0.0.0.0", 9))
    sink_apps = sink.Install(f.node(3))
    bulk = ns.BulkSendHelper("ns3::MetaRoceSocketFactory", metaroce.address(f.address(3), 9))
    bulk.SetAttribute("MaxBytes", metaroce.attribute_value("ns3::BulkSendApplication",
                                                           "MaxBytes", 500000))
    bulk.Install(f.node(0))
    received = []
    sink_apps.Get(0).TraceConnectWithoutContext("Rx", metaroce.callback(
        lambda packet, sender: received.append(packet.GetSize()),
        "void(ns3::Ptr<const ns3::Packet>, const ns3::Address&)"))
    metaroce.run(until="10ms")
    assert sum(received) == 500000


def test_python_exception_in_a_callback_stops_the_run():
    def fail():
        raise KeyError("raised in a scheduled Python function")

    metaroce.schedule("1us", fail)
    with pytest.raises(KeyError, match="raised in a scheduled Python function"):
        metaroce.run()
