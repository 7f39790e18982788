#!/usr/bin/env bash
# Mutation check: proves the compliance suite has teeth. Builds the engine-adapter runner with a
# deliberate engine defect (-DMETAROCE_MUTATION=no-sack-retransmit: a SACK gap no longer
# triggers the immediate retransmission of spec 4.6/7.3) in its own build directory, without
# ns-3, and asserts that the suite FAILS, naming the scenarios that caught the defect.
#   METAROCE_MUTATION_BUILD_DIR  build directory (default: <build dir>/mutation)
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"

mutant_dir="${METAROCE_MUTATION_BUILD_DIR:-$BUILD_DIR/mutation}"
mkdir -p "$CCACHE_DIR"
log="$mutant_dir.log"
if [ ! -f "$mutant_dir/build.ninja" ]; then
  cmake -S "$ROOT" -B "$mutant_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMETAROCE_WITH_NS3=OFF -DMETAROCE_MUTATION=no-sack-retransmit > "$log" 2>&1 ||
    { cat "$log" >&2; echo "mutation-check: configuring the mutant failed" >&2; exit 1; }
fi
cmake --build "$mutant_dir" -j "$JOBS" --target metaroce-compliance > "$log" 2>&1 ||
  { cat "$log" >&2; echo "mutation-check: building the mutant failed" >&2; exit 1; }

runner="$mutant_dir/metaroce-compliance"
if ldd "$runner" | grep -q libns3; then
  echo "mutation-check: the engine-adapter runner links ns-3; it must not" >&2
  exit 1
fi

set +e
"$runner" --adapter=engine > "$mutant_dir/mutant.log" 2>&1
status=$?
set -e
caught=$(sed -n 's/^FAIL \([^ ]*\) .*/\1/p' "$mutant_dir/mutant.log")
if [ "$status" -ne 1 ] || [ -z "$caught" ]; then
  echo "mutation-check: the suite did not fail on the no-sack-retransmit engine (exit $status)" >&2
  cat "$mutant_dir/mutant.log" >&2
  exit 1
fi
# The scenarios written for exactly this behaviour must be among those that caught it.
for needed in retx-exact-missing retx-first-packet; do
  if ! grep -qx "$needed" <<< "$caught"; then
    echo "mutation-check: $needed passed on the mutant engine" >&2
    exit 1
  fi
done
echo "mutation no-sack-retransmit caught by $(wc -l <<< "$caught") scenarios:"
sed 's/^/  /' <<< "$caught"
grep -A4 '^FAIL retx-exact-missing' "$mutant_dir/mutant.log"
