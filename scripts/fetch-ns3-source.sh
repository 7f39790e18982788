#!/usr/bin/env bash
# Fetches and unpacks the ns-3.37 release from Debian's source package into a cache directory
# outside the repository. Prints the path of the unpacked ns-3.37 tree on stdout.
# Idempotent: an existing unpacked tree is reused.
set -euo pipefail

CACHE="${METAROCE_CACHE:-/var/cache/metaroce}"
TREE="$CACHE/ns-allinone-3.37/ns-3.37"
mkdir -p "$CACHE"

if [ -x "$TREE/ns3" ]; then
  echo "$TREE"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

src_list=/etc/apt/sources.list.d/metaroce-deb-src.sources
if ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
  # Same mirror as the binary entry; bookworm main is where ns3 3.37 lives.
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  uri=${uri:-http://deb.debian.org/debian}
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" | $SUDO tee "$src_list" >/dev/null
  $SUDO apt-get update -qq >&2
fi

cd "$CACHE"
if ! ls ns3_3.37.orig.tar.* >/dev/null 2>&1; then
  apt-get source --download-only ns3 >&2
fi
tar xf ns3_3.37.orig.tar.* >&2
test -x "$TREE/ns3" || { echo "fetch-ns3-source: $TREE/ns3 missing after unpack" >&2; exit 1; }
echo "$TREE"
