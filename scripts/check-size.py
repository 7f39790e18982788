#!/usr/bin/env python3
"""Size limits of the module's sources (issue: files a newcomer can navigate).

No non-test source file of contrib/metaroce is over 600 lines and no function over 80 lines,
except the ones listed in scripts/size-exceptions.txt with the reason they are kept.

A function is found the way the project's clang-format style (ns-3: braces on their own line)
writes one: a line holding only "{" right after a line that ends its signature (")", "const",
"override", "noexcept", or a member-initialiser line), closed by the "}" at the same indent.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULE = ROOT / "contrib" / "metaroce"
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
SIGNATURE_END = re.compile(r"(\)|\bconst|\boverride|\bnoexcept|\bfinal)\s*$")
CONTROL = re.compile(r"^\s*(\}\s*)?(if|for|while|switch|catch|else)\b")


def exceptions():
    allowed = set()
    path = ROOT / "scripts" / "size-exceptions.txt"
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.split("#", 1)[0].strip()
        if line:
            allowed.add(line)
    return allowed


def function_name(lines, open_index):
    """The name of the function whose body opens at `open_index`."""
    for i in range(open_index - 1, max(open_index - 12, -1), -1):
        m = re.search(r"([~\w:]+)\s*\(", lines[i])
        if m and not lines[i].lstrip().startswith((",", ":")):
            return m.group(1)
    return "?"


def long_functions(lines):
    for i, line in enumerate(lines):
        if line.strip() != "{" or i == 0:
            continue
        if not SIGNATURE_END.search(lines[i - 1].rstrip()):
            continue
        # The statement that ends on the line before: walk up until its parentheses balance, so
        # that an "if (...)" spread over several lines is not taken for a function.
        j, depth = i - 1, 0
        while j >= 0:
            depth += lines[j].count(")") - lines[j].count("(")
            if depth <= 0:
                break
            j -= 1
        if CONTROL.match(lines[j]):
            continue
        indent = len(line) - len(line.lstrip())
        for k in range(i + 1, len(lines)):
            text = lines[k]
            if text.strip() == "}" or text.strip() == "};":
                if len(text) - len(text.lstrip()) == indent:
                    body = k - i - 1
                    if body > MAX_FUNCTION_LINES:
                        yield function_name(lines, i), i + 1, body
                    break


def main():
    allowed = exceptions()
    problems = []
    for path in sorted(MODULE.rglob("*")):
        if path.suffix not in (".cc", ".h") or "test" in path.relative_to(MODULE).parts:
            continue
        rel = str(path.relative_to(ROOT))
        lines = path.read_text().splitlines()
        if len(lines) > MAX_FILE_LINES and rel not in allowed:
            problems.append(f"{rel}: {len(lines)} lines (limit {MAX_FILE_LINES})")
        for name, line, body in long_functions(lines):
            if f"{rel}:{name}" not in allowed:
                problems.append(f"{rel}:{line}: {name} is {body} lines (limit {MAX_FUNCTION_LINES})")
    for p in problems:
        print(p)
    if problems:
        print(f"check-size: {len(problems)} over the limits (scripts/size-exceptions.txt lists "
              "the kept exceptions)", file=sys.stderr)
        return 1
    print(f"check-size: every file <= {MAX_FILE_LINES} lines, every function <= "
          f"{MAX_FUNCTION_LINES} lines (exceptions: {len(allowed)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
