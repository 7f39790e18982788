# Shared settings for the project's scripts (sourced, not run).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${METAROCE_BUILD_DIR:-$ROOT/build}"
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
