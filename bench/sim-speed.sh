#!/usr/bin/env bash
# Simulation-speed benchmark: runs build/bench/metaroce-sim-speed once per size (one process
# each, so the peak memory is that size's) and prints a markdown table.
#   bash bench/sim-speed.sh [sizes...]        default sizes: 16 64 256
# METAROCE_BUILD_DIR selects the build directory (default: build/ in the repository).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${METAROCE_BUILD_DIR:-$root/build}/bench/metaroce-sim-speed"
if [ ! -x "$bin" ]; then
  echo "no $bin: build first (scripts/build.sh)" >&2
  exit 1
fi
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(16 64 256)

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

echo "| hosts | wall (s) | CPU (s) | completion (us) | packets | packet-hops | events | packet-hops/s | events/s | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  line="$("$bin" --hosts="$n")"
  printf '| %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$n" "$(field wall_s "$line")" "$(field cpu_s "$line")" "$(field completion_us "$line")" \
    "$(field packets "$line")" \
    "$(field packet_hops "$line")" "$(field events "$line")" "$(field hops_per_s "$line")" \
    "$(field events_per_s "$line")" "$(field max_rss_mb "$line")"
done
