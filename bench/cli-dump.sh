#!/usr/bin/env bash
# Times `pgolens dump` (text and JSON) on 200 MB inputs made in a temporary directory:
# a file-mode perf.data of 5.2M SAMPLE records and a 5M-line sample-profile text.
# Prints wall time and peak RSS for each; nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-200}
cargo build --release -q -p pgolens-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 bench/make_big.py perf "$tmp/big.perf.data" "$size_mb"
python3 bench/make_big.py text "$tmp/big.sample.txt" "$size_mb"
for f in "$tmp/big.perf.data" "$tmp/big.sample.txt"; do
  ./target/release/pgolens detect "$f"
  for mode in text json; do
    flag=(); [ "$mode" = json ] && flag=(--json)
    /usr/bin/time -f "%e %M" -o "$tmp/time" ./target/release/pgolens dump "${flag[@]}" "$f" > "$tmp/out"
    read -r wall rss < "$tmp/time"
    printf '%-16s dump %-4s  %6.2f s  peak RSS %5d MB  output %5d MB (%d lines)\n' \
      "$(basename "$f")" "$mode" "$wall" $((rss / 1024)) $(( $(stat -c %s "$tmp/out") / 1048576 )) "$(wc -l < "$tmp/out")"
  done
done
