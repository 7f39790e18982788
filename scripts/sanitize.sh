#!/usr/bin/env bash
# Builds the project with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DMETAROCE_SANITIZE=ON: -fsanitize=address,undefined -fno-sanitize-recover=all) in a build
# directory of its own and runs the tests under them; any report fails the run
# (doc/reliability.md, "Sanitizers").
#
#   scripts/sanitize.sh          full: engine unit tests, every ns-3 TestSuite (QUICK), the
#                                compliance suite on every adapter (engine, udp, ns3-nic)
#   scripts/sanitize.sh --quick  what scripts/test.sh runs: the engine alone (no ns-3 built),
#                                its unit tests and the compliance suite on the engine and udp
#                                adapters
#   METAROCE_SANITIZE_BUILD_DIR  build directory (default: <build dir>-asan, -asan-quick)
#
# Debian's ns-3 libraries are not instrumented. ASan still sees every allocation (malloc and
# operator new are intercepted process-wide), so that is fine; what it cannot see is an
# out-of-bounds access made inside ns-3's own code. test/sanitize/ holds the suppressions, each
# with its reason.
set -euo pipefail
source "$(dirname "$0")/common.sh"

mode=full
if [ "${1:-}" = "--quick" ]; then mode=quick; fi
suffix=$([ "$mode" = quick ] && echo "-asan-quick" || echo "-asan")
dir="${METAROCE_SANITIZE_BUILD_DIR:-$BUILD_DIR$suffix}"
with_ns3=$([ "$mode" = quick ] && echo OFF || echo ON)

mkdir -p "$CCACHE_DIR"
mkdir -p "$dir"
log="$dir/sanitize-build.log"
# Configured every time (cheap when nothing changed): the test sources are globbed.
step "configure sanitized build ($dir, ns-3 $with_ns3)"
cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMETAROCE_SANITIZE=ON -DMETAROCE_WITH_NS3="$with_ns3" > "$log" 2>&1 ||
  { cat "$log" >&2; echo "sanitize: configure failed" >&2; exit 1; }
step "build (ASan + UBSan)"
targets=(metaroce-engine-tests metaroce-compliance)
[ "$mode" = full ] && targets+=(metaroce-test-runner)
cmake --build "$dir" -j "$JOBS" --target "${targets[@]}" > "$log" 2>&1 ||
  { tail -n 40 "$log" >&2; echo "sanitize: build failed" >&2; exit 1; }

supp="$ROOT/test/sanitize"
# halt_on_error: the first report ends the process with a failure; detect_leaks: LeakSanitizer
# too; abort_on_error=0 so that a report exits with the sanitizer's exit code, not SIGABRT.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:suppressions=$supp/asan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp"

step "engine unit tests under ASan+UBSan"
"$dir/metaroce-engine-tests" --gtest_brief=1 2>&1 | tail -n 3

if [ "$mode" = full ]; then
  step "ns-3 test suites under ASan+UBSan (QUICK)"
  for suite in $("$dir/metaroce-test-runner" --list | grep '^metaroce'); do
    "$dir/metaroce-test-runner" --suite="$suite" --fullness=QUICK | tail -n 1
  done
fi

step "compliance suite under ASan+UBSan"
adapters=(engine udp)
[ "$mode" = full ] && adapters+=(ns3-nic)
for adapter in "${adapters[@]}"; do
  "$dir/metaroce-compliance" --adapter="$adapter" --report="$dir/compliance-$adapter.json" |
    grep -v '^PASS'
done
step "sanitizers: clean ($mode)"
