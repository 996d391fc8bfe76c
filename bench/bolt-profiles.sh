#!/usr/bin/env bash
# The BOLT profile benchmarks: pgolens against BOLT 22's own tools (Debian's
# bolt-22), on the same large files, in the same run: each comparison pgolens and
# the reference in turn, round after round; the median of RUNS (default 3) wall
# times (FAST_ROUNDS, default 31, for the 40 ms fdata merge) and the peak RSS of
# one more run each (/usr/bin/time):
#
#   merge fdata   pgolens merge A.fdata B.fdata ... -o OUT   vs  merge-fdata A.fdata B.fdata ... > OUT
#   merge YAML    pgolens merge A.yaml B.yaml ... -o OUT     vs  merge-fdata A.yaml B.yaml ... > OUT
#   --pa export   pgolens export P --to fdata --binary ELF -o OUT  vs  perf2bolt --pa -p P -o OUT ELF
#
# and checks the outputs agree: fdata as sorted line sets (merge-fdata's and
# perf2bolt's line orders are their hash tables'), YAML byte for byte (cmp).
#
#   bench/bolt-profiles.sh [RUNS]
#
# Inputs (bench/bolt-gen.sh; about 10 minutes the first time): a real program,
# SQLite, built with clang-22 -O2 -Wl,--emit-relocs, instrumented with llvm-bolt
# -instrument and run on generated SQL workloads, one profile per run; the fdata
# files of as many runs as make 100 MB (MIN_MB), llvm-bolt -w's YAML of as many as
# make 100 MB, and a pre-aggregated file of 100 MB made from the runs' measured
# branch counts (bench/bolt-preagg.py: this VM cannot record LBR). They are kept
# in $BOLT_BENCH_DIR (default: a temporary folder, removed at the end), so a
# re-run with the same BOLT_BENCH_DIR skips making them.
#
# If dist/ is built (npm run build), also times the page on the largest YAML input,
# on all of them merged, and on one YAML profile of over 100 MB written by llvm-bolt
# (bench/bolt-gen-big-yaml.sh: 32 copies of SQLite in one binary, kept in
# $BOLT_BENCH_DIR too; about 3 minutes the first time), with
# tests/bench/bolt-yaml-functions.mjs. PGOLENS=path skips the cargo build. Prints a
# table, then one JSON line.
set -euo pipefail
runs=${1:-3}
cd "$(dirname "$0")/.."
root=$PWD
bin=/usr/lib/llvm-22/bin
if [ -n "${BOLT_BENCH_DIR:-}" ]; then
  dir=$BOLT_BENCH_DIR
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
dir=$(realpath "$dir")
bench/bolt-gen.sh "$dir"

if [ -n "${PGOLENS:-}" ]; then
  pgolens=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  pgolens=${CARGO_TARGET_DIR:-$root/target}/release/pgolens
fi

out=$dir/out
mkdir -p "$out"
cd "$dir"
mapfile -t fdata < <(seq -f 'runs/%g.fdata' 1 "$(cat runs/count)")
mapfile -t yaml < <(seq -f 'yaml/%g.yaml' 1 "$(cat yaml/count)")
size_mb() { du -cb "$@" | tail -1 | awk '{printf "%.1f", $1 / 1048576}'; }
lines() { cat "$@" | wc -l; }

