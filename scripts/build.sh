#!/usr/bin/env bash
# Configures (Ninja, ccache when present) and builds the standalone project against an installed
# ns-3: Debian's ns-3.37 (the default; build/) or, with METAROCE_NS3=3.44, ns-3.44 from the ns-3
# project's wheel, which scripts/python-env.sh installs into the project's virtualenv first
# (build-3.44/). It builds the module library, the engine alone, tests, examples and benchmarks. The
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
ns3_args=(-DMETAROCE_NS3_VERSION="$METAROCE_NS3")
if [ "$METAROCE_NS3" = 3.44 ]; then
  # The wheel's CMake package, inside the virtualenv's site-packages.
  venv=$(bash "$ROOT/scripts/python-env.sh")
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
  ns3_args+=(-Dns3_DIR="$site/ns3/lib64/cmake/ns3")
fi
cached() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; }
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ "$(cached METAROCE_PGO)" != "$pgo_mode" ] ||
  [ "$(cached METAROCE_PGO_DIR)" != "$pgo_dir" ] ||
  [ "$(cached METAROCE_NS3_VERSION)" != "$METAROCE_NS3" ]; then
  step "configure ($BUILD_DIR, ns-3 $METAROCE_NS3)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMETAROCE_PGO="$pgo_mode" -DMETAROCE_PGO_DIR="$pgo_dir" "${ns3_args[@]}"
fi
step "build"
cmake --build "$BUILD_DIR" -j "$JOBS"
# The Python bindings' virtualenv (cppyy, pandas, ...): created once, kept in the cache.
bash "$ROOT/scripts/python-env.sh" >/dev/null
