#!/usr/bin/env bash
# Wall times of commands run in turn, round after round (so that a slow spell of
# a shared VM hits them all alike), then each one's median, least and most, and
# its time over the last command's in the same round (median and range). Each
# round starts one command further on, so that no command always runs right
# after the same other one (the second of two builds of pgolens run after
# merge-fdata took 1 ms longer than the first, whichever build it was):
#
#   bench/interleave.sh ROUNDS 'CMD A' 'CMD B' ... 'REFERENCE CMD'
#
# Each command is split into words as bash would (quotes kept, no pipes or
# redirections) and run directly, its output thrown away; one that fails stops the
# script. Not through `bash -c`, as it was until 2026-12-08: a shell's start
# was timed with every command (`bash -c true` 3.2 ms against 1.4 ms for
# `/bin/true`, 61 rounds, twice), which weighs on a 35 ms command four times as
# much as on merge-fdata's 130 ms.
set -euo pipefail
rounds=${1:?usage: bench/interleave.sh ROUNDS CMD... REFERENCE}
shift
[ $# -ge 1 ] || { echo "usage: bench/interleave.sh ROUNDS CMD... REFERENCE" >&2; exit 2; }
times=$(mktemp)
trap 'rm -f "$times"' EXIT
cmds=("$@")
for round in $(seq "$rounds"); do
  for k in $(seq 0 $(($# - 1))); do
    i=$(((round + k) % $#))
    cmd=${cmds[$i]}
    eval "words=($cmd)"
    start=$EPOCHREALTIME
    "${words[@]}" > /dev/null 2>&1 || { echo "failed: $cmd" >&2; exit 1; }
    end=$EPOCHREALTIME
    echo "$round $i $start $end" >> "$times"
  done
done
python3 - "$times" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    round_, cmd, start, end = line.split()
    times[int(cmd)][int(round_)] = (float(end) - float(start)) * 1000
last = max(times)
for cmd in sorted(times):
    ms = sorted(times[cmd].values())
    text = f"{cmd}: median {statistics.median(ms):.1f} ms ({ms[0]:.1f} to {ms[-1]:.1f})"
    if cmd != last:
        over = sorted(t / times[last][r] for r, t in times[cmd].items())
        text += f", over the last: median {statistics.median(over):.3f} ({over[0]:.3f} to {over[-1]:.3f})"
    print(text)
PY
