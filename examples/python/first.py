#!/usr/bin/env python3
"""The first MetaRoCE program from Python, as contrib/metaroce/examples/metaroce-first.cc (and
ns-3's tutorial first.py): two nodes, a point-to-point link built by ns-3's PointToPointHelper,
a MetaRoCE NIC on each node with the link's device as its port, one RDMA WRITE.

    scripts/python.sh examples/python/first.py
    scripts/python.sh examples/python/first.py --bytes 4194304 --transport rocev2
"""

import argparse
import sys

import metaroce
from metaroce import ns


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bytes", type=int, default=1 << 20)
    p.add_argument("--transport", default="metaroce", choices=["metaroce", "rocev2"])
    a = p.parse_args()
    if not 1 <= a.bytes <= 1 << 31:
        p.error(f"--bytes must be in [1, 2147483648], not {a.bytes}")

    nodes = ns.NodeContainer()
    nodes.Create(2)

    point_to_point = ns.PointToPointHelper()
    point_to_point.SetDeviceAttribute("DataRate", ns.StringValue("100Gbps"))
    point_to_point.SetChannelAttribute("Delay", ns.StringValue("1us"))
    devices = point_to_point.Install(nodes)

    # A MetaRoCE NIC on each node, the link's device its port (plane 0).
    rdma = ns.MetaRoceHelper()
    sender = rdma.Install(nodes.Get(0))
    receiver = rdma.Install(nodes.Get(1))
    sender.AddPort(devices.Get(0), ns.Ipv4Address("10.1.1.1"))
    receiver.AddPort(devices.Get(1), ns.Ipv4Address("10.1.1.2"))

    qps = ns.MetaRoceNic.Connect(sender, receiver, metaroce.transport(a.transport))

    def completed(qp, c):
        print(f"node {qp.GetNic().GetObject[ns.Node]().GetId()} t={metaroce.now().GetMicroSeconds()}us:"
              f" work request {c.wrId} complete, {c.bytes} bytes")

    metaroce.on_completion(qps.first, completed)
    metaroce.on_completion(qps.second, completed)
    metaroce.schedule("1us", lambda: qps.first.PostWrite(0, a.bytes))
    metaroce.run(until="1s")
    placed = int(qps.second.GetCounters().placedBytes)
    print(f"{placed} of {a.bytes} bytes placed at the receiver")
    metaroce.reset()
    return 0 if placed == a.bytes else 1


if __name__ == "__main__":
    sys.exit(main())
