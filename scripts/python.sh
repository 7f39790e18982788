#!/usr/bin/env bash
# Runs the project's Python (the virtualenv of scripts/python-env.sh) with the bindings of this
# clone and its build: scripts/python.sh examples/python/metaroce_8_plane.py, or with no
# argument an interactive interpreter in which `import metaroce` works.
set -euo pipefail
source "$(dirname "$0")/common.sh"

venv=$(bash "$ROOT/scripts/python-env.sh")
export METAROCE_BUILD_DIR="$BUILD_DIR"
export PYTHONPATH="$ROOT/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$venv/bin/python" "$@"
