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
pgo=(-DMETAROCE_PGO=off -DMETAROCE_PGO_DIR=)
# The profile is GCC's (another compiler, chosen through CXX, builds without one).
if [ "${METAROCE_PGO:-use}" != off ] &&
  "${CXX:-c++}" --version 2>/dev/null | grep -q 'Free Software Foundation'; then
  pgo=(-DMETAROCE_PGO=use -DMETAROCE_PGO_DIR="$(bash "$ROOT/scripts/engine-profile.sh")")
fi
cached() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; }
if [ ! -f "$BUILD_DIR/build.ninja" ] ||
  [ "-DMETAROCE_PGO=$(cached METAROCE_PGO)" != "${pgo[0]}" ] ||
  [ "-DMETAROCE_PGO_DIR=$(cached METAROCE_PGO_DIR)" != "${pgo[1]}" ]; then
  step "configure ($BUILD_DIR)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${pgo[@]}"
fi
step "build"
cmake --build "$BUILD_DIR" -j "$JOBS"
# The Python bindings' virtualenv (cppyy, pandas, ...): created once, kept in the cache.
bash "$ROOT/scripts/python-env.sh" >/dev/null
