#!/usr/bin/env bash
# Creates (once) and refreshes the project's Python virtualenv: the pinned packages of
# bindings/python/requirements.txt (cppyy, pandas, matplotlib, tqdm, pytest) and a .pth file
# that puts this clone's bindings/python on the path, so `python -c "import metaroce"` works
# with the venv's python. With METAROCE_NS3=3.44 it also installs the ns-3 wheel pinned in
# bindings/python/requirements-ns3.44.txt (ns-3.44's headers, libraries, CMake package and its
# `from ns import ns` bindings), which the standalone build then compiles against. The venv lives
# in the cache, outside the clone ($METAROCE_CACHE/venv, override with METAROCE_VENV), and is
# rebuilt only when the requirements change. Prints nothing else on stdout but the venv's path.
set -euo pipefail
source "$(dirname "$0")/common.sh"

REQUIREMENTS="$ROOT/bindings/python/requirements.txt"
PYTHON="${METAROCE_PYTHON:-/usr/bin/python3}"

step "python virtualenv ($METAROCE_VENV)" >&2
start=$(date +%s)
# The first import of cppyy may build its precompiled header: the check does it, once.
make_venv "$METAROCE_VENV" "$REQUIREMENTS" "$PYTHON" "import cppyy"
if [ "$VENV_MADE" = 1 ]; then
  echo "python-env: created in $(($(date +%s) - start)) s" >&2
fi

# The ns-3 wheel: installed beside the other requirements (it needs the same cppyy), once per
# change of its pinned file; removing the venv removes it too.
if [ "$METAROCE_NS3" = 3.44 ]; then
  NS3_REQUIREMENTS="$ROOT/bindings/python/requirements-ns3.44.txt"
  ns3_stamp="$METAROCE_VENV/.metaroce-requirements-ns3.44"
  if ! cmp -s "$NS3_REQUIREMENTS" "$ns3_stamp"; then
    step "ns-3.44 wheel into $METAROCE_VENV" >&2
    start=$(date +%s)
    nice "$METAROCE_VENV/bin/pip" install --quiet --disable-pip-version-check \
      -r "$NS3_REQUIREMENTS" >&2
    cp "$NS3_REQUIREMENTS" "$ns3_stamp"
    echo "python-env: ns-3.44 wheel installed in $(($(date +%s) - start)) s" >&2
  fi
fi

site=$("$METAROCE_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$ROOT/bindings/python" >"$site/metaroce-dev.pth"
echo "$METAROCE_VENV"
