#!/usr/bin/env bash
# Times `pgolens export --to fdata --binary BINARY` against `perf2bolt BINARY -p
# FILE -o OUT` (BOLT 22, Debian's bolt-22) on the same perf.data, in the same run:
# medians of `runs` (default 3) interleaved runs of /usr/bin/time, wall time and max
# RSS. Then checks that both fdata files hold the same lines (perf2bolt's order is a
# hash map's).
#
#   bench/perf2bolt.sh BINARY FILE.perf.data [runs]
#
# Large LBR inputs: tests/corpus/bolt-perf/tools/gen_perf_brstack.py BINARY -o
# big.perf.data --samples 250000 (OBJDUMP=llvm-objdump of LLVM 22). perf2bolt finds
# the binary in the recording by file name or build id, so keep the binary's name.
# PGOLENS=path/to/pgolens skips the cargo build; PERF2BOLT=path overrides the tool.
set -euo pipefail
binary=$(realpath "${1:?usage: bench/perf2bolt.sh BINARY FILE.perf.data [runs]}")
file=$(realpath "${2:?usage: bench/perf2bolt.sh BINARY FILE.perf.data [runs]}")
runs=${3:-3}
cd "$(dirname "$0")/.."
if [ -n "${PGOLENS:-}" ]; then
  ours=$(realpath "$PGOLENS")
else
  cargo build --release -q -p pgolens-cli
  ours=$(realpath ./target/release/pgolens)
fi
perf2bolt=${PERF2BOLT:-$(command -v perf2bolt || echo /usr/lib/llvm-22/bin/perf2bolt)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s: %d MB\n' "$(basename "$file")" $(( $(stat -c %s "$file") / 1048576 ))
for i in $(seq "$runs"); do
  /usr/bin/time -f '%e %M' -o "$tmp/time.ours.$i" "$ours" export "$file" --to fdata --binary "$binary" > "$tmp/ours.fdata"
  /usr/bin/time -f '%e %M' -o "$tmp/time.theirs.$i" "$perf2bolt" "$binary" -p "$file" -o "$tmp/theirs.fdata" > "$tmp/log" 2>&1
done
median() { sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }
for who in ours theirs; do
  wall=$(cat "$tmp/time.$who".* | awk '{print $1}' | median)
  rss=$(cat "$tmp/time.$who".* | awk '{print $2}' | median)
  printf '%-8s %6.2f s  %5d MiB\n' "$([ $who = ours ] && echo pgolens || echo perf2bolt)" "$wall" $(( rss / 1024 ))
done
grep 'PERF2BOLT: \(read\|traces\|out of range\|wrote\)' "$tmp/log" || true
if diff <(sort "$tmp/ours.fdata") <(sort "$tmp/theirs.fdata") > "$tmp/diff"; then
  echo "same $(wc -l < "$tmp/ours.fdata") lines"
else
  echo "DIFFERENT: $(grep -c '^<' "$tmp/diff") lines only ours, $(grep -c '^>' "$tmp/diff") only perf2bolt's"
  head -20 "$tmp/diff"
  exit 1
fi
