#!/usr/bin/env python3
"""The MetaRoCE 1.0 coverage the documents state against the scenarios' `spec-1.0` lines.

metaroce-compliance --coverage prints, from the scenario files, which scenarios name each
section of MetaRoCE 1.0's visible contents. This check fails when doc/compliance.md's table
"Coverage by MetaRoCE 1.0 section" (its counts and the scenarios of each section) or the
Scenarios column of doc/spec.md's "MetaRoCE 1.0 mapping" says otherwise, so that a scenario
tagged, re-tagged or added without the documents is caught.

usage: check-coverage-docs.py BUILD_DIR
"""
import fnmatch
import pathlib
import re
import subprocess
import sys

from doc_tables import table_rows

ROOT = pathlib.Path(__file__).resolve().parents[2]
SECTION = re.compile(r"^  (\d\.\d)  .*?\s(\d+)$")
NONE = re.compile(r"^none .*?\s(\d+)$")
NAME = re.compile(r"^        ([a-z0-9-]+)")
TICKED = re.compile(r"`([a-z0-9*][a-z0-9*-]*)`")


def coverage(build):
    """{section: set of scenario names}, the count tagged none, every scenario's name."""
    out = subprocess.run([str(pathlib.Path(build) / "metaroce-compliance"), "--coverage"],
                         check=True, capture_output=True, text=True).stdout
    sections, none, names, current = {}, None, set(), None
    for line in out.splitlines():
        if m := SECTION.match(line):
            current = sections.setdefault(m.group(1), set())
        elif m := NONE.match(line):
            none, current = int(m.group(1)), None
        elif m := NAME.match(line):
            names.add(m.group(1))
            if current is not None:
                current.add(m.group(1))
    return sections, none, names


def named(cell, names):
    """The scenarios a cell names, `prefix-*` expanded against every scenario's name."""
    out = set()
    for token in TICKED.findall(cell):
        out |= {n for n in names if fnmatch.fnmatch(n, token)}
    return out


def main(build):
    sections, none, names = coverage(build)
    problems = []
    compliance = ROOT / "doc" / "compliance.md"
    for cells in table_rows(compliance.read_text().splitlines(), "## Coverage by MetaRoCE 1.0 section"):
        number = cells[0].split()[0]
        count = int(re.match(r"\d+", cells[1]).group(0))
        if number == "none":
            if count != none:
                problems.append(f"{compliance.name}: none has {count}, the scenarios {none}")
            continue
        want = sections.get(number, set())
        if count != len(want) or named(cells[1], names) != want:
            problems.append(f"{compliance.name}: {number} lists {count} "
                            f"{sorted(named(cells[1], names))}, the scenarios {sorted(want)}")
    spec = ROOT / "doc" / "spec.md"
    for cells in table_rows(spec.read_text().splitlines(), "### 0.3 MetaRoCE 1.0 mapping"):
        number = cells[0].strip("*").split()[0]
        if number in sections and named(cells[3], names) != sections[number]:
            problems.append(f"{spec.name}: the mapping of {number} lists "
                            f"{sorted(named(cells[3], names))}, the scenarios "
                            f"{sorted(sections[number])}")
    for p in problems:
        print("check-coverage-docs: " + p, file=sys.stderr)
    if not problems:
        print(f"check-coverage-docs: {len(sections)} sections of MetaRoCE 1.0 as the "
              f"{len(names)} scenarios tag them")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    sys.exit(main(sys.argv[1]))
