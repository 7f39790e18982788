#!/usr/bin/env bash
# The in-tree check: copies the unchanged contrib/metaroce into an ns-3 source tree (Debian's
# source package of ns-3.37 or 3.43, cached outside the repository; scripts/fetch-ns3-source.sh),
# configures ns-3 with only what the module needs, builds, runs test.py on every metaroce suite,
# the examples with ./ns3 run and the distributed runs on MPI ranks.
# The built tree stays in $METAROCE_CACHE, so later runs rebuild only what changed.
#
#   test/in-tree/run.sh [3.37|3.43]     (default 3.37)
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"

NS3_TREE_VERSION="${1:-3.37}"
TREE="$(bash "$ROOT/scripts/fetch-ns3-source.sh" "$NS3_TREE_VERSION")"
mkdir -p "$CCACHE_DIR"
step "sync contrib/metaroce into $TREE"
# Copy only files whose content changed: untouched files keep their old modification times, so
# ns-3's CMake is not re-run and the build stays incremental.
rsync -a --checksum --delete "$ROOT/contrib/metaroce/" "$TREE/contrib/metaroce/"

cd "$TREE"
# csma too: with tests on, ns-3's own src/test library (its TCP suites, which the internet
# module dependency enables) links CsmaHelper and fails without it.
# mpi and --enable-mpi: the distributed runs (ns-3's MpiInterface, remote point-to-point
# channels) are built and tested here, in the one cached tree.
want="--enable-modules=metaroce;csma;mpi --enable-mpi --enable-tests --enable-examples"
# The module's file list: ns-3 writes a forwarding header (build/include/ns3/NAME.h) holding a
# header's path when it configures, and keeps stale ones, so a header that moved between folders
# needs its forwarding header removed and ns-3 configured again.
files=$(cd contrib/metaroce && find . -type f \( -name '*.h' -o -name '*.cc' \) | LC_ALL=C sort |
  sha256sum | cut -c1-16)
configured="$want files=$files"
if [ ! -f cmake-cache/build.ninja ] || [ "$(cat .metaroce-configured 2>/dev/null)" != "$configured" ]; then
  step "configure ns-3 ($want)"
  rm -f build/include/ns3/metaroce-*.h
  # shellcheck disable=SC2086
  ./ns3 configure -d optimized $want >/dev/null
  echo "$configured" >.metaroce-configured
fi
step "build (-j $JOBS)"
# ./ns3 build clamps its job count to (cores - 1), whatever -j says: call CMake directly.
if ! cmake --build cmake-cache -j "$JOBS" >cmake-cache/metaroce-build.log 2>&1; then
  grep -m 1 -A 30 FAILED cmake-cache/metaroce-build.log >&2
  echo "in-tree: the build failed (cmake-cache/metaroce-build.log)" >&2
  exit 1
fi
tail -n 3 cmake-cache/metaroce-build.log

suites=$(./build/utils/ns$NS3_TREE_VERSION-test-runner-optimized --list | grep '^metaroce' || true)
if [ -z "$suites" ]; then
  echo "in-tree: no metaroce test suite was built" >&2
  exit 1
fi
for suite in $suites; do
  step "test.py --suite=$suite"
  ./test.py --no-build --suite="$suite"
done
step "./ns3 run metaroce-fabric"
./ns3 run --no-build "metaroce-fabric --hosts=4 --planes=2 --hostsPerLeaf=2 --spines=2 --messageBytes=65536"
step "./ns3 run metaroce-8-plane"
./ns3 run --no-build "metaroce-8-plane --hosts=4 --planes=8 --hostsPerLeaf=2 --spines=2 --messageBytes=262144"
step "./ns3 run metaroce-4-plane"
./ns3 run --no-build "metaroce-4-plane --hosts=4 --hostsPerLeaf=2 --spines=2 --messageBytes=262144 --losses=0"
step "./ns3 run metaroce-custom-congestion"
./ns3 run --no-build "metaroce-custom-congestion --hosts=4 --planes=1 --messageBytes=524288"

# Distributed runs (issue 15): the same experiment sequentially and on 2 MPI ranks, with both
# synchronisation algorithms, must print the same figures (doc: module docs, "Distributed
# runs"). A hang is a failure too: every run has a time limit.
step "distributed: metaroce-distributed on 1 and 2 ranks (granted-time window, null messages)"
distributed="$(find build -name "ns$NS3_TREE_VERSION-metaroce-distributed-*" -type f | head -n 1)"
if [ -z "$distributed" ]; then
  echo "in-tree: metaroce-distributed was not built (is MPI enabled?)" >&2
  exit 1
