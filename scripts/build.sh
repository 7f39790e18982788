#!/usr/bin/env bash
# Configures (Ninja, ccache when present) and builds the standalone project against the
# installed ns-3.37: the module library, the engine alone, tests, examples and benchmarks;
# then makes sure the Python virtualenv of the bindings exists (scripts/python-env.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash "$ROOT/scripts/install-deps.sh"
mkdir -p "$CCACHE_DIR"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  step "configure ($BUILD_DIR)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
step "build"
cmake --build "$BUILD_DIR" -j "$JOBS"
# The Python bindings' virtualenv (cppyy, pandas, ...): created once, kept in the cache.
bash "$ROOT/scripts/python-env.sh" >/dev/null
