#!/usr/bin/env python3
"""References to doc/spec.md's sections, checked against its headings.

Fails when
- a section of MetaRoCE 1.0 in doc/spec.md's mapping table has no heading of the same number
  and title in doc/spec.md, or that heading does not open by saying only 1.0's title is known;
- a scenario's `spec` line or its `spec-1.0 none (ours ...)` names a section, assumption (A<n>)
  or published fact (F<n>) that doc/spec.md does not have;
- a configuration field (METAROCE_FIELD) names a section doc/spec.md does not have;
- a "spec X.Y" reference anywhere in the tree (code, tests, docs; not the change log, whose
  entries keep the numbers of their time) names a section doc/spec.md does not have.

usage: check-spec-references.py
"""
import pathlib
import re
import subprocess
import sys

from doc_tables import table_rows

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "doc" / "spec.md"
REF = r"(?:\d+(?:\.\d+)?|A\d+|F\d+)"
SEP = r"(?:, | and | |/|-|; )"
# "spec 4.6", "spec 4.6, 7.3 and A14", "doc/spec.md 5.8", "spec section 5", "(ours 9.2 A14)"
LIST = re.compile(r"(?:\b[Ss]pec(?:\.md`{0,2})?,?(?: sections?)? |\bspec's \(|\(ours )"
                  rf"({REF}(?:{SEP}{REF})*)")
QUOTED_SECTION = re.compile(r'"(\d+(?:\.\d+)?)"')
SKIP = ("CHANGES.md", "doc/spec.md")
TITLE_ONLY = re.compile(r'^\*MetaRoCE 1\.0 (\d\.\d), "(.*)": only the title is known\.')


def spec_names(text):
    """Every section number, assumption and fact doc/spec.md defines."""
    names = set()
    for line in text.splitlines():
        if m := re.match(r"^## (\d+)\. ", line):
            names.add(m.group(1))
        elif m := re.match(r"^### (\d+\.\d+) ", line):
            names.add(m.group(1))
        elif m := re.match(r"^\| ([AF]\d+) \|", line):
            names.add(m.group(1))
    return names


def mapping_problems(text):
    """1.0's sections in the mapping table against this document's headings."""
    lines = text.splitlines()
    problems, rows = [], 0
    for cells in table_rows(lines, "### 0.3 MetaRoCE 1.0 mapping"):
        m = re.match(r"^(\d\.\d) (.+)$", cells[0])
        if not m or "not visible" in m.group(2):
            continue  # a chapter's row, and the row for what follows 1.0's visible part
        rows += 1
        number, title = m.group(1), m.group(2)
        heading = f"### {number} {title}"
        if heading not in lines:
            problems.append(f"spec.md: no heading '{heading}' for 1.0's section {number}")
            continue
        after = lines.index(heading) + 1
        while after < len(lines) and not lines[after].strip():
            after += 1
        opening = TITLE_ONLY.match(lines[after]) if after < len(lines) else None
        if not opening or opening.group(1) != number or opening.group(2) != title:
            problems.append(f"spec.md: {number} does not open with the line saying only the "
                            f"title of 1.0's {number} is known")
    if rows == 0:
        problems.append("spec.md: the mapping table has no section of 1.0")
    return problems


def tokens(text):
    return re.findall(REF, text)


def main():
    text = SPEC.read_text()
    names = spec_names(text)
    problems = mapping_problems(text)
    checked = 0

    for path in sorted((ROOT / "test" / "compliance" / "scenarios").glob("*.mrs")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            refs = []
            if line.startswith("spec "):
                refs = tokens(line[5:])
            elif line.startswith("spec-1.0 none") and "(ours " in line:
                refs = tokens(line[line.index("(ours ") + 6:])
            for ref in refs:
                checked += 1
                if ref not in names:
                    problems.append(f"{path.relative_to(ROOT)}:{number}: '{ref}' is not a "
                                    "section, assumption or fact of doc/spec.md")

    files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], check=True,
                           capture_output=True, text=True).stdout.split()
    for name in files:
        if name in SKIP or name.startswith("test/fuzz/corpus/") or name.startswith("test/golden/"):
            continue
        path = ROOT / name
        try:
            content = path.read_text()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        fields = "METAROCE_FIELD(" in content and name.endswith(".cc")
        for number, line in enumerate(content.splitlines(), 1):
            refs = [t for m in LIST.finditer(line) for t in tokens(m.group(1))[:1]]
            # beyond the first reference of a list, numbers with a dot are sections too
            refs += [t for m in LIST.finditer(line) for t in tokens(m.group(1))[1:] if "." in t
                     or t[0] in "AF"]
            if fields:
                refs += QUOTED_SECTION.findall(line)
            for ref in refs:
                checked += 1
                if ref not in names:
                    problems.append(f"{name}:{number}: reference to '{ref}', which doc/spec.md "
                                    "does not have")

    for p in problems:
        print("check-spec-references: " + p, file=sys.stderr)
    if not problems:
        print(f"check-spec-references: {checked} references to doc/spec.md's "
              f"{len(names)} sections, assumptions and facts")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 1:
        sys.exit(__doc__.strip().splitlines()[-1])
    sys.exit(main())
