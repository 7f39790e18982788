#!/usr/bin/env bash
# Makes the engine's profile for profile-guided optimisation and prints its directory
# (doc/performance.md, "The fast path"): builds the engine instrumented in a tree of
# its own ($BUILD_DIR-pgo, without ns-3) and runs the training workload there
# (bench/engine-train.cc, a few seconds). The profile is kept while the engine's sources, the
# workload, the build files and the compiler stay the same. Progress goes to stderr.
set -euo pipefail
source "$(dirname "$0")/common.sh"

tree="$BUILD_DIR-pgo"
profile="$tree/profile"
log="$tree/profile-build.log"
# The engine is compiled as the ns-3 release's build compiles it (C++20 for 3.44), so the profile
# matches the code it guides.
key="$(cd "$ROOT" && {
  "${CXX:-c++}" --version
  echo "ns-3 $METAROCE_NS3"
  cat CMakeLists.txt bench/CMakeLists.txt bench/engine-train.cc scripts/engine-profile.sh
  find contrib/metaroce/engine -type f | LC_ALL=C sort | xargs cat
} | sha256sum | cut -c1-16)"
if [ -f "$profile/key" ] && [ "$(cat "$profile/key")" = "$key" ]; then
  echo "$profile"
  exit 0
fi
step "engine profile for profile-guided optimisation ($tree)" >&2
rm -rf "$profile"
mkdir -p "$profile"
cmake -S "$ROOT" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETAROCE_WITH_NS3=OFF \
  -DMETAROCE_NS3_VERSION="$METAROCE_NS3" \
  -DMETAROCE_PGO=generate -DMETAROCE_PGO_DIR="$profile" >"$log" 2>&1 ||
  { cat "$log" >&2; exit 1; }
cmake --build "$tree" -j "$JOBS" --target metaroce-engine-train >>"$log" 2>&1 ||
  { tail -n 40 "$log" >&2; exit 1; }
# Without address randomisation: a few counters record pointer values (alignment), so the
# profile, and with it the optimised engine, is the same from run to run.
norandom=()
setarch "$(uname -m)" -R true 2>/dev/null && norandom=(setarch "$(uname -m)" -R)
"${norandom[@]}" "$tree/bench/metaroce-engine-train" >&2
echo "$key" >"$profile/key"
echo "$profile"
