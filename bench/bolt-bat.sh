#!/usr/bin/env bash
# The BAT translation benchmark (issue 10): pgolens against BOLT 22's perf2bolt
# (Debian's bolt-22) turning a branch-stack recording of a BOLTed program into
# fdata of the program's INPUT binary through its BOLT Address Translation
# tables, on the same files, in the same run, interleaved; median of RUNS
# (default 3) wall times and peak RSS (/usr/bin/time):
#
#   LBR    pgolens export lbr.perf.data --to fdata --binary sqlite-multi.bolt -o OUT
#          vs  perf2bolt sqlite-multi.bolt -p lbr.perf.data -o OUT
#   --pa   pgolens export lbr.preagg --to fdata --binary sqlite-multi.bolt -o OUT
#          vs  perf2bolt sqlite-multi.bolt --pa -p lbr.preagg -o OUT
#
# and checks the outputs agree as sorted line sets (perf2bolt's line order is its
# hash tables'); on a difference prints the first differing lines.
#
#   bench/bolt-bat.sh [RUNS]
#
# Inputs, kept in $BOLT_BENCH_DIR (default: a temporary folder, removed at the
# end; each step is skipped when its output is there):
#
#   multi/sqlite-multi, multi/run.fdata
#                      bench/bolt-gen-big-yaml.sh: 32 renamed copies of SQLite in
#                      one binary (-Wl,--emit-relocs, ~27,000 functions) and an
#                      instrumentation profile of one run (a few minutes)
#   bat/sqlite-multi.bolt
#                      llvm-bolt multi/sqlite-multi -data multi/run.fdata --enable-bat
#                      -reorder-blocks=ext-tsp -split-functions -reorder-functions=cdsort
#                      --no-huge-pages (about a minute, 5 GB)
#   bat/lbr.perf.data  tests/corpus/bolt-perf/tools/gen_perf_brstack.py on it:
#                      SAMPLES (default 250000) samples of DEPTH (16) branch
#                      records, seed SEED (7), walks starting at random SQLite
#                      functions (this VM cannot record LBR; several minutes, 3 GB)
#   bat/lbr.preagg     bench/bolt-bat-preagg.py: the same branch stacks as
#                      pre-aggregated T/R/B entries
#
# PGOLENS=path skips the cargo build. Prints a table, then one JSON line.
set -euo pipefail
runs=${1:-3}
cd "$(dirname "$0")/.."
root=$PWD
bin=/usr/lib/llvm-22/bin
samples=${SAMPLES:-250000}
depth=${DEPTH:-16}
seed=${SEED:-7}
if [ -n "${BOLT_BENCH_DIR:-}" ]; then
  dir=$BOLT_BENCH_DIR
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
dir=$(realpath "$dir")

need=()
[ -x $bin/llvm-bolt ] && [ -x $bin/perf2bolt ] || need+=(bolt-22)
command -v llvm-objdump-22 > /dev/null || need+=(llvm-22)
command -v perf > /dev/null || need+=(linux-perf)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y "${need[@]}" > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y "${need[@]}" > /dev/null; }
fi

[ -x "$dir/multi/sqlite-multi" ] && [ -s "$dir/multi/run.fdata" ] || bench/bolt-gen-big-yaml.sh "$dir"

if [ -n "${PGOLENS:-}" ]; then
  pgolens=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  pgolens=${CARGO_TARGET_DIR:-$root/target}/release/pgolens
fi

mkdir -p "$dir/bat"
cd "$dir/bat"
if [ ! -x sqlite-multi.bolt ]; then
  echo "BOLTing multi/sqlite-multi with BAT" >&2
  $bin/llvm-bolt ../multi/sqlite-multi -o sqlite-multi.bolt.tmp -data ../multi/run.fdata --enable-bat \
    -reorder-blocks=ext-tsp -split-functions -reorder-functions=cdsort --no-huge-pages > bolt.log 2>&1 \
    || { cat bolt.log >&2; exit 1; }
  mv sqlite-multi.bolt.tmp sqlite-multi.bolt
fi
if [ ! -s lbr.perf.data ]; then
  echo "writing lbr.perf.data: $samples samples x $depth branches" >&2
  # The file name recorded in the perf.data must be the binary's own.
  OBJDUMP=llvm-objdump-22 python3 "$root/tests/corpus/bolt-perf/tools/gen_perf_brstack.py" sqlite-multi.bolt \
    -o lbr.perf.data.tmp --samples "$samples" --depth "$depth" --seed "$seed" \
    --exec-path "$PWD/sqlite-multi.bolt" --entry '^s[0-9]+_(?!.*\.cold)' > gen.log
  mv lbr.perf.data.tmp lbr.perf.data
