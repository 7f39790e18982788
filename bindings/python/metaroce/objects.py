"""Pythonic helpers where cppyy's view of ns-3 is awkward: object creation with attributes,
attribute values, times, callbacks from Python callables, and the simulator.

Attribute values are validated through ns-3's attribute system (the attribute's checker parses
the string and checks the range), so a bad name or value raises InvalidParameter naming the
type, the attribute and what it accepts, instead of NS_FATAL_ERROR ending the process.
"""

import cppyy

from ._loader import loader
from .errors import FatalError, InvalidParameter, cpp_errors

ns = cppyy.gbl.ns3
_support = cppyy.gbl.metaroce_python

# Python callables handed to C++ stay referenced here until reset(): C++ holds only a
# std::function wrapping them.
_keep_alive = []


def _type_id(type_name):
    name = str(type_name) if isinstance(type_name, (str, cppyy.gbl.std.string)) else type_name.__cpp_name__
    tid = ns.TypeId()
    if not ns.TypeId.LookupByNameFailSafe(name, tid):
        raise InvalidParameter(f"no ns-3 type '{name}' (is its module loaded?)")
    return tid


def _attribute_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def attribute_value(type_name, name, value):
    """An ns3::AttributeValue, checked, for attribute `name` of `type_name` set to `value`.

    `value` is an ns3::AttributeValue (used as is after the check), a bool, a number or a
    string in ns-3's attribute syntax ("100Gbps", "10us", "ns3::UniformRandomVariable").
    """
    tid = _type_id(type_name)
    info = ns.TypeId.AttributeInformation()
    if not tid.LookupAttributeByName(name, info):
        raise InvalidParameter(f"{tid.GetName()} has no attribute '{name}'")
    given = value if isinstance(value, ns.AttributeValue) else ns.StringValue(
        _attribute_text(value))
    try:
        with cpp_errors():
            checked = info.checker.CreateValidValue(given)
    except FatalError as e:  # some of ns-3's parsers abort on malformed text
        raise InvalidParameter(f"{tid.GetName()}::{name}: invalid value "
                               f"{_attribute_text(value)!r}: {e}") from None
    if not checked:
        raise InvalidParameter(
            f"{tid.GetName()}::{name}: invalid value {_attribute_text(value)!r} "
            f"(a {info.checker.GetValueTypeName()}: {info.help})")
    # The checked copy lives in an ns3::Ptr; what is passed on is the given value, which every
    # ns-3 setter converts through the same checker.
    return given


def attributes(type_name):
    """The attributes of an ns-3 type, in TypeId order: dicts of name, default (ns-3's string
    form) and help. For ns3::MetaRoceNic these are the engine's configuration tables (every
    engine tunable, its range, unit and spec section in the help) plus the NIC's own."""
    tid = _type_id(type_name)
    out = []
    for i in range(tid.GetAttributeN()):
        info = tid.GetAttribute(i)
        out.append({"name": str(info.name),
                    "default": str(info.initialValue.SerializeToString(info.checker)),
                    "help": str(info.help)})
    return out


def attribute_string(type_name, values):
    """`values` ({"RtoMin": "30us", "Mtu": 1024}) checked against `type_name`'s attributes and
    joined as "Name=Value;Name=Value", the form of the experiments' nic_attributes and
    switch_attributes."""
    parts = []
    for name, value in values.items():
        attribute_value(type_name, name, value)
        parts.append(f"{name}={_attribute_text(value)}")
    return ";".join(parts)


def create(type_name, **attributes):
    """CreateObject of ns-3 type `type_name` ("ns3::MetaRoceSwitch" or the cppyy class) with
    attributes set before construction completes, as ObjectFactory does."""
    tid = _type_id(type_name)
    factory = ns.ObjectFactory()
    factory.SetTypeId(tid)
    for name, value in attributes.items():
        factory.Set(name, attribute_value(tid.GetName(), name, value))
    cls = getattr(ns, tid.GetName().split("::", 1)[1])
    with cpp_errors():
        return factory.Create[cls]()


def set_attributes(obj, **attributes):
    """Sets checked attributes on an existing ns-3 object."""
    tid = obj.GetInstanceTypeId()
    for name, value in attributes.items():
        obj.SetAttribute(name, attribute_value(tid.GetName(), name, value))


def get_attribute(obj, name):
    """The attribute's value in ns-3's string form."""
    tid = obj.GetInstanceTypeId()
    info = ns.TypeId.AttributeInformation()
    if not tid.LookupAttributeByName(name, info):
        raise InvalidParameter(f"{tid.GetName()} has no attribute '{name}'")
    value = info.checker.Create()
    obj.GetAttribute(name, value.__deref__())
    return str(value.SerializeToString(info.checker))


def set_default(path, value):
    """Config::SetDefault with a check: `path` is "ns3::Type::Attribute"."""
    type_name, _, name = path.rpartition("::")
    ns.Config.SetDefault(path, attribute_value(type_name, name, value))


def time(value):
    """ns3::Time from a Time, a string with unit ("10us", "1.5ms") or seconds (a number)."""
    if isinstance(value, ns.Time):
        return value
    if isinstance(value, str):
        try:
            with cpp_errors():
                return _support.ParseTime(value)
        except FatalError as e:
            raise InvalidParameter(f"invalid time {value!r} ({e}; e.g. '10us')") from None
    return ns.Seconds(float(value))


def callback(function, signature):
    """ns3::Callback calling a Python function; `signature` is the C++ function type, e.g.
    "void(ns3::Ptr<ns3::MetaRoceQueuePair>, const metaroce::Completion&)"."""
    ret, _, args = signature.partition("(")
    args = args.rstrip().rstrip(")")
    types = [ret.strip()] + ([a.strip() for a in _split_arguments(args)] if args.strip() else [])
    _keep_alive.append(function)
    return _support.MakeCallback[tuple(types)](function)


def _split_arguments(text):
    """Splits a C++ argument list at top-level commas (template arguments keep theirs)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "<(["
        depth -= c in ">)]"
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def address(ip, port):
    """ns3::Address of an IPv4 address (string or Ipv4Address) and port, for socket APIs."""
    ipv4 = ns.Ipv4Address(ip) if isinstance(ip, str) else ip
    return _support.ToAddress(ns.InetSocketAddress(ipv4, port))


def schedule(delay, function):
    """Calls `function()` after `delay` (see time()) of simulated time; returns the EventId."""
    _keep_alive.append(function)
    return _support.Schedule(time(delay), function)


def run(until=None):
    """Runs the simulation (up to `until`, if given). ns-3 aborts during the run (e.g. a switch
    checking its attributes at start) raise FatalError with ns-3's message."""
    if until is not None:
        ns.Simulator.Stop(time(until))
    with cpp_errors():
        ns.Simulator.Run()


def now():
    """Current simulated time (ns3::Time)."""
    return ns.Simulator.Now()


def reset():
    """Simulator::Destroy(): ends the simulation and frees its objects (so the next simulation
    starts from time 0), and drops the Python callables kept for C++."""
    ns.Simulator.Destroy()
    _keep_alive.clear()


def include_module(name):
    """Makes another ns-3 module (e.g. "flow-monitor") usable: loads it and parses its header."""
    loader.include_module(name)
