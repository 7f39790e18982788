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
