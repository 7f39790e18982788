#!/usr/bin/env bash
# Simulation-speed benchmark: runs build/bench/metaroce-sim-speed per size and transport (one
# process each, so the peak memory is that run's), RUNS times each (default 3), and prints a
# markdown table: the model's cost per packet-hop from its least-CPU run, the stock-ns-3
# reference's on the same packets (stock-reference.h) from its least-CPU run, the ratio of those
# two bests, and the ratios the binary printed in those two runs (model and reference in one
# process each; on a busy machine one phase of a process can be disturbed and the other not).
#   bash bench/sim-speed.sh [sizes...]        default sizes: 16 64 256
# TRANSPORTS (default "metaroce rocev2"), DEVICES (the model's link device, default
# "ns3::MetaRoceNetDevice ns3::PointToPointNetDevice": the module's fast link and ns-3's own) and
# RUNS select the rows and repetitions;
# PATTERN=alltoall (every host writes to every other; default: the permutation) and
# MESSAGE_BYTES (default: the binary's 1 MiB) select the workload;
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
read -r -a devices <<<"${DEVICES:-ns3::MetaRoceNetDevice ns3::PointToPointNetDevice}"
runs="${RUNS:-3}"
workload=(--pattern="${PATTERN:-permutation}")
[ -n "${MESSAGE_BYTES:-}" ] && workload+=(--messageBytes="$MESSAGE_BYTES")

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a<b)}'; }

# Runs $runs times; prints the line of the run with the least model CPU time, then the line of
# the run with the least reference CPU time (the least disturbed run of each).
best_runs() {
  local model="" ref="" line
  for _ in $(seq "$runs"); do
    line="$("$bin" --hosts="$1" --transport="$2" --device="$3" "${workload[@]}")"
    if [ -z "$model" ] || lt "$(field cpu_s "$line")" "$(field cpu_s "$model")"; then
      model="$line"
    fi
    if [ -z "$ref" ] || lt "$(field ref_cpu_s "$line")" "$(field ref_cpu_s "$ref")"; then
      ref="$line"
    fi
  done
  printf '%s\n%s\n' "$model" "$ref"
}

echo "| hosts | transport | device | wall (s) | CPU (s) | completion (us) | packet-hops | CPU/hop (us) | events/hop | allocs/hop | peak RSS (MB) | kB/QP | stock wall (s) | stock CPU (s) | stock CPU/hop (us) | stock events/hop | stock allocs/hop | ratio | ratio in those runs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  for t in "${transports[@]}"; do
  for d in "${devices[@]}"; do
    { read -r l; read -r r; } < <(best_runs "$n" "$t" "$d")
    ratio="$(awk -v a="$(field cpu_us_per_hop "$l")" -v b="$(field ref_cpu_us_per_hop "$r")" \
      'BEGIN{print a/b}')"
    label="$t"
    [ "$(field pattern "$l")" = permutation ] || label="$t, $(field pattern "$l") of $(field message_bytes "$l") B"
    printf '| %s | %s | %s | %.2f | %.2f | %s | %s | %.2f | %.2f | %.2f | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f, %.2f |\n' \
      "$n" "$label" "${d#ns3::}" "$(field wall_s "$l")" "$(field cpu_s "$l")" "$(field completion_us "$l")" \
      "$(field packet_hops "$l")" "$(field cpu_us_per_hop "$l")" "$(field events_per_hop "$l")" \
      "$(field allocs_per_hop "$l")" "$(field max_rss_mb "$l")" "$(field kb_per_qp "$l")" \
      "$(field ref_wall_s "$r")" "$(field ref_cpu_s "$r")" "$(field ref_cpu_us_per_hop "$r")" \
      "$(field ref_events_per_hop "$r")" "$(field ref_allocs_per_hop "$r")" "$ratio" \
      "$(field hop_cost_ratio "$l")" "$(field hop_cost_ratio "$r")"
  done
  done
done
