#!/usr/bin/env bash
# Fails when a C++ file of the project is not in the project's clang-format style (ns-3's).
# With --fix, rewrites the files instead.
set -euo pipefail
source "$(dirname "$0")/common.sh"

CLANG_FORMAT="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$CLANG_FORMAT" ]; then
  echo "check-format: clang-format-14 is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
cd "$ROOT"
mapfile -t files < <(git ls-files '*.h' '*.cc' 2>/dev/null || find . -name '*.h' -o -name '*.cc')
if [ "${1:-}" = "--fix" ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (scripts/check-format.sh --fix)"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "check-format: ${#files[@]} files in style"
exit "$bad"
