#!/usr/bin/env bash
# Runs the experiments of doc/results.md at full scale (64 hosts), one after the other,
# writing doc/results/*.{csv,md,png}. Over an hour on 2 cores with --processes 2 (large_buffers
# alone about 30 minutes). Extra
# arguments (e.g. --quick, --out DIR, --processes N) go to every experiment.
set -euo pipefail
cd "$(dirname "$0")"
py="../../scripts/python.sh"
for experiment in loss_sweep loss_seeds plane_failure incast plane_scaling message_sizes large_buffers \
  lossless_grid ack_repeats tail_markers tail_recovery wire_bytes spray_bound; do
  echo "== $experiment"
  bash "$py" "$experiment.py" "$@"
done
echo "== lossless_grid --fabric nonblocking"
bash "$py" lossless_grid.py --fabric nonblocking "$@"
