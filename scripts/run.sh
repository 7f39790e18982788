#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the 8-plane comparison
# (metaroce-8-plane): ring all-reduce and all-to-all on a 16-host, 8-plane leaf-spine fabric over
# MetaRoCE, RoCEv2 and RoCEv2 with PFC, lossless, at the announced point (1% loss per path,
# 0.25% per link end) and at 1% per link end, printing nccl-tests' bus bandwidth and what each
# transport keeps under loss.
# Extra arguments go to the example, e.g. scripts/run.sh --hosts=64 --output=results/run
set -euo pipefail
source "$(dirname "$0")/common.sh"

bash "$ROOT/scripts/build.sh" >&2
step "metaroce-8-plane $*" >&2
exec "$BUILD_DIR/examples/metaroce-8-plane" "$@"
