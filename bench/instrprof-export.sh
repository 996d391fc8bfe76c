#!/usr/bin/env bash
# Times `pgolens export F.profdata --to proftext` against `llvm-profdata-22 merge
# --text` on one indexed profile of at least 200 MB, made in a temporary directory
# from a generated .proftext (N functions, default 520000, with indirect-call and
# memop value profiles; bench/make_proftext.py). Median of 3 runs each, wall time
# and peak RSS from /usr/bin/time; checks that both texts are byte-identical.
# If tests/bench/functions-table.mjs exists, also times the page's Functions table.
#
#   bench/instrprof-export.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-520000}
min_bytes=$((200 * 1024 * 1024))

if ! command -v llvm-profdata-22 > /dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y llvm-22 > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y llvm-22 > /dev/null; }
fi
cargo build --release -q -p pgolens-cli
pgolens=$PWD/target/release/pgolens

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/big.profdata
while :; do
  python3 bench/make_proftext.py "$tmp/big.proftext" "$n"
  llvm-profdata-22 merge "$tmp/big.proftext" -o "$f"
  size=$(stat -c %s "$f")
  [ "$size" -ge "$min_bytes" ] && break
  n=$(( n * (min_bytes / size + 1) ))
  echo "indexed profile is $((size / 1048576)) MB; retrying with $n functions"
done
rm "$tmp/big.proftext"
echo "input: $n functions, $(( size / 1048576 )) MB indexed ($size bytes), $("$pgolens" detect "$f")"

# median of 3 runs: prints "wall rss_kb"
median() {
  local runs=()
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > /dev/null
    runs+=("$(cat "$tmp/time")")
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}

read -r ours_wall ours_rss < <(median "$pgolens" export "$f" --to proftext)
read -r llvm_wall llvm_rss < <(median llvm-profdata-22 merge --text "$f" -o /dev/null)

"$pgolens" export "$f" --to proftext > "$tmp/ours.proftext"
llvm-profdata-22 merge --text "$f" -o "$tmp/llvm.proftext"
if cmp -s "$tmp/ours.proftext" "$tmp/llvm.proftext"; then same=byte-identical; else same=DIFFERENT; fi
text_mb=$(( $(stat -c %s "$tmp/llvm.proftext") / 1048576 ))

printf '%-34s %7.2f s  peak RSS %5d MB\n' "pgolens export --to proftext" "$ours_wall" $((ours_rss / 1024))
printf '%-34s %7.2f s  peak RSS %5d MB\n' "llvm-profdata-22 merge --text" "$llvm_wall" $((llvm_rss / 1024))
printf 'ratio pgolens/llvm-profdata: %.3f (target <= 0.25); outputs %s (%d MB of text)\n' \
  "$(echo "$ours_wall / $llvm_wall" | bc -l)" "$same" "$text_mb"

if [ -f tests/bench/functions-table.mjs ]; then
  # setup.sh installs wasm-bindgen and wasm-opt on first use; build.sh needs them.
  bash scripts/setup.sh > /dev/null && bash scripts/build.sh > /dev/null
  page_ms=$(node tests/bench/functions-table.mjs "$f" | tail -1 | grep -oE '[0-9]+(\.[0-9]+)?' | head -1)
  printf 'page Functions table: %s ms; ratio to llvm-profdata: %.3f (target <= 1)\n' \
    "$page_ms" "$(echo "$page_ms / 1000 / $llvm_wall" | bc -l)"
fi
[ "$same" = byte-identical ]
