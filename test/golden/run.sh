#!/usr/bin/env bash
# Seeded golden regressions: five experiment runs (MetaRoCE, RoCEv2 with DCQCN, RoCEv2 with PFC,
# lossless and lossy, one with a plane failure) whose result files must stay byte-identical
# unless a change means to alter behaviour (then: `test/golden/run.sh --update`, and say why in
# the commit). The runs are small (16 hosts, 8 planes, 1 MiB per rank) so this takes seconds.
# The same runs with shuffled ties and on ns-3's PointToPointNetDevice must give the same files.
#
#   test/golden/run.sh            compare against test/golden/expected/
#   test/golden/run.sh --update   rewrite test/golden/expected/ from this build
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"

here="$ROOT/test/golden"
example="$BUILD_DIR/examples/metaroce-8-plane"
out="$BUILD_DIR/golden"
rm -rf "$out"
mkdir -p "$out"

# name | options of metaroce-8-plane (16 hosts, 8 planes, 2 leaves, 4 spines per plane)
runs=(
  "metaroce-ring-lossless|--workloads=allreduce-ring --transports=metaroce --losses=0"
  "metaroce-alltoall-loss1|--workloads=alltoall --transports=metaroce --losses=0.01"
  "rocev2-alltoall-loss01|--workloads=alltoall --transports=rocev2 --losses=0.001"
  "rocev2pfc-ring-lossless|--workloads=allreduce-ring --transports=rocev2-pfc --losses=0"
  "metaroce-ring-planefail|--workloads=allreduce-ring --transports=metaroce --losses=0 --failure=plane --failurePlane=3 --failureAt=20us --throughputInterval=5us"
)

for run in "${runs[@]}"; do
  name="${run%%|*}"
  # shellcheck disable=SC2086
  "$example" ${run#*|} --messageBytes=1048576 --output="$out/$name" >"$out/$name.log"
done

# Every result file (JSON and CSV) of every run, by content.
(cd "$out" && sha256sum -- *.json *.csv) >"$out/SHA256SUMS"

if [ "${1:-}" = "--update" ]; then
  rm -rf "$here/expected"
  mkdir -p "$here/expected"
  cp "$out"/*.json "$out/SHA256SUMS" "$here/expected/"
  echo "golden: expected results rewritten ($(wc -l <"$out/SHA256SUMS") files)"
  exit 0
fi

if ! diff -u "$here/expected/SHA256SUMS" "$out/SHA256SUMS"; then
  echo "golden: results differ from test/golden/expected (first JSON difference below)" >&2
  for f in "$here"/expected/*.json; do
    diff -u "$f" "$out/$(basename "$f")" | head -n 40 >&2 || true
  done
  exit 1
fi
echo "golden: $(wc -l <"$out/SHA256SUMS") result files of ${#runs[@]} runs bit-identical"

# The same runs with the nodes' events of each nanosecond interleaved in another order
# (ns3::MetaRoceTieShuffleScheduler, as a distributed run may): every file must be the same.
# The scheduler is a test tool, compiled into metaroce-8-plane's twin of test/golden/CMakeLists.txt.
shuffling="$BUILD_DIR/golden-tools/metaroce-8-plane-tie-shuffle"
mkdir -p "$out/shuffled"
for run in "${runs[@]}"; do
  name="${run%%|*}"
  # shellcheck disable=SC2086
  "$shuffling" ${run#*|} --messageBytes=1048576 --scheduler=ns3::MetaRoceTieShuffleScheduler \
    --output="$out/shuffled/$name" >"$out/shuffled/$name.log"
done
(cd "$out/shuffled" && sha256sum -- *.json *.csv) >"$out/shuffled/SHA256SUMS"
if ! diff -u "$out/SHA256SUMS" "$out/shuffled/SHA256SUMS"; then
  echo "golden: results change with the tie order of simultaneous events" >&2
  exit 1
fi
echo "golden: the same files with the nodes' simultaneous events shuffled"

# The same runs on ns-3's own PointToPointNetDevice (built by PointToPointHelper) instead of the
# module's fast device: every file must be the same.
mkdir -p "$out/stock-device"
for run in "${runs[@]}"; do
  name="${run%%|*}"
  # shellcheck disable=SC2086
  "$example" ${run#*|} --messageBytes=1048576 --device=ns3::PointToPointNetDevice \
    --output="$out/stock-device/$name" >"$out/stock-device/$name.log"
done
(cd "$out/stock-device" && sha256sum -- *.json *.csv) >"$out/stock-device/SHA256SUMS"
if ! diff -u "$out/SHA256SUMS" "$out/stock-device/SHA256SUMS"; then
  echo "golden: results change on ns-3's PointToPointNetDevice" >&2
  exit 1
fi
echo "golden: the same files on ns-3's PointToPointNetDevice"
