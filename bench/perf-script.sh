#!/usr/bin/env bash
# Times `pgolens export --to perf-script` against `perf script -F
# comm,pid,tid,time,period,event,ip` on the same perf.data, in the same run, and
# prints the ratio (target: at most 0.25). Both write to /dev/null.
#
#   bench/perf-script.sh FILE.perf.data [brstack] [runs]
#
# `brstack` compares `--to perf-script-brstack` with `perf script -F ip,brstack`.
# Uses hyperfine when installed, else the median wall time of `runs` (default 3)
# runs of /usr/bin/time. Then checks that both outputs are byte-identical.
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
  median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  time_it() {
    for _ in $(seq "$runs"); do
      /usr/bin/time -f '%e %M' -o /dev/stderr "$@" 2>&1 > /dev/null | tail -1
    done
  }
  ours_runs=$(time_it "${ours_cmd[@]}")
  perf_runs=$(time_it "${perf_cmd[@]}")
  ours_s=$(cut -d' ' -f1 <<< "$ours_runs" | median)
  perf_s=$(cut -d' ' -f1 <<< "$perf_runs" | median)
  ours_mb=$(( $(cut -d' ' -f2 <<< "$ours_runs" | sort -n | tail -1) / 1024 ))
  perf_mb=$(( $(cut -d' ' -f2 <<< "$perf_runs" | sort -n | tail -1) / 1024 ))
  awk -v o="$ours_s" -v p="$perf_s" -v om="$ours_mb" -v pm="$perf_mb" -v n="$runs" 'BEGIN {
    printf "median of %d: pgolens %.2f s (peak %d MB)  perf script %.2f s (peak %d MB)  ratio %.3f\n", n, o, om, p, pm, (p > 0 ? o / p : 0)
  }'
fi

if cmp -s <("${ours_cmd[@]}") <("${perf_cmd[@]}" 2> /dev/null); then
  echo "outputs identical"
else
  echo "outputs DIFFER"
  exit 1
fi
