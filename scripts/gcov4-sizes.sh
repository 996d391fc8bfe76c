#!/usr/bin/env bash
# The size table of docs/gcov-v4.md: every sample profile of the corpus that has
# its reference text (F.proftext) beside it, written as GCOV v4 (normal, compact,
# text) and GCC AutoFDO v3 by pgolens, and as LLVM extbinary by llvm-profdata-22.
# Prints a Markdown table: bytes of each, and v4 / v4 compact against v3 (the
# proposal claims -43% and -72%).
#
#   scripts/gcov4-sizes.sh [FILE...]     (default: the corpus files)
#
# Uses the release CLI (PGOLENS=path, or built here) and llvm-profdata-22. Not a
# test: sizes are measurements, not expectations.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ -n "${PGOLENS:-}" ]; then
  pgolens=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  pgolens=${CARGO_TARGET_DIR:-$root/target}/release/pgolens
fi
command -v llvm-profdata-22 > /dev/null || { echo "llvm-profdata-22 is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=()
  for dir in tests/corpus/llvm tests/corpus/peers/llvm-sample-tests tests/corpus/peers/llvm-profparser; do
    while IFS= read -r -d '' ref; do
      files+=("${ref%.proftext}")
    done < <(find "$dir" -name '*.proftext' -print0 | sort -z)
  done
fi

size() { [ -s "$1" ] && stat -c %s "$1" || echo 0; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%+.0f%%", (a / b - 1) * 100; else printf "n/a"}'; }
or_na() { [ "$1" -gt 0 ] && echo "$1" || echo "n/a"; }

echo "| profile | source | LLVM extbinary | GCC v3 | v4 | v4 compact | v4 text | v4 vs v3 | v4c vs v3 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
tot_v3=0; tot_v4=0; tot_v4c=0; tot_ext=0; n=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  # Not a sample profile (an instrprof file with its own .proftext): skipped.
  "$pgolens" export "$f" --to gcov4 -o "$tmp/v4" 2> /dev/null || continue
  "$pgolens" export "$f" --to gcov4-compact -o "$tmp/v4c"
  "$pgolens" export "$f" --to gcov4-text -o "$tmp/v4t"
  rm -f "$tmp/v3" "$tmp/ext"
  "$pgolens" export "$f" --to afdo -o "$tmp/v3" 2> /dev/null || true
  llvm-profdata-22 merge --sample --extbinary "$f" -o "$tmp/ext" 2> /dev/null || true
  src=$(size "$f"); v4=$(size "$tmp/v4"); v4c=$(size "$tmp/v4c"); v4t=$(size "$tmp/v4t")
  v3=$(size "$tmp/v3"); ext=$(size "$tmp/ext")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${f#tests/corpus/}" "$src" "$(or_na "$ext")" \
    "$(or_na "$v3")" "$v4" "$v4c" "$v4t" "$(pct "$v4" "$v3")" "$(pct "$v4c" "$v3")"
  n=$((n + 1))
  tot_v4=$((tot_v4 + v4)); tot_v4c=$((tot_v4c + v4c)); tot_v3=$((tot_v3 + v3)); tot_ext=$((tot_ext + ext))
done
printf '| **total (%d files)** | | %s | %s | %s | %s | | %s | %s |\n' "$n" "$tot_ext" "$(or_na "$tot_v3")" \
  "$tot_v4" "$tot_v4c" "$(pct "$tot_v4" "$tot_v3")" "$(pct "$tot_v4c" "$tot_v3")"
