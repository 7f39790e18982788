#!/usr/bin/env python3
"""The documents' check (scripts/test.sh runs it): what a reader follows must lead somewhere,
the references stay short enough to read, and history stays in CHANGES.md.

1. Links: every relative link of a Markdown document ([text](path#anchor)) and of the module
   documentation (`text <path>`_) names a file of the repository, and an anchor names a heading
   of that Markdown file (GitHub's slugs); every repository path a document names in backquotes
   (`doc/spec.md`, ``examples/experiments/run-all.sh``) exists, in the repository or in the
   module's folder (the module documentation's ``examples/metaroce-8-plane.cc``).
   A numbered section cited in any tracked text file ("doc/results.md section 5", "validation.md,
   sections 8 and 10") is a "## 5." heading of that document.
   Every engine attribute (a METAROCE_FIELD row of the MetaRoCE and RoCEv2 configuration
   tables; RoCEv2's carry the prefix Roce on the NIC) is named in the module documentation.
2. Line limits: README.md, doc/results.md and doc/performance.md (issue 58's targets).
3. No development history outside CHANGES.md: no dates of development, numbered work periods or
   accounts of how a default came to be, in any tracked text file (documents, code, comments,
   scripts).

Prints one line per finding ("FILE:LINE: what") and exits 1 if there is any.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULE = ROOT / "contrib" / "metaroce"
LINE_LIMITS = {"README.md": 200, "doc/results.md": 600, "doc/performance.md": 400}
HISTORY_FILE = "CHANGES.md"
THIS_FILE = "scripts/check-docs.py"  # it names the patterns it looks for
TEXT_SUFFIXES = {".md", ".rst", ".txt", ".cc", ".h", ".py", ".sh", ".lua", ".cmake", ".json",
                 ".toml", ".ini", ".cfg", ".yml", ".yaml", ""}
# Files whose content is data, not prose: scenario files, corpora, golden results.
DATA_PREFIXES = ("test/golden/", "test/fuzz/corpus", "test/compliance/scenarios/")

# "first" and "second" are plain English ("the first session that runs to its end").
ORDINAL = (r"(third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
           r"twelfth|\w+teenth|twenty(-\w+)?|thirty(-\w+)?)")
HISTORY = [
    (re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"), "a date"),
    (re.compile(rf"\b{ORDINAL} session\b", re.I), "a numbered work period"),
    (re.compile(r"\b(this|last|next|previous|earlier|later) session'?s?\b", re.I), "a work period"),
    (re.compile(r"\bwork period", re.I), "a work period"),
    (re.compile(r"\b(the )?default since\b", re.I), "history of a default"),
    (re.compile(r"\bbehaviou?r (of )?before\b", re.I), "earlier behaviour"),
]
MD_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
RST_LINK = re.compile(r"`[^`<]*<([^>`]+)>`__?")
TOP_DIRS = ("doc", "examples", "scripts", "test", "bench", "contrib", "bindings", "tools", ".ci")
CODE_PATH = re.compile(r"``?((?:%s)/[A-Za-z0-9_./-]+)``?" % "|".join(re.escape(d) for d in TOP_DIRS))


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True)
    return [p for p in out.stdout.decode().split("\0") if p]


def slug(heading):
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        in_code = False
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("```"):
                in_code = not in_code
            m = None if in_code else re.match(r"#{1,6}\s+(.*)", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check_target(doc, lineno, target, findings):
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return  # a URL or mailto:
    path_part, _, anchor = target.partition("#")
    dest = (doc.parent / path_part).resolve() if path_part else doc
    rel = doc.relative_to(ROOT)
    if not dest.exists():
        findings.append(f"{rel}:{lineno}: link to a missing file: {target}")
    elif anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
        findings.append(f"{rel}:{lineno}: link to a missing heading: {target}")


def check_links(files, findings):
    for name in files:
        # The change log names files that are gone.
        if not name.endswith((".md", ".rst")) or name == HISTORY_FILE or name.startswith(DATA_PREFIXES):
            continue
        doc = ROOT / name
        in_code = False
        for lineno, line in enumerate(doc.read_text(errors="replace").splitlines(), 1):
            if line.startswith("```"):
                in_code = not in_code
                continue
            links = MD_LINK.findall(line) if name.endswith(".md") else [(t, "") for t in
                                                                       RST_LINK.findall(line)]
            for groups in links:
                target = groups[0] or groups[1]
                if target and not in_code:
                    check_target(doc, lineno, target, findings)
            for path in CODE_PATH.findall(line):
                path = path.rstrip(".,;:")
                if re.search(r"[*<>{}]|PREFIX|\.\.\.|/$", path):
                    continue  # a pattern or a placeholder, not a file
                # The module documentation names files from the module's folder.
                if not any((base / path).exists() for base in (ROOT, MODULE)):
                    findings.append(f"{name}:{lineno}: names a missing path: {path}")


SECTION_REF = re.compile(r"\b([a-z][\w-]*\.md),? (?:section|sections) ((?:\d+)(?:(?:, | and |-)\d+)*)")


def numbered_sections(path, cache={}):
    if path not in cache:
        text = path.read_text(errors="replace") if path.exists() else ""
        cache[path] = {int(n) for n in re.findall(r"^## (\d+)\.", text, re.M)}
    return cache[path]


def check_section_refs(files, findings):
    docs = {p.name: p for p in list((ROOT / "doc").glob("*.md")) + [ROOT / "README.md"]}
    for name in files:
        path = ROOT / name
        if name == HISTORY_FILE or name.startswith(DATA_PREFIXES) or path.suffix not in TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            for doc, numbers in SECTION_REF.findall(line):
                target = docs.get(doc)
                if target is None:
                    continue  # not one of the project's documents (the spec has its own check)
                cited = set()
                for part in re.split(r", | and ", numbers):
                    lo, _, hi = part.partition("-")
                    cited.update(range(int(lo), int(hi or lo) + 1))
                missing = sorted(cited - numbered_sections(target))
                if missing:
                    findings.append(f"{name}:{lineno}: cites {doc} section "
                                    f"{', '.join(map(str, missing))}, which it does not have")


CONFIG_TABLES = {"contrib/metaroce/engine/metaroce/metaroce-config.cc": "",
                 "contrib/metaroce/engine/rocev2/rocev2-config.cc": "Roce"}
MODULE_DOC = "contrib/metaroce/doc/metaroce.rst"


def check_attributes(findings):
    doc = (ROOT / MODULE_DOC).read_text()
    for table, prefix in CONFIG_TABLES.items():
        rows = re.findall(r'METAROCE_FIELD\(\s*\w+,\s*\w+,\s*"(\w+)"', (ROOT / table).read_text())
        if not rows:
            findings.append(f"{table}: no METAROCE_FIELD rows found")
        for name in rows:
            if f"``{prefix}{name}``" not in doc:
                findings.append(f"{MODULE_DOC}: the attribute {prefix}{name} ({table}) is not "
                                "documented")


def check_limits(findings):
    for name, limit in LINE_LIMITS.items():
        path = ROOT / name
        if not path.exists():
            findings.append(f"{name}: missing")
            continue
        lines = len(path.read_text().splitlines())
        if lines > limit:
            findings.append(f"{name}: {lines} lines, the limit is {limit}")


def check_history(files, findings):
    for name in files:
        path = ROOT / name
        if name in (HISTORY_FILE, THIS_FILE) or name.startswith(DATA_PREFIXES):
            continue
        if path.suffix not in TEXT_SUFFIXES or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            for pattern, what in HISTORY:
                m = pattern.search(line)
                if m:
                    findings.append(f"{name}:{lineno}: {what} ({m.group(0)}): history goes in "
                                    f"{HISTORY_FILE}")
                    break


def main():
    files = tracked_files()
    findings = []
    check_links(files, findings)
    check_section_refs(files, findings)
    check_attributes(findings)
    check_limits(findings)
    check_history(files, findings)
    for line in findings:
        print(line)
    if findings:
        print(f"check-docs: {len(findings)} findings", file=sys.stderr)
        return 1
    print("check-docs: links, line limits and history clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
