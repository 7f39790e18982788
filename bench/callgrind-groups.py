#!/usr/bin/env python3
"""Exclusive instructions (Ir) of a callgrind profile, by group and by function.

    python3 bench/callgrind-groups.py callgrind.out.1 [top]

Groups are shared objects (libns3-core, libns3-network, libns3-point-to-point, libc, ...) and,
inside libns3-metaroce.so, the module's source directory (engine, model/nic, model/switch, ...)
or what was inlined into it from headers (std/boost; ns-3 templates such as TracedCallback,
which ns-3's own devices also resolve to our copy). The file is parsed directly because
callgrind_annotate leaves out the object of some lines.
"""
import collections
import re
import sys


def read_costs(path):
    """{(object, file, function): exclusive Ir}, from callgrind's compressed name format."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    alias = {"cob": "ob", "cfi": "fl", "cfl": "fl", "fi": "fl", "fe": "fl", "cfn": "fn"}
    current = {"ob": "", "fl": "", "fn": ""}
    costs = collections.Counter()
    skip_next = False
    for line in open(path):
        key, eq, rest = line.rstrip("\n").partition("=")
        if eq and key in names or key in alias:
            kind = alias.get(key, key)
            m = re.match(r"\((\d+)\)(?: (.*))?", rest)
            value = rest if not m else names[kind].setdefault(m.group(1), m.group(2))
            if key in current:
                current[key] = value
        elif eq and key == "calls":
            skip_next = True  # the next cost line is the call's inclusive cost
        elif line[:1].isdigit() or line[:1] in "+-*":
            fields = line.split()
            if skip_next:
                skip_next = False
            elif len(fields) >= 2:
                costs[(current["ob"], current["fl"], current["fn"])] += int(fields[1])
    return costs


def group(obj, src):
    if "libns3-metaroce" in obj:
        m = re.search(r"contrib/metaroce/(engine|model/\w+|helper/\w+)", src)
        if m:
            return "metaroce " + m.group(1)
        return "ns-3 templates in our .so" if "/ns3/" in src else "metaroce, inlined std/boost"
    if "sim-speed" in obj:
        return "bench binary"
    return re.sub(r".*/", "", obj).split(".so")[0]


def main():
    costs = read_costs(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    total = sum(costs.values())
    groups = collections.Counter()
    functions = collections.Counter()
    for (obj, src, fn), ir in costs.items():
        g = group(obj, src)
        groups[g] += ir
        functions[("metaroce" if g.startswith("metaroce") else g, fn)] += ir
    print(f"total Ir {total:,}")
    for g, ir in groups.most_common():
        if ir * 1000 >= total:
            print(f"{ir / total * 100:5.1f}%  {g}")
    print()
    for (g, fn), ir in functions.most_common(top):
        print(f"{ir / total * 100:5.1f}%  {g:26s} {fn[:110]}")


if __name__ == "__main__":
    main()
