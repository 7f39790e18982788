#!/usr/bin/env bash
# Configures (Ninja, ccache when present) and builds the standalone project against the
# installed ns-3.37: the module library, the engine alone, tests, examples and benchmarks. The
# engine is compiled with the profile of its training workload (scripts/engine-profile.sh;
# METAROCE_PGO=off: without, as the in-tree build compiles it). Then it makes sure the Python
# virtualenv of the bindings exists (scripts/python-env.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash "$ROOT/scripts/install-deps.sh"
mkdir -p "$CCACHE_DIR"
pgo_mode=off
pgo_dir=
# The profile is GCC's (another compiler, chosen through CXX, builds without one).
if [ "${METAROCE_PGO:-use}" != off ] &&
  "${CXX:-c++}" --version 2>/dev/null | grep -q 'Free Software Foundation'; then
  pgo_mode=use
  pgo_dir="$(bash "$ROOT/scripts/engine-profile.sh")"
fi
cached() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; }
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ "$(cached METAROCE_PGO)" != "$pgo_mode" ] ||
  [ "$(cached METAROCE_PGO_DIR)" != "$pgo_dir" ]; then
  step "configure ($BUILD_DIR)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMETAROCE_PGO="$pgo_mode" -DMETAROCE_PGO_DIR="$pgo_dir"
fi
step "build"
cmake --build "$BUILD_DIR" -j "$JOBS"
# The Python bindings' virtualenv (cppyy, pandas, ...): created once, kept in the cache.
bash "$ROOT/scripts/python-env.sh" >/dev/null
