#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the most complete simulation the
# project has: an all-to-all on a multi-plane leaf-spine fabric (16 hosts, 8 planes) over
# MetaRoCE, RoCEv2 and RoCEv2 with PFC, lossless and at 1% loss per link.
# Extra arguments go to the example, e.g. scripts/run.sh --hosts=32 --output=fabric.csv
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash "$ROOT/scripts/build.sh" >&2
step "metaroce-fabric $*" >&2
exec "$BUILD_DIR/examples/metaroce-fabric" "$@"
