#!/usr/bin/env bash
# Simulation-speed benchmark: runs build/bench/metaroce-sim-speed per size and transport (one
# process each, so the peak memory is that run's), RUNS times each (default 3) keeping the run
# with the least CPU time (model and stock reference together, so the ratio is one process's),
# and prints a markdown table: the model's cost per packet-hop, the stock-ns-3 reference's on the
# same packets (stock-reference.h) and the ratio.
#   bash bench/sim-speed.sh [sizes...]        default sizes: 16 64 256
# TRANSPORTS (default "metaroce rocev2") and RUNS select the rows and repetitions;
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
read -r -a transports <<<"${TRANSPORTS:-metaroce rocev2}"
runs="${RUNS:-3}"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

# The line of the run with the least CPU time (model plus reference) out of $runs.
best_run() {
  local best="" best_cpu="" line cpu
  for _ in $(seq "$runs"); do
    line="$("$bin" --hosts="$1" --transport="$2")"
    cpu="$(awk -v a="$(field cpu_s "$line")" -v b="$(field ref_cpu_s "$line")" 'BEGIN{print a+b}')"
    if [ -z "$best" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a<b)}'; then
      best="$line" best_cpu="$cpu"
    fi
  done
  echo "$best"
}

echo "| hosts | transport | wall (s) | CPU (s) | completion (us) | packet-hops | CPU/hop (us) | events/hop | allocs/hop | peak RSS (MB) | kB/QP | stock wall (s) | stock CPU (s) | stock CPU/hop (us) | stock events/hop | stock allocs/hop | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  for t in "${transports[@]}"; do
    l="$(best_run "$n" "$t")"
    printf '| %s | %s | %.2f | %.2f | %s | %s | %.2f | %.2f | %.2f | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n' \
      "$n" "$t" "$(field wall_s "$l")" "$(field cpu_s "$l")" "$(field completion_us "$l")" \
      "$(field packet_hops "$l")" "$(field cpu_us_per_hop "$l")" "$(field events_per_hop "$l")" \
      "$(field allocs_per_hop "$l")" "$(field max_rss_mb "$l")" "$(field kb_per_qp "$l")" \
      "$(field ref_wall_s "$l")" "$(field ref_cpu_s "$l")" "$(field ref_cpu_us_per_hop "$l")" \
      "$(field ref_events_per_hop "$l")" "$(field ref_allocs_per_hop "$l")" \
      "$(field hop_cost_ratio "$l")"
  done
done
