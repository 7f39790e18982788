#!/usr/bin/env bash
# The in-tree check: copies the unchanged contrib/metaroce into an ns-3.37 source tree (Debian's
# source package, cached outside the repository), configures ns-3 with only what the module
# needs, builds, runs test.py on every metaroce suite and one example with ./ns3 run.
# The built tree stays in $METAROCE_CACHE, so later runs rebuild only what changed.
set -euo pipefail
source "$(dirname "$0")/../../scripts/common.sh"

TREE="$(bash "$ROOT/scripts/fetch-ns3-source.sh")"
mkdir -p "$CCACHE_DIR"
step "sync contrib/metaroce into $TREE"
# Copy only files whose content changed: untouched files keep their old modification times, so
# ns-3's CMake is not re-run and the build stays incremental.
rsync -a --checksum --delete "$ROOT/contrib/metaroce/" "$TREE/contrib/metaroce/"

cd "$TREE"
# csma too: with tests on, ns-3.37's own src/test library (its TCP suites, which the internet
# module dependency enables) links CsmaHelper and fails without it.
# mpi and --enable-mpi: the distributed runs (ns-3's MpiInterface, remote point-to-point
# channels) are built and tested here, in the one cached tree.
want="--enable-modules=metaroce;csma;mpi --enable-mpi --enable-tests --enable-examples"
if [ ! -f cmake-cache/build.ninja ] || [ "$(cat .metaroce-configured 2>/dev/null)" != "$want" ]; then
  step "configure ns-3 ($want)"
  # shellcheck disable=SC2086
  ./ns3 configure -d optimized $want >/dev/null
  echo "$want" >.metaroce-configured
fi
step "build (-j $JOBS)"
# ./ns3 build clamps its job count to (cores - 1), whatever -j says: call CMake directly.
cmake --build cmake-cache -j "$JOBS" 2>&1 | tail -n 3

suites=$(./build/utils/ns3.37-test-runner-optimized --list | grep '^metaroce' || true)
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
