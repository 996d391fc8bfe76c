#!/usr/bin/env bash
# Times `pgolens export --to perf-script` against `perf script -F
# comm,pid,tid,time,period,event,ip` on the same perf.data, in the same run, and
# prints the ratio (target: at most 0.25). Both write to /dev/null.
#
#   bench/perf-script.sh FILE.perf.data [brstack] [runs]
#
# `brstack` compares `--to perf-script-brstack` with `perf script -F ip,brstack`.
# Uses hyperfine when installed, else the medians (wall and CPU time) of `runs`
# (default 3) interleaved runs of /usr/bin/time. Then checks that both outputs are byte-identical.
# PGOLENS=path/to/pgolens skips the cargo build and times that binary.
set -euo pipefail
file=$(realpath "${1:?usage: bench/perf-script.sh FILE.perf.data [brstack] [runs]}")
mode=${2:-ip}
runs=${3:-3}
cd "$(dirname "$0")/.."
if [ -n "${PGOLENS:-}" ]; then
  ours=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  ours=$(realpath ./target/release/pgolens)
fi
if [ "$mode" = brstack ]; then
  ours_cmd=("$ours" export "$file" --to perf-script-brstack)
  perf_cmd=(perf script -f -i "$file" -F ip,brstack)
else
  ours_cmd=("$ours" export "$file" --to perf-script)
  perf_cmd=(perf script -f -i "$file" -F comm,pid,tid,time,period,event,ip)
fi
printf '%s: %d MB\n' "$(basename "$file")" $(( $(stat -c %s "$file") / 1048576 ))

if command -v hyperfine > /dev/null; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  hyperfine -N -w 1 -r "$runs" --export-json "$tmp/h.json" \
    -n pgolens "${ours_cmd[*]@Q} > /dev/null" -n perf "${perf_cmd[*]@Q} 2> /dev/null > /dev/null"
  python3 - "$tmp/h.json" <<'EOF'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"pgolens {r['pgolens']:.3f} s  perf {r['perf']:.3f} s  ratio {r['pgolens'] / r['perf']:.3f}")
EOF
else
  # Interleaved (ours, perf, ours, perf, ...) so that load from other processes
  # falls on both alike; wall time and CPU time (user + system) per run.
  median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  one() { /usr/bin/time -f '%e %U %S %M' -o /dev/stderr "$@" 2>&1 > /dev/null | tail -1; }
  ours_runs=""; perf_runs=""
  for _ in $(seq "$runs"); do
    ours_runs+=$(one "${ours_cmd[@]}")$'\n'
    perf_runs+=$(one "${perf_cmd[@]}")$'\n'
  done
  stats() { # wall cpu peak_mb
    local runs=$1
    printf '%s %s %s\n' \
      "$(awk 'NF {print $1}' <<< "$runs" | median)" \
      "$(awk 'NF {print $2 + $3}' <<< "$runs" | median)" \
      "$(awk 'NF {print int($4 / 1024)}' <<< "$runs" | sort -n | tail -1)"
  }
  read -r ow oc om <<< "$(stats "$ours_runs")"
  read -r pw pc pm <<< "$(stats "$perf_runs")"
  awk -v ow="$ow" -v oc="$oc" -v om="$om" -v pw="$pw" -v pc="$pc" -v pm="$pm" -v n="$runs" 'BEGIN {
    printf "median of %d: pgolens %.2f s wall, %.2f s CPU (peak %d MB)   perf script %.2f s wall, %.2f s CPU (peak %d MB)\n", n, ow, oc, om, pw, pc, pm
    printf "ratio: wall %.3f, CPU %.3f\n", (pw > 0 ? ow / pw : 0), (pc > 0 ? oc / pc : 0)
  }'
fi

if cmp -s <("${ours_cmd[@]}") <("${perf_cmd[@]}" 2> /dev/null); then
  echo "outputs identical"
else
  echo "outputs DIFFER"
  exit 1
fi