fi
if [ ! -s lbr.preagg ]; then
  echo "writing lbr.preagg" >&2
  python3 "$root/bench/bolt-bat-preagg.py" sqlite-multi.bolt lbr.perf.data > lbr.preagg.tmp
  mv lbr.preagg.tmp lbr.preagg
fi

out=$dir/bat/out
mkdir -p "$out"
time_one() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$out/time" "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" \
    || { echo "$name failed:" >&2; cat "$out/$name.stderr" >&2; exit 1; }
  cat "$out/time" >> "$out/$name.times"
}
median() { sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }
rm -f "$out"/*.times
for _ in $(seq "$runs"); do
  time_one lbr.pgolens "$pgolens" export lbr.perf.data --to fdata --binary sqlite-multi.bolt -o "$out/lbr.pgolens.fdata"
  time_one lbr.ref $bin/perf2bolt sqlite-multi.bolt -p lbr.perf.data -o "$out/lbr.ref.fdata"
  time_one preagg.pgolens "$pgolens" export lbr.preagg --to fdata --binary sqlite-multi.bolt -o "$out/preagg.pgolens.fdata"
  time_one preagg.ref $bin/perf2bolt sqlite-multi.bolt --pa -p lbr.preagg -o "$out/preagg.ref.fdata"
done

# Do the outputs agree (as sorted line sets)?
same_lines() {
  diff <(sort "$out/$1.pgolens.fdata") <(sort "$out/$1.ref.fdata") > "$out/$1.diff" && echo yes && return
  echo no
  echo "$1: pgolens and perf2bolt differ: $(grep -c '^<' "$out/$1.diff") lines only pgolens's (<)," \
    "$(grep -c '^>' "$out/$1.diff") only perf2bolt's (>):" >&2
  head -20 "$out/$1.diff" >&2
}
agree_lbr=$(same_lines lbr)
agree_preagg=$(same_lines preagg)

# perf2bolt logs to stdout: "BOLT-INFO: Parsed N BAT entries" (one per hot function
# and per cold fragment) and "PERF2BOLT: read N samples and M LBR entries".
log=$(cat "$out/lbr.ref.stdout" "$out/lbr.ref.stderr")
bat_entries=$(grep -o 'Parsed [0-9]* BAT entries' <<< "$log" | awk '{print $2}' | head -1 || true)
size_mb() { du -cb "$@" | tail -1 | awk '{printf "%.1f", $1 / 1048576}'; }
printf '\ninputs (in %s):\n' "$dir/bat"
printf '  binary: sqlite-multi.bolt %s MB (input multi/sqlite-multi %s MB), %s functions with BAT entries (perf2bolt)\n' \
  "$(size_mb sqlite-multi.bolt)" "$(size_mb ../multi/sqlite-multi)" "${bat_entries:-?}"
printf '  LBR: lbr.perf.data %s MB, %s\n' "$(size_mb lbr.perf.data)" \
  "$(grep -o 'read [0-9]* samples and [0-9]* brstack entries' <<< "$log" | head -1 || true)"
printf '  pre-aggregated: lbr.preagg %s MB, %d lines\n' "$(size_mb lbr.preagg)" "$(wc -l < lbr.preagg)"
printf '  fdata written: %d lines (LBR), %d lines (pre-aggregated)\n' \
  "$(wc -l < "$out/lbr.ref.fdata")" "$(wc -l < "$out/preagg.ref.fdata")"
printf '\nmedian of %d interleaved runs:\n' "$runs"
printf '%-8s %10s %12s %7s %12s %14s  %s\n' what pgolens_s perf2bolt_s ratio pgolens_MiB perf2bolt_MiB 'outputs agree'
json='{"runs":'$runs',"bat_functions":'${bat_entries:-0}
for what in lbr preagg; do
  ours_s=$(awk '{print $1}' "$out/$what.pgolens.times" | median)
  ref_s=$(awk '{print $1}' "$out/$what.ref.times" | median)
  ours_m=$(awk '{print $2}' "$out/$what.pgolens.times" | median)
  ref_m=$(awk '{print $2}' "$out/$what.ref.times" | median)
  ratio=$(awk -v a="$ours_s" -v b="$ref_s" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
  agree=$([ $what = lbr ] && echo "$agree_lbr" || echo "$agree_preagg")
  printf '%-8s %10.2f %12.2f %7s %12d %14d  %s\n' "$what" "$ours_s" "$ref_s" "$ratio" $((ours_m / 1024)) $((ref_m / 1024)) "$agree"
  json+=',"'$what'":{"pgolens_s":'$ours_s',"ref_s":'$ref_s',"ratio":'$ratio',"pgolens_rss_kb":'$ours_m',"ref_rss_kb":'$ref_m',"agree":'$([ "$agree" = yes ] && echo true || echo false)'}'
done
echo "$json}"
