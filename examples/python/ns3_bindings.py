#!/usr/bin/env python3
"""The module through ns-3's own Python bindings (the ns-3.44 wheel's `from ns import ns`) beside
the project's `import metaroce`: `import metaroce` first loads the module library and its
headers, then `from ns import ns` is ns-3's usual entry point and reaches MetaRoCE's classes as
it reaches ns-3's (ns.MetaRoceFabricHelper, ns.CreateObject[ns.MetaRoceNic](), ...).

A two-plane leaf-spine fabric is built with ns-3's API only, one WRITE crosses it, and the
completion is reported through a C++ callback made by the project's helpers.

    METAROCE_NS3=3.44 scripts/python.sh examples/python/ns3_bindings.py --bytes 1048576
"""

import argparse

import metaroce  # the one line: loads the module (and ns-3) into cppyy, before ns-3's bindings
from ns import ns  # ns-3's own bindings (the ns3 wheel); ns is metaroce.ns


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hosts", type=int, default=4)
    p.add_argument("--planes", type=int, default=2)
    p.add_argument("--bytes", type=int, default=1 << 20)
    args = p.parse_args()

    # ns-3's idioms, on the module's classes.
    helper = ns.MetaRoceFabricHelper()
    helper.SetHosts(args.hosts)
    helper.SetPlanes(args.planes)
    helper.SetHostsPerLeaf(2)
    helper.SetSpines(1)
    helper.SetNicAttribute("Mtu", ns.UintegerValue(4096))
    helper.Build()
    a, b = helper.GetNic(0), helper.GetNic(args.hosts - 1)
    print(a.GetInstanceTypeId().GetName(), "on host 0 of", helper.GetNHosts(), "hosts,",
          helper.GetNPlanes(), "planes")

    pair = ns.MetaRoceNic.Connect(a, b, metaroce.transport("metaroce"), 0)
    qa = pair.first
    done = []
    metaroce.on_completion(qa, lambda qp, c: done.append((c.bytes, c.time)))
    qa.PostWrite(0, args.bytes)
    ns.Simulator.Stop(ns.MilliSeconds(10))
    ns.Simulator.Run()
    ns.Simulator.Destroy()
    if not done:
        raise SystemExit("the WRITE did not complete")
    print(f"WRITE of {done[0][0]} bytes completed at {done[0][1] / 1000:.3f} us")


if __name__ == "__main__":
    main()
