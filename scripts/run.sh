#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the most complete simulation the
# project has (today: the loss sweep of MetaRoCE against RoCEv2 on the reference loopback).
# Extra arguments go to the example, e.g. scripts/run.sh --planes=4 --output=sweep.csv
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash "$ROOT/scripts/build.sh" >&2
step "metaroce-loopback $*" >&2
exec "$BUILD_DIR/examples/metaroce-loopback" "$@"