fi
# OpenMPI refuses root unless told; --oversubscribe: CI machines may count fewer slots.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe -np 2)
args=(--hosts=8 --planes=2 --hostsPerLeaf=4 --spines=2 --throughputInterval=5us)
# MetaRoCE under loss; RoCEv2 with PFC (pause frames and their timers across ranks); a spine
# failing and coming back (failure events on both ends of links between ranks); hosts of one
# leaf on both ranks (--partition: host links between ranks); flows between hosts on different
# ranks.
cases=(
  "--transport=metaroce --loss=0.01 --workload=allreduce-ring"
  "--transport=metaroce --loss=0.01 --workload=alltoall"
  "--transport=rocev2-pfc --workload=incast"
  "--transport=metaroce --workload=allreduce-ring --failure=plane --failurePlane=1 --failureAt=20us --failureUntil=60us"
  "--transport=metaroce --loss=0.02 --workload=allreduce-hd --failure=spine --failurePlane=0 --failureIndex=1 --failureAt=10us --failureUntil=40us"
  "--transport=metaroce --loss=0.01 --workload=alltoall --partition=0,1,0,1,0,1,0,1"
  "--transport=metaroce --loss=0.01 --workload=flows --cdfFile=contrib/metaroce/examples/flow-sizes-ai-mixed.cdf --flowsPerHost=10 --load=0.5"
)
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
# Prints the "result" line of one run (the command given), or fails naming the run.
result() {
  local out
  if ! out=$(timeout 300 "$@" 2>&1); then
    echo "in-tree: failed or timed out: $*" >&2
    echo "$out" | tail -n 20 >&2
    return 1
  fi
  echo "$out" | grep '^result'
}
# Each run also writes its result files (rank 0 for the ranks) and host-port captures (each rank
# its own ports'); all must be byte-identical.
n=0
for case in "${cases[@]}"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  sequential=$(result "$distributed" "${args[@]}" $case --output="$results/$n-seq" \
    --pcap="$results/$n-seq-cap")
  echo "sequential $case: $sequential"
  for sync in granted null; do
    # shellcheck disable=SC2086
    parallel=$(result "${mpi[@]}" "$distributed" "${args[@]}" $case --sync=$sync \
      --output="$results/$n-$sync" --pcap="$results/$n-$sync-cap")
    if [ "$parallel" != "$sequential" ]; then
      echo "in-tree: 2 ranks ($sync) differ from the sequential run: $parallel" >&2
      exit 1
    fi
    for f in "$results/$n-seq"*; do
      if ! cmp -s "$f" "${f/$n-seq/$n-$sync}"; then
        echo "in-tree: 2 ranks ($sync): $(basename "${f/$n-seq/$n-$sync}") differs from the" \
          "sequential run's" >&2
        diff "$f" "${f/$n-seq/$n-$sync}" | head -n 20 >&2 || true
        exit 1
      fi
    done
    echo "2 ranks ($sync): identical result line and $(ls "$results/$n-seq"* | wc -l) files"
  done
done

# ns-3's own PointToPointNetDevice between ranks (PointToPointRemoteChannel): a node is not told
# of a remote arrival in advance there, so the ranks may order simultaneous events otherwise
# than the sequential run (module documentation, "Scope and Limitations") and only what does not
# depend on that order must agree: every message delivered, the same bytes, no errors.
step "distributed: ns-3's PointToPointNetDevice on 1 and 2 ranks"
stock_cases=(
  "--transport=metaroce --loss=0.01 --workload=alltoall"
  "--transport=rocev2-pfc --workload=incast"
  "--transport=metaroce --loss=0.01 --workload=allreduce-ring --partition=0,1,0,1,0,1,0,1"
)
# The fields of a result line that do not depend on the order of simultaneous events.
settled() { tr ' ' '\n' <<<"$1" | grep -E '^(bytes_sent|errors|messages)=' | tr '\n' ' '; }
for case in "${stock_cases[@]}"; do
  # shellcheck disable=SC2086
  sequential=$(result "$distributed" "${args[@]}" --device=ns3::PointToPointNetDevice $case)
  for sync in granted null; do
    # shellcheck disable=SC2086
    parallel=$(result "${mpi[@]}" "$distributed" "${args[@]}" --device=ns3::PointToPointNetDevice \
      $case --sync=$sync)
    if [ "$(settled "$parallel")" != "$(settled "$sequential")" ] ||
      ! grep -q ' errors=0 ' <<<"$parallel "; then
      echo "in-tree: ns-3's device on 2 ranks ($sync), $case: $parallel" \
        "(sequentially: $sequential)" >&2
      exit 1
    fi
  done
  echo "ns-3's device, $case: 2 ranks deliver what the sequential run does ($(settled "$sequential"))"
done

# The plane examples' runner, launched by mpirun for one experiment: rank 0's table row and
# files must be the sequential run's (wall time aside).
step "distributed: metaroce-8-plane, one experiment, on 1 and 2 ranks"
plane8="$(find build -name "ns$NS3_TREE_VERSION-metaroce-8-plane-*" -type f | head -n 1)"
one=(--hosts=8 --hostsPerLeaf=4 --spines=2 --messageBytes=262144 --workloads=alltoall
  --transports=metaroce --losses=0.0025 --throughputInterval=5us)
timeout 300 "$plane8" "${one[@]}" --output="$results/plane8-seq" >"$results/plane8-seq.txt"
timeout 300 "${mpi[@]}" "$plane8" "${one[@]}" --sync=null --output="$results/plane8-null" \
  >"$results/plane8-null.txt"
# The table without its last column (wall seconds).
row() { grep '^alltoall' "$1" | awk '{NF--; print}'; }
if [ -z "$(row "$results/plane8-seq.txt")" ] ||
  [ "$(row "$results/plane8-seq.txt")" != "$(row "$results/plane8-null.txt")" ]; then
  echo "in-tree: metaroce-8-plane on 2 ranks printed another row than sequentially" >&2
  cat "$results/plane8-seq.txt" "$results/plane8-null.txt" >&2
  exit 1
fi
for f in "$results"/plane8-seq-*; do
  if ! cmp -s "$f" "${f/plane8-seq/plane8-null}"; then
    echo "in-tree: metaroce-8-plane on 2 ranks: $(basename "$f") differs" >&2
    exit 1
  fi
done
echo "metaroce-8-plane on 2 ranks: the same row and $(ls "$results"/plane8-seq-* | wc -l) files"
