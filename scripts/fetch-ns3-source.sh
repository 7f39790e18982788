#!/usr/bin/env bash
# Fetches and unpacks an ns-3 release source tree into a cache directory outside the repository
# and prints the tree's path on stdout. Idempotent: an existing unpacked tree is reused.
#
#   scripts/fetch-ns3-source.sh [3.37|3.43]     (default 3.37)
#
# 3.37: Debian bookworm's source package ns3 3.37-2 -> $METAROCE_CACHE/ns-allinone-3.37/ns-3.37
# 3.43: Debian trixie's source package ns3 3.43-2  -> $METAROCE_CACHE/ns-3.43
# Each adds a deb-src entry for its suite (same mirror as the system's deb entry) when apt has
# none. METAROCE_NS3_SOURCE=<release tarball> unpacks that file instead of asking apt (a machine
# whose mirror does not serve the source package; the tarball's top directory is the tree, as in
# ns-3's own ns-3.43.tar.bz2, or holds it, as ns-allinone-3.43 does).
set -euo pipefail

VERSION="${1:-3.37}"
CACHE="${METAROCE_CACHE:-/var/cache/metaroce}"
case "$VERSION" in
  3.37) TREE="$CACHE/ns-allinone-3.37/ns-3.37" suite=bookworm package=ns3=3.37-2 ;;
  3.43) TREE="$CACHE/ns-3.43" suite=trixie package=ns3=3.43-2 ;;
  *)
    echo "fetch-ns3-source: version must be 3.37 or 3.43, not '$VERSION'" >&2
    exit 2
    ;;
esac
mkdir -p "$CACHE"

if [ -x "$TREE/ns3" ]; then
  echo "$TREE"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Unpacks release tarball $1 so that the directory holding ./ns3 and VERSION becomes $TREE.
unpack() {
  local staging="$CACHE/.unpack-$VERSION"
  rm -rf "$staging"
  mkdir -p "$staging"
  tar xf "$1" -C "$staging" >&2
  local found
  found=$(find "$staging" -maxdepth 3 -name VERSION -type f -exec grep -lx "$VERSION" {} + |
    head -n 1)
  if [ -z "$found" ] || [ ! -x "$(dirname "$found")/ns3" ]; then
    echo "fetch-ns3-source: no ns-$VERSION tree (ns3 and VERSION) in $1" >&2
    exit 1
  fi
  rm -rf "$TREE"
  mkdir -p "$(dirname "$TREE")"
  mv "$(dirname "$found")" "$TREE"
  rm -rf "$staging"
}

# Does apt know the source package? (Any deb-src entry for bookworm's; trixie's needs one for
# trixie.)
src_list=/etc/apt/sources.list.d/metaroce-deb-src-$suite.sources
[ "$VERSION" = 3.37 ] && src_list=/etc/apt/sources.list.d/metaroce-deb-src.sources
if apt-cache showsrc ns3 2>/dev/null | grep -qx "Version: ${package#ns3=}"; then
  need_list=0
else
  need_list=1
fi

if [ -n "${METAROCE_NS3_SOURCE:-}" ]; then
  unpack "$METAROCE_NS3_SOURCE"
  echo "$TREE"
  exit 0
fi

if [ "$need_list" = 1 ]; then
  # Same mirror as the binary entry. A deb-src entry adds source packages only: the installed
  # system stays bookworm's.
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  uri=${uri:-http://deb.debian.org/debian}
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" "$suite" | $SUDO tee "$src_list" >/dev/null
  $SUDO apt-get update -qq >&2
fi

cd "$CACHE"
orig="ns3_$VERSION.orig.tar.bz2"
if [ ! -f "$orig" ]; then
  apt-get source --download-only "$package" >&2 || {
    echo "fetch-ns3-source: apt could not download $package's source from the mirror; give a" \
      "release tarball with METAROCE_NS3_SOURCE=<ns-$VERSION.tar.bz2>" >&2
    exit 1
  }
fi
if [ "$VERSION" = 3.37 ]; then
  tar xf "$orig" >&2
else
  unpack "$orig"
fi
test -x "$TREE/ns3" || { echo "fetch-ns3-source: $TREE/ns3 missing after unpack" >&2; exit 1; }
echo "$TREE"