# time_one NAME CMD...: one run of the bare command, its wall time (bash's clock)
# appended to out/NAME.times. rss_one NAME CMD...: one run under /usr/bin/time,
# its peak RSS (KB) in out/NAME.rss (kept apart: /usr/bin/time's own fork and wait
# weigh on a 40 ms command).
run_to() {
  local name=$1; shift
  "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" || { echo "$name failed:" >&2; cat "$out/$name.stderr" >&2; exit 1; }
}
time_one() {
  local name=$1 start end; shift
  start=$EPOCHREALTIME
  run_to "$name" "$@"
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN {printf "%.4f\n", e - s}' >> "$out/$name.times"
}
rss_one() {
  local name=$1; shift
  run_to "$name" /usr/bin/time -f '%M' -o "$out/$name.rss" "$@"
}
median() { sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }
rm -f "$out"/*.times "$out"/*.rss
# Each comparison is timed on its own, pgolens and the reference in turn, round
# after round, so that neither follows the other comparisons' large processes
# (perf2bolt's 480 MB). The fdata merge takes 40 ms: it gets FAST_ROUNDS rounds
# (default 31) for a stable median, the others RUNS.
fast_rounds=${FAST_ROUNDS:-31}
[ "$fast_rounds" -ge "$runs" ] || fast_rounds=$runs
compare() {
  local what=$1 rounds=$2; shift 2
  local ours=() ref=()
  while [ "$1" != -- ]; do ours+=("$1"); shift; done
  shift
  ref=("$@")
  rss_one "$what.pgolens" "${ours[@]}"
  rss_one "$what.ref" "${ref[@]}"
  for _ in $(seq "$rounds"); do
    time_one "$what.pgolens" "${ours[@]}"
    time_one "$what.ref" "${ref[@]}"
  done
}
compare merge-fdata "$fast_rounds" "$pgolens" merge "${fdata[@]}" -o "$out/merged.pgolens.fdata" -- "$bin/merge-fdata" "${fdata[@]}"
compare merge-yaml "$runs" "$pgolens" merge "${yaml[@]}" -o "$out/merged.pgolens.yaml" -- "$bin/merge-fdata" "${yaml[@]}"
compare preagg "$runs" "$pgolens" export big.preagg --to fdata --binary sqlite-bench -o "$out/preagg.pgolens.fdata" \
  -- "$bin/perf2bolt" --pa -p big.preagg -o "$out/preagg.ref.fdata" sqlite-bench

# Do the outputs agree?
same_lines() { diff <(sort "$1") <(sort "$2") > "$out/diff" && echo yes || echo no; }
agree_fdata=$(same_lines "$out/merged.pgolens.fdata" "$out/merge-fdata.ref.stdout")
agree_yaml=$(cmp -s "$out/merged.pgolens.yaml" "$out/merge-yaml.ref.stdout" && echo yes || echo no)
agree_preagg=$(same_lines "$out/preagg.pgolens.fdata" "$out/preagg.ref.fdata")
if [ "$agree_preagg" = no ]; then
  echo "perf2bolt --pa and pgolens differ: $(grep -c '^<' "$out/diff") lines only pgolens's, $(grep -c '^>' "$out/diff") only perf2bolt's:"
  head -10 "$out/diff"
fi

printf '\ninputs (in %s):\n' "$dir"
printf '  fdata: %d files (runs), %s MB, %d lines\n' "${#fdata[@]}" "$(size_mb "${fdata[@]}")" "$(lines "${fdata[@]}")"
printf '  YAML:  %d files (runs), %s MB, %d lines\n' "${#yaml[@]}" "$(size_mb "${yaml[@]}")" "$(lines "${yaml[@]}")"
printf '  pre-aggregated: big.preagg (%s runs), %s MB, %d lines\n' "$(cat preagg.count)" "$(size_mb big.preagg)" "$(lines big.preagg)"
printf '\nmedian of %d interleaved runs (the fdata merge: %d):\n' "$runs" "$fast_rounds"
printf '%-12s %10s %10s %7s %12s %12s  %s\n' what pgolens_s ref_s ratio pgolens_MiB ref_MiB 'outputs agree'
json='{"runs":'$runs',"fast_rounds":'$fast_rounds
for what in merge-fdata merge-yaml preagg; do
  ours_s=$(median < "$out/$what.pgolens.times")
  ref_s=$(median < "$out/$what.ref.times")
  ours_m=$(tail -1 "$out/$what.pgolens.rss")
  ref_m=$(tail -1 "$out/$what.ref.rss")
  ratio=$(awk -v a="$ours_s" -v b="$ref_s" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
  case $what in
    merge-fdata) agree=$agree_fdata; ref_name=merge-fdata ;;
    merge-yaml) agree=$agree_yaml; ref_name=merge-fdata ;;
    preagg) agree=$agree_preagg; ref_name="perf2bolt --pa" ;;
  esac
  printf '%-12s %10.3f %10.3f %7s %12d %12d  %s (%s)\n' "$what" "$ours_s" "$ref_s" "$ratio" $((ours_m / 1024)) $((ref_m / 1024)) "$agree" "$ref_name"
  json+=',"'$what'":{"pgolens_s":'$ours_s',"ref_s":'$ref_s',"ratio":'$ratio',"pgolens_rss_kb":'$ours_m',"ref_rss_kb":'$ref_m',"agree":'$([ "$agree" = yes ] && echo true || echo false)'}'
done

# The page: the largest single YAML file (a single run's profile is a few MB: the
# inputs above are many runs), the merge of all the YAML runs, and big.yaml (one
# profile of over 100 MB), each dropped on it.
if [ -f "$root/dist/index.html" ] && command -v node > /dev/null; then
  largest=$(ls -S "${yaml[@]}" | head -1)
  "$root/bench/bolt-gen-big-yaml.sh" "$dir"
  node "$root/tests/bench/bolt-yaml-functions.mjs" "$largest" "$out/merged.pgolens.yaml" "$dir/big.yaml" | tee "$out/page.txt"
  page=$(tail -1 "$out/page.txt")
  case $page in '{'*) json+=',"page":'$page ;; esac
fi
echo "$json}"
