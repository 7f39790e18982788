#!/usr/bin/env bash
# Builds the fuzz targets with clang's libFuzzer, AddressSanitizer and UBSan in a build
# directory of its own (<build dir>-fuzz) and runs them (doc/reliability.md, "Fuzzing").
#
#   scripts/fuzz.sh                       build, then run every target for 60 s
#   scripts/fuzz.sh engine mr-parse       only these targets
#   METAROCE_FUZZ_RUNS=10000000           stop each target after that many executions
#   METAROCE_FUZZ_SECONDS=600             or after that many seconds (default 60)
#   METAROCE_FUZZ_TIMEOUT=120             seconds one input may run (default 10; raise it beside
#                                         other work, where a starved process looks hung)
#   METAROCE_FUZZ_BUILD_DIR               build directory
#
# Each target starts from its committed seed corpus (test/fuzz/corpus/<target>) and grows a
# working corpus in <build>/corpus/<target> (not committed); a crash is written to
# <build>/crashes/<target>/ and ends that target's run with a failure. The last lines of each
# run (executions, exec/s, coverage) are kept in <build>/logs/<target>.log.
set -euo pipefail
source "$(dirname "$0")/common.sh"

dir="${METAROCE_FUZZ_BUILD_DIR:-$BUILD_DIR-fuzz}"
CLANGXX="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$CLANGXX" ]; then
  echo "fuzz: clang++ is not installed (scripts/install-deps.sh installs clang-14)" >&2
  exit 1
fi
mkdir -p "$CCACHE_DIR"
mkdir -p "$dir"
if [ ! -f "$dir/build.ninja" ]; then
  # No ns-3 module (the ns-3 targets compile only their file under test), sanitizers on,
  # warnings not fatal (clang warns about things gcc does not; the gcc build is the gate).
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$CLANGXX" -DMETAROCE_WITH_NS3=OFF -DMETAROCE_FUZZ=ON \
    -DMETAROCE_SANITIZE=ON -DMETAROCE_WERROR=OFF > "$dir/fuzz-build.log" 2>&1 ||
    { cat "$dir/fuzz-build.log" >&2; exit 1; }
fi
cmake --build "$dir" -j "$JOBS" --target metaroce-fuzz > "$dir/fuzz-build.log" 2>&1 ||
  { tail -n 40 "$dir/fuzz-build.log" >&2; echo "fuzz: build failed" >&2; exit 1; }

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(ls "$dir/fuzz" | sed -n 's/^metaroce-fuzz-//p')
fi
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for t in "${targets[@]}"; do
  corpus="$dir/corpus/$t"
  mkdir -p "$corpus" "$dir/crashes/$t" "$dir/logs"
  limit=(-max_total_time="${METAROCE_FUZZ_SECONDS:-60}")
  [ -n "${METAROCE_FUZZ_RUNS:-}" ] && limit=(-runs="$METAROCE_FUZZ_RUNS")
  echo "== fuzz $t (${limit[*]})"
  # -timeout: an input that runs for seconds is a hang; -rss_limit_mb: one that allocates
  # without bound is a finding too.
  if ! "$dir/fuzz/metaroce-fuzz-$t" "${limit[@]}" -timeout="${METAROCE_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$dir/crashes/$t/" \
      "$corpus" "$ROOT/test/fuzz/corpus/$t" > "$dir/logs/$t.log" 2>&1; then
    status=1
    echo "fuzz $t: FAILED (see $dir/logs/$t.log and $dir/crashes/$t/)"
  fi
  grep -E "^#[0-9]+.*(DONE|pulse|NEW)|stat::number_of_executed_units|stat::average_exec_per_sec|cov:" \
    "$dir/logs/$t.log" | tail -n 3
done
exit "$status"
