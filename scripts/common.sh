# Shared settings for the project's scripts (sourced, not run).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The ns-3 the standalone build uses: 3.37 (Debian's libns3-dev, the default) or 3.44 (the ns-3
# project's wheel, ns3==3.44.post0 from PyPI, installed into the project's virtualenv). Each has
# its own build directory: build/ and build-3.44/.
METAROCE_NS3="${METAROCE_NS3:-3.37}"
case "$METAROCE_NS3" in
  3.37) BUILD_DIR="${METAROCE_BUILD_DIR:-$ROOT/build}" ;;
  3.44) BUILD_DIR="${METAROCE_BUILD_DIR:-$ROOT/build-3.44}" ;;
  *)
    echo "METAROCE_NS3 must be 3.37 (Debian's ns-3) or 3.44 (the ns3 wheel), not '$METAROCE_NS3'" >&2
    exit 2
    ;;
esac
export METAROCE_NS3
METAROCE_CACHE="${METAROCE_CACHE:-/var/cache/metaroce}"
METAROCE_VENV="${METAROCE_VENV:-$METAROCE_CACHE/venv}"
JOBS="${METAROCE_JOBS:-2}"
export CCACHE_DIR="${CCACHE_DIR:-$METAROCE_CACHE/ccache}"
# Paths relative to the clone, so that other clones and worktrees (CI clones a fresh one) hit
# the same cache entries.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
# Builds with -g would otherwise hash the working directory too, so a fresh clone (CI) missed
# every entry (measured: 12 hits in 918 calls); debug info may then name another clone's path.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

step() { printf '\n== %s\n' "$*"; }

# make_venv VENV REQUIREMENTS [PYTHON [CHECK]]: creates VENV with the packages pinned in
# REQUIREMENTS, once per change of that file. A copy of the file beside the venv is the stamp,
# written last, after the venv's python has run the Python code CHECK (if given), so a failed
# install or check makes the venv again next time. Clones building at once share the venv: one
# makes it while the others wait on VENV.lock, instead of deleting it under another's pip. Sets
# VENV_MADE to 1 when it made the venv, 0 when it was current. Call it as a plain command (not in
# an if or ||), so that set -e stops at a failed step.
make_venv() {
  local venv="$1" requirements="$2" python="${3:-/usr/bin/python3}" check="${4:-}"
  local stamp="$venv/.metaroce-requirements" lock
  VENV_MADE=0
  mkdir -p "$(dirname "$venv")"
  exec {lock}>"$venv.lock"
  flock "$lock"
  if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    # Some packages compile at install time (CPyCppyy): nice keeps the machine usable meanwhile.
    nice "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
    if [ -n "$check" ]; then
      "$venv/bin/python" -c "$check" >&2
    fi
    cp "$requirements" "$stamp"
    VENV_MADE=1
  fi
  exec {lock}>&-
}
