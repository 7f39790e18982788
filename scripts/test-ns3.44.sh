#!/usr/bin/env bash
# The ns-3.44 line of the tests (scripts/test.sh runs it after the ns-3.37 line): the standalone
# build against the ns-3 project's wheel (ns3==3.44.post0 in the project's virtualenv,
# build-3.44/), then
#   1. every ns-3 TestSuite of the module (QUICK; the engine's EXTENSIVE, as on 3.37),
#   2. the golden runs: the same result files, byte for byte, as test/golden/expected (made on
#      ns-3.37), also with simultaneous events shuffled,
#   3. every example program, on a small fabric,
#   4. Python: the bindings' whole pytest suite (test/python), with ns-3's own bindings
#      (`from ns import ns`) reaching the module (test_ns3_bindings.py).
# The engine is built without its profile (METAROCE_PGO=off): the profile changes speed, never
# results, and the 3.37 line already builds and checks it. Prints the time of each part.
set -euo pipefail
export METAROCE_NS3=3.44
source "$(dirname "$0")/common.sh"

timed() {
  local start=$SECONDS
  "$@"
  echo "   ($((SECONDS - start)) s)"
}

step "ns-3.44: build against the wheel ($BUILD_DIR)"
timed env METAROCE_PGO="${METAROCE_NS3_44_PGO:-off}" bash "$ROOT/scripts/build.sh"

suites() {
  local suite level
  for suite in $("$BUILD_DIR/metaroce-test-runner" --list | grep '^metaroce'); do
    level="${METAROCE_FULLNESS:-QUICK}"
    [ "$suite" = metaroce-engine ] && level=EXTENSIVE
    "$BUILD_DIR/metaroce-test-runner" --suite="$suite" --fullness="$level" | tail -n 1
  done
}
step "ns-3.44: ns-3 test suites (standalone runner)"
timed suites

step "ns-3.44: golden runs (test/golden, the files made on ns-3.37)"
timed bash "$ROOT/test/golden/run.sh"

examples() {
  local e="$BUILD_DIR/examples" out="$BUILD_DIR/examples-check"
  mkdir -p "$out"
  "$e/metaroce-fabric" --hosts=4 --planes=2 --hostsPerLeaf=2 --spines=2 --messageBytes=65536 \
    >"$out/fabric.txt"
  "$e/metaroce-8-plane" --hosts=4 --planes=8 --hostsPerLeaf=2 --spines=2 \
    --messageBytes=262144 >"$out/8-plane.txt"
  "$e/metaroce-4-plane" --hosts=4 --hostsPerLeaf=2 --spines=2 --messageBytes=262144 \
    --losses=0 >"$out/4-plane.txt"
  "$e/metaroce-custom-congestion" --hosts=4 --planes=1 --messageBytes=524288 \
    >"$out/custom-congestion.txt"
  "$e/metaroce-loopback" --loss=0,0.01 --planes=2 >"$out/loopback.txt"
  "$e/metaroce-bulk-send" --bytes=10000000 --planes=2 --loss=0,0.01 >"$out/bulk-send.txt"
  echo "6 examples ran (outputs in $out)"
}
step "ns-3.44: examples"
timed examples

python_tests() {
  local venv
  venv=$(bash "$ROOT/scripts/python-env.sh")
  METAROCE_BUILD_DIR="$BUILD_DIR" PYTHONPATH="$ROOT/bindings/python" \
    "$venv/bin/python" -m pytest "$ROOT/test/python" -q -c "$ROOT/test/python/pytest.ini" \
    --rootdir="$ROOT/test/python"
}
step "ns-3.44: Python, the project's bindings and ns-3's own (from ns import ns)"
timed python_tests
