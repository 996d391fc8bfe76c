#!/usr/bin/env bash
# The sample-profile benchmark (issue 11): on one large extbinary profile written
# by the real llvm-profdata-22, pgolens against llvm-profdata-22 on the same file,
# in the same run, interleaved; median of RUNS (default 3) wall times and peak RSS
# (/usr/bin/time):
#
#   text     pgolens export big.extbinary --to sampletext -o OUT
#            vs  llvm-profdata-22 merge --sample --text big.extbinary -o OUT
#            (the outputs must be the same bytes)
#
# and, with no reference tool to compare against, the GCOV v4 encodings of the
# same profile: encode (--to gcov4 / gcov4-compact / gcov4-text) and decode (each
# v4 file back --to sampletext, which must give the same text), with their sizes
# beside the extbinary's and GCC v3's (--to afdo).
#
#   bench/sample-export.sh [RUNS]
#
# Inputs, kept in $SAMPLE_BENCH_DIR (default: a temporary folder, removed at the
# end; each step is skipped when its output is there):
#
#   big.txt        bench/make_sampletext.py: FUNCTIONS (default 200000) top-level
#                  functions with nested inlined callsites (~300 MB)
#   big.extbinary  llvm-profdata-22 merge --sample --extbinary big.txt (~75 MB)
#
# PGOLENS=path skips the cargo build. Prints a table, then one JSON line.
set -euo pipefail
runs=${1:-3}
cd "$(dirname "$0")/.."
root=$PWD
functions=${FUNCTIONS:-200000}
if [ -n "${SAMPLE_BENCH_DIR:-}" ]; then
  dir=$SAMPLE_BENCH_DIR
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
dir=$(realpath "$dir")

need=()
command -v llvm-profdata-22 > /dev/null || need+=(llvm-22)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y "${need[@]}" > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y "${need[@]}" > /dev/null; }
fi

if [ -n "${PGOLENS:-}" ]; then
  pgolens=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  pgolens=${CARGO_TARGET_DIR:-$root/target}/release/pgolens
fi

cd "$dir"
if [ ! -s big.txt ]; then
  echo "writing big.txt: $functions functions" >&2
  python3 "$root/bench/make_sampletext.py" big.txt.tmp "$functions"
  mv big.txt.tmp big.txt
fi
if [ ! -s big.extbinary ]; then
  echo "writing big.extbinary with llvm-profdata-22" >&2
  llvm-profdata-22 merge --sample --extbinary big.txt -o big.extbinary.tmp
  mv big.extbinary.tmp big.extbinary
fi

out=$dir/out
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
  time_one text.pgolens "$pgolens" export big.extbinary --to sampletext -o "$out/text.pgolens.txt"
  time_one text.ref llvm-profdata-22 merge --sample --text big.extbinary -o "$out/text.ref.txt"
  for enc in gcov4 gcov4-compact gcov4-text; do
    time_one "encode.$enc" "$pgolens" export big.extbinary --to "$enc" -o "$out/big.$enc"
    time_one "decode.$enc" "$pgolens" export "$out/big.$enc" --to sampletext -o "$out/decode.$enc.txt"
  done
done
time_one afdo "$pgolens" export big.extbinary --to afdo -o "$out/big.afdo"

same() { cmp -s "$1" "$2" && echo yes || echo no; }
agree_text=$(same "$out/text.pgolens.txt" "$out/text.ref.txt")
size() { [ -s "$1" ] && stat -c %s "$1" || echo 0; }
ext_size=$(size big.extbinary)
v3_size=$(size "$out/big.afdo")

printf '\ninputs (in %s): big.txt %s bytes, big.extbinary %s bytes, %d functions\n' "$dir" \
  "$(size big.txt)" "$ext_size" "$functions"
printf '\nmedian of %d interleaved runs:\n' "$runs"
printf '%-22s %10s %12s %7s %12s %10s  %s\n' what pgolens_s llvm_s ratio pgolens_MiB llvm_MiB 'same text'
ours_s=$(awk '{print $1}' "$out/text.pgolens.times" | median)
ref_s=$(awk '{print $1}' "$out/text.ref.times" | median)
ours_m=$(awk '{print $2}' "$out/text.pgolens.times" | median)
ref_m=$(awk '{print $2}' "$out/text.ref.times" | median)
ratio=$(awk -v a="$ours_s" -v b="$ref_s" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
printf '%-22s %10.2f %12.2f %7s %12d %10d  %s\n' "extbinary -> text" "$ours_s" "$ref_s" "$ratio" \
  $((ours_m / 1024)) $((ref_m / 1024)) "$agree_text"
json='{"runs":'$runs',"functions":'$functions',"extbinary_bytes":'$ext_size',"gcc_v3_bytes":'$v3_size
json+=',"text":{"pgolens_s":'$ours_s',"ref_s":'$ref_s',"ratio":'$ratio',"pgolens_rss_kb":'$ours_m',"ref_rss_kb":'$ref_m',"same":'$([ "$agree_text" = yes ] && echo true || echo false)'}'
printf '\nGCOV v4 (no reference tool; decode = v4 file -> LLVM text, compared with llvm-profdata'"'"'s):\n'
printf '%-14s %10s %10s %14s %9s %9s  %s\n' encoding encode_s decode_s bytes vs_ext vs_v3 'same text'
for enc in gcov4 gcov4-compact gcov4-text; do
  e=$(awk '{print $1}' "$out/encode.$enc.times" | median)
  d=$(awk '{print $1}' "$out/decode.$enc.times" | median)
  b=$(size "$out/big.$enc")
  vs_ext=$(awk -v a="$b" -v b="$ext_size" 'BEGIN {printf "%+.1f%%", (b > 0 ? (a / b - 1) * 100 : 0)}')
  vs_v3=$(awk -v a="$b" -v b="$v3_size" 'BEGIN {if (b > 0) printf "%+.1f%%", (a / b - 1) * 100; else printf "n/a"}')
  agree=$(same "$out/decode.$enc.txt" "$out/text.ref.txt")
  printf '%-14s %10.2f %10.2f %14d %9s %9s  %s\n' "$enc" "$e" "$d" "$b" "$vs_ext" "$vs_v3" "$agree"
  json+=',"'$enc'":{"encode_s":'$e',"decode_s":'$d',"bytes":'$b',"same":'$([ "$agree" = yes ] && echo true || echo false)'}'
done
echo "$json}"
