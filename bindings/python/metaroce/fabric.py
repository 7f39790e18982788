"""A multi-plane leaf-spine fabric from Python: MetaRoceFabricHelper with keyword arguments,
checked attributes, queue pairs by transport name and completion callbacks.

    fabric = Fabric(hosts=4, planes=2, hosts_per_leaf=2, spines=1, nic={"Mtu": 4096})
    qa, qb = fabric.connect(0, 3, "metaroce")
    on_completion(qa, lambda qp, c: print(c.bytes, c.time))
    qa.PostWrite(0, 1 << 20)
    run()

Every C++ object stays reachable: ``fabric.helper`` is the MetaRoceFabricHelper, ``nic(h)``
the ns3::Ptr<MetaRoceNic> with its full C++ API.
"""

import cppyy

from .errors import InvalidParameter, cpp_errors
from .objects import attribute_value, callback, time

ns = cppyy.gbl.ns3
engine = cppyy.gbl.metaroce

_COMPLETION = "void(ns3::Ptr<ns3::MetaRoceQueuePair>, const metaroce::Completion&)"


def transport(name):
    """metaroce::Transport from "metaroce" or "rocev2" (what ParseTransport accepts)."""
    if not isinstance(name, str):
        return name
    with cpp_errors():
        return engine.ParseTransport(name)


def _parse_rate(text):
    value = ns.DataRateValue()
    if not value.DeserializeFromString(text, ns.MakeDataRateChecker()):
        raise InvalidParameter(f"invalid data rate {text!r} (e.g. '100Gbps')")
    return value.Get()


class Fabric:
    """A built multi-plane leaf-spine fabric (see MetaRoceFabricHelper)."""

    def __init__(self, hosts=16, planes=1, hosts_per_leaf=8, spines=2, host_rate="100Gbps",
                 host_delay="1us", fabric_rate="100Gbps", fabric_delay="1us", ecmp_seed=1,
                 nic=None, switch=None):
        self.helper = ns.MetaRoceFabricHelper()
        h = self.helper
        for value, what in ((hosts, "hosts"), (planes, "planes"),
                            (hosts_per_leaf, "hosts_per_leaf"), (spines, "spines"),
                            (ecmp_seed, "ecmp_seed")):
            if not isinstance(value, int) or value < 0:
                raise InvalidParameter(f"Fabric: {what} must be a non-negative integer, "
                                       f"got {value!r}")
        h.SetHosts(hosts)
        h.SetPlanes(planes)
        h.SetHostsPerLeaf(hosts_per_leaf)
        h.SetSpines(spines)
        h.SetHostLink(_parse_rate(str(host_rate)), time(host_delay))
        h.SetFabricLink(_parse_rate(str(fabric_rate)), time(fabric_delay))
        h.SetEcmpSeed(ecmp_seed)
        for name, value in (nic or {}).items():
            h.SetNicAttribute(name, attribute_value("ns3::MetaRoceNic", name, value))
        for name, value in (switch or {}).items():
            h.SetSwitchAttribute(name, attribute_value("ns3::MetaRoceSwitch", name, value))
        with cpp_errors():
            h.Build()

    @property
    def hosts(self):
        return self.helper.GetNHosts()

    @property
    def planes(self):
        return self.helper.GetNPlanes()

    def _check_host(self, host):
        if not 0 <= host < self.hosts:
            raise InvalidParameter(f"Fabric: no host {host} (hosts 0..{self.hosts - 1})")

    def nic(self, host):
        self._check_host(host)
        return self.helper.GetNic(host)

    def node(self, host):
        self._check_host(host)
        return self.helper.GetHost(host)

    def address(self, host, plane=0):
        """Host's IPv4 address on `plane`, as a string."""
        self._check_host(host)
        if not 0 <= plane < self.planes:
            raise InvalidParameter(f"Fabric: no plane {plane} (planes 0..{self.planes - 1})")
        out = cppyy.gbl.std.ostringstream()
        self.helper.GetHostAddress(host, plane).Print(out)
        return str(out.str())

    def connect(self, a, b, transport_name="metaroce", plane=0):
        """Queue pair between hosts `a` and `b`: (end at a, end at b). MetaRoCE sprays over
        every plane; RoCEv2 runs on `plane`."""
        self._check_host(a)
        self._check_host(b)
        with cpp_errors():
            pair = ns.MetaRoceNic.Connect(self.nic(a), self.nic(b), transport(transport_name),
                                          plane)
        return pair.first, pair.second

    def fail_plane(self, plane, at, until=None):
        with cpp_errors():
            self.helper.FailPlane(plane, time(at), time(until) if until else ns.Time.Max())

    def fail_spine(self, plane, spine, at, until=None):
        with cpp_errors():
            self.helper.FailSpine(plane, spine, time(at), time(until) if until else ns.Time.Max())

    def fail_host_link(self, host, plane, at, until=None):
        with cpp_errors():
            self.helper.FailHostLink(host, plane, time(at),
                                     time(until) if until else ns.Time.Max())

    def switch_drops(self):
        """Packets dropped by the fabric's switches, all planes."""
        return sum(int(s.GetDropped()) for s in self.helper.GetSwitches())


def on_completion(qp, function):
    """Calls function(qp, completion) for each completion of queue pair `qp`
    (completion: metaroce::Completion with wrId, op, stream, status, bytes, time)."""
    qp.SetCompletionCallback(callback(function, _COMPLETION))
