#!/usr/bin/env bash
# Builds the module documentation (contrib/metaroce/doc/metaroce.rst, ns-3's model-library
# layout) as HTML into $BUILD_DIR/docs/html with Sphinx, warnings as errors, in a virtualenv of its
# own ($METAROCE_CACHE/docs-venv, pinned by doc/sphinx/requirements.txt, made once). Prints the
# path of the page. scripts/test.sh runs it.
set -euo pipefail
source "$(dirname "$0")/common.sh"

venv="${METAROCE_DOCS_VENV:-$METAROCE_CACHE/docs-venv}"
make_venv "$venv" "$ROOT/doc/sphinx/requirements.txt"

# As ns-3's documentation build does, the page is built from a copy beside the replace.txt it
# includes.
source="$BUILD_DIR/docs/source"
out="$BUILD_DIR/docs/html"
rm -rf "$source" "$out"
mkdir -p "$source"
cp "$ROOT"/contrib/metaroce/doc/*.rst "$ROOT/doc/sphinx/replace.txt" "$source/"
"$venv/bin/sphinx-build" -q -W --keep-going -b html -c "$ROOT/doc/sphinx" \
  -d "$BUILD_DIR/docs/doctrees" "$source" "$out" >&2
echo "$out/metaroce.html"
